//! The take_home_script target's corpus read by Python itself: each kept
//! input (`fuzz/corpus/take_home_script/kept-*`, and any saved crash under
//! fuzz/regressions/take_home_script/) becomes the plan the target makes of
//! it, written as its script, and python3 parses every script's bytes
//! (tests/scripts/check_script.py): lines 1-2, the template's top level,
//! steps of literals only, every literal read back against the plan.

use fencelab_fuzzing::script::plan_from_bytes;
use fencelab_hostile::script::Scripts;
use std::path::{Path, PathBuf};

fn kept_under(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|entries| entries.filter_map(|e| Some(e.ok()?.path())).collect())
        .unwrap_or_default();
    files.retain(|f| {
        f.is_file()
            && f.file_name()
                .is_some_and(|n| !n.to_string_lossy().starts_with("from-"))
    });
    files.sort();
    files
}

#[test]
fn every_kept_input_of_the_script_target_parses_as_the_template_in_python() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut inputs = kept_under(&root.join("fuzz/corpus/take_home_script"));
    inputs.extend(kept_under(&root.join("fuzz/regressions/take_home_script")));
    assert!(inputs.len() >= 20, "{} kept inputs", inputs.len());
    let mut scripts = Scripts::new();
    for input in &inputs {
        scripts.add(
            &plan_from_bytes(&std::fs::read(input).unwrap()),
            "fencelab (corpus)",
        );
    }
    if let Err(refused) = scripts.read_all() {
        panic!("{refused}");
    }
}
