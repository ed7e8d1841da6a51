//! `script` cases: an exercise file whose text attacks the take-home
//! script (`fencelab export --python`, `replay --python`, the page's
//! download), which learners and graders run on their own machines.
//!
//! Every scenario of the exercise, under its reference and its starting
//! texts, is written as the script the model writes, with the plan it was
//! written from beside it. Python's own parser then reads each file's bytes
//! as python3 reads them (tests/scripts/check_script.py: the encoding
//! declaration honoured, the top level the template's, every literal read
//! back as the plan's text), and each script is run with `python3 -I -S` in
//! an empty folder of its own: it must end on fencelab's verdict with its
//! exit code, and leave that folder empty (an injected statement that
//! writes a file is seen).
//!
//! Must never: run a script outside a scratch folder, or judge a script by
//! reading its text with a parser of our own.

use crate::{Ran, rejected};
use fencelab_core::export::{python_script, template_script};
use fencelab_core::replay::Plan;
use fencelab_core::{Exercise, ExerciseExt, Procedure, Verdict, exercise};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The checker, Python's own parser behind it.
fn checker() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/check_script.py")
}

/// A folder of its own under the system's temporary folder, new and empty.
fn scratch(name: &str) -> PathBuf {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "fencelab-hostile-script-{}-{}-{name}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("the temporary folder is writable");
    dir
}

/// The plans of every scenario under the reference and the starting texts.
fn plans(exercise: &Exercise) -> Result<Vec<Plan>, String> {
    let start = exercise.start_edits();
    let mut plans = Vec::new();
    for edits in [Default::default(), start] {
        let texts = exercise.texts_with(&edits);
        let procedures = texts
            .iter()
            .map(|(name, text)| Procedure::parse(name, text).map_err(|e| e.message))
            .collect::<Result<Vec<_>, _>>()?;
        let mut checker = exercise
            .checker(&texts)
            .map_err(|unusable| unusable.error.to_string())?;
        for scenario in &exercise.scenarios {
            let report = checker.check(scenario);
            plans.push(Plan::of(exercise, &procedures, &report, exercise.journal));
        }
    }
    Ok(plans)
}

fn python(dir: &Path, args: &[&std::ffi::OsStr]) -> Result<std::process::Output, String> {
    Command::new("python3")
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run python3: {e}"))
}

/// Writes, checks and runs the scripts of the exercise `input`.
pub fn run(input: &str) -> Ran {
    let exercise = match exercise::load("case.toml", input) {
        Ok(exercise) => exercise,
        Err(error) => return rejected(error.to_string()),
    };
    let plans = match plans(&exercise) {
        Ok(plans) => plans,
        Err(error) => return rejected(error),
    };
    let dir = scratch(
        &exercise
            .id
            .chars()
            .filter(char::is_ascii_alphanumeric)
            .collect::<String>(),
    );
    let template = dir.join("template.py");
    std::fs::write(&template, template_script()).expect("the scratch folder is writable");
    let mut scripts = Vec::new();
    for (index, plan) in plans.iter().enumerate() {
        let script = dir.join(format!("script-{index}.py"));
        std::fs::write(&script, python_script(plan, &exercise.id)).expect("writable");
        let json = serde_json::to_string(plan).expect("a plan is JSON");
        std::fs::write(dir.join(format!("script-{index}.plan.json")), json).expect("writable");
        scripts.push(script);
    }
    let mut errors = Vec::new();
    let checker = checker();
    let mut args = vec![checker.as_os_str(), template.as_os_str()];
    args.extend(scripts.iter().map(|s| s.as_os_str()));
    match python(&dir, &args) {
        Err(error) => errors.push(error),
        Ok(out) if !out.status.success() => errors.push(format!(
            "Python's parser refuses the scripts: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )),
        Ok(_) => {}
    }
    let mut shown = String::new();
    for (script, plan) in scripts.iter().zip(&plans) {
        let cwd = dir.join(format!("{}.run", script.display()));
        std::fs::create_dir_all(&cwd).expect("writable");
        let out = match python(&cwd, &["-I".as_ref(), "-S".as_ref(), script.as_os_str()]) {
            Ok(out) => out,
            Err(error) => {
                errors.push(error);
                continue;
            }
        };
        let printed = String::from_utf8_lossy(&out.stdout).into_owned();
        let wanted = match plan.verdict {
            Verdict::Passed | Verdict::LimitShown => 0,
            Verdict::Failed | Verdict::Error => 1,
        };
        if out.status.code() != Some(wanted) {
            let ended = out.status.code().map_or_else(
                || "was ended by a signal".to_string(),
                |code| format!("exited {code}"),
            );
            errors.push(format!(
                "{} ({}) {ended}, not {wanted}: {printed}{}",
                script.display(),
                plan.scenario,
                String::from_utf8_lossy(&out.stderr)
            ));
        }
        let left: Vec<String> = std::fs::read_dir(&cwd)
            .map(|entries| {
                entries
                    .flatten()
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default();
        if !left.is_empty() {
            errors.push(format!(
                "{} ({}) left {} in the folder it ran in: code of the exercise's ran",
                script.display(),
                plan.scenario,
                left.join(", ")
            ));
        }
        shown.push_str(&printed);
    }
    if errors.is_empty() {
        let _ = std::fs::remove_dir_all(&dir);
    }
    Ran {
        errors,
        shown: Some(shown),
        ..Ran::default()
    }
}
