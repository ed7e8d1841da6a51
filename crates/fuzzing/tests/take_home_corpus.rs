//! The take_home_script target's corpus read by Python itself: each kept
//! input (the committed seeds under fuzz/corpus/take_home_script/ and any
//! saved crash under fuzz/regressions/take_home_script/) becomes the plan
//! the target makes of it, written as its script, and python3 parses every
//! script's bytes (tests/scripts/check_script.py): lines 1-2, the template's
//! top level, steps of literals only, every literal read back against the
//! plan.

use fencelab_fuzzing::script::plan_from_bytes;
use fencelab_model::export::{python_script, template_script};
use std::path::{Path, PathBuf};
use std::process::Command;

fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|entries| entries.filter_map(|e| Some(e.ok()?.path())).collect())
        .unwrap_or_default();
    files.retain(|f| f.is_file());
    files.sort();
    files
}

#[test]
fn every_kept_input_of_the_script_target_parses_as_the_template_in_python() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut inputs = files_under(&root.join("fuzz/corpus/take_home_script"));
    inputs.extend(files_under(&root.join("fuzz/regressions/take_home_script")));
    assert!(inputs.len() >= 20, "{} kept inputs", inputs.len());
    let dir =
        std::env::temp_dir().join(format!("fencelab-take-home-corpus-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("template.py"), template_script()).unwrap();
    let mut scripts = Vec::new();
    for (index, input) in inputs.iter().enumerate() {
        let plan = plan_from_bytes(&std::fs::read(input).unwrap());
        let script = dir.join(format!("input-{index}.py"));
        std::fs::write(&script, python_script(&plan, "fencelab (corpus)")).unwrap();
        std::fs::write(
            dir.join(format!("input-{index}.plan.json")),
            serde_json::to_string(&plan).unwrap(),
        )
        .unwrap();
        scripts.push(script);
    }
    let output = Command::new("python3")
        .arg(root.join("tests/scripts/check_script.py"))
        .arg(dir.join("template.py"))
        .args(&scripts)
        .output()
        .expect("python3 runs");
    let printed = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{printed}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let summary = format!(
        "{0} of {0} scripts keep the template's structure ({0} read back",
        scripts.len()
    );
    assert!(printed.contains(&summary), "{printed}");
    let _ = std::fs::remove_dir_all(&dir);
}
