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

/// Take-home scripts written for a test, each beside the plan it was
/// written from, with the template, in a folder that is fresh, private and
/// removed when this is dropped (kept when Python refuses a script, to look
/// at). [`Scripts::read_all`] has python3 read them.
pub struct Scripts {
    folder: tempfile::TempDir,
    scripts: Vec<PathBuf>,
}

impl Scripts {
    pub fn new() -> Scripts {
        let folder = tempfile::Builder::new()
            .prefix("fencelab-scripts-")
            .tempdir()
            .expect("the temporary folder is writable");
        std::fs::write(folder.path().join("template.py"), template_script())
            .expect("the temporary folder is writable");
        Scripts {
            folder,
            scripts: Vec::new(),
        }
    }

    pub fn folder(&self) -> &Path {
        self.folder.path()
    }

    pub fn paths(&self) -> &[PathBuf] {
        &self.scripts
    }

    /// Where the next script goes.
    pub fn next_path(&self) -> PathBuf {
        self.folder()
            .join(format!("script-{}.py", self.scripts.len()))
    }

    /// Adds the script someone under test wrote at `path` (from
    /// [`Scripts::next_path`]), with the plan it must read back as.
    pub fn add_written(&mut self, path: PathBuf, plan: &Plan) {
        let json = serde_json::to_string(plan).expect("a plan is JSON");
        std::fs::write(path.with_extension("plan.json"), json).expect("writable");
        self.scripts.push(path);
    }

    /// Writes `plan`'s script with the model's writer, and adds it.
    pub fn add(&mut self, plan: &Plan, made_by: &str) {
        let path = self.next_path();
        std::fs::write(&path, python_script(plan, made_by)).expect("writable");
        self.add_written(path, plan);
    }

    /// python3's own parser on every script's bytes, against the template
    /// and each one's plan: the checker's summary when every script keeps
    /// the template's structure and reads back, or all it said.
    pub fn read_all(self) -> Result<String, String> {
        let checker = checker();
        let template = self.folder().join("template.py");
        let mut args = vec![checker.as_os_str(), template.as_os_str()];
        args.extend(self.scripts.iter().map(|s| s.as_os_str()));
        let out = python(self.folder(), &args)?;
        let said = String::from_utf8_lossy(&out.stdout).into_owned();
        let every = format!(
            "{0} of {0} scripts keep the template's structure ({0} read back against their plans), 0 do not",
            self.scripts.len()
        );
        if out.status.success() && said.contains(&every) {
            return Ok(said);
        }
        let kept = self.folder.keep();
        Err(format!(
            "Python's parser refuses the scripts in {}: {said}{}",
            kept.display(),
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}

impl Default for Scripts {
    fn default() -> Self {
        Scripts::new()
    }
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
    let mut scripts = Scripts::new();
    for plan in &plans {
        scripts.add(plan, &exercise.id);
    }
    let runs = scripts.folder().join("runs");
    let mut errors = Vec::new();
    let mut shown = String::new();
    for (index, (script, plan)) in scripts.paths().iter().zip(&plans).enumerate() {
        let cwd = runs.join(index.to_string());
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
    if let Err(refused) = scripts.read_all() {
        errors.push(refused);
    }
    Ran {
        errors,
        shown: Some(shown),
        ..Ran::default()
    }
}
