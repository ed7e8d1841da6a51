//! The take-home scripts as Python reads them: every bundled scenario's
//! script, written by `fencelab export --python` from the starting texts
//! (the counterexample a learner takes home) and from the reference, is
//! parsed from its bytes by python3's own `compile` and `tokenize`
//! (tests/scripts/check_script.py) and compared with the template, each
//! literal read back against the plan the script was written from.
//!
//! The hostile corpus's `script` cases (tests/hostile/cases/scripts/) attack
//! the same writer with exercise text; this file covers every bundled
//! scenario through the command line itself.

use fencelab_core::export::template_script;
use fencelab_core::replay::Plan;
use fencelab_core::{ExerciseExt, Procedure, bundled};
use std::path::{Path, PathBuf};
use std::process::Command;

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("fencelab-cli-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn checker() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/scripts/check_script.py")
}

#[test]
fn every_bundled_scenarios_exported_script_keeps_the_templates_structure_and_reads_back() {
    let dir = scratch("take-home");
    let template = dir.join("template.py");
    std::fs::write(&template, template_script()).unwrap();
    let mut scripts = Vec::new();
    for exercise in bundled::exercises().unwrap() {
        for (label, edits) in [
            ("start", exercise.start_edits()),
            ("reference", Default::default()),
        ] {
            let texts = exercise.texts_with(&edits);
            let procedures: Vec<Procedure> = texts
                .iter()
                .map(|(name, text)| Procedure::parse(name, text).unwrap())
                .collect();
            let mut checker = exercise.checker(&texts).unwrap();
            for (index, scenario) in exercise.scenarios.iter().enumerate() {
                let name = format!("{}-{label}-{index}", exercise.id);
                let script = dir.join(format!("{name}.py"));
                let mut args = vec![
                    "export".to_string(),
                    exercise.id.clone(),
                    "--scenario".into(),
                    scenario.name.clone(),
                    "--python".into(),
                    "--output".into(),
                    script.display().to_string(),
                ];
                if label == "start" {
                    args.push("--start".into());
                }
                let output = Command::new(env!("CARGO_BIN_EXE_fencelab"))
                    .args(&args)
                    .output()
                    .unwrap();
                assert!(
                    output.status.success(),
                    "fencelab {}: {}",
                    args.join(" "),
                    String::from_utf8_lossy(&output.stderr)
                );
                // The plan the command line wrote from, made again here:
                // the checker reads every literal back against it.
                let report = checker.check(scenario);
                let plan = Plan::of(&exercise, &procedures, &report, exercise.journal);
                std::fs::write(
                    dir.join(format!("{name}.plan.json")),
                    serde_json::to_string(&plan).unwrap(),
                )
                .unwrap();
                scripts.push(script);
            }
        }
    }
    assert!(scripts.len() > 100, "{} scripts", scripts.len());
    let output = Command::new("python3")
        .arg(checker())
        .arg(&template)
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
        "{0} of {0} scripts keep the template's structure ({0} read back against their plans), 0 do not",
        scripts.len()
    );
    assert!(printed.contains(&summary), "{printed}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The checker is not a check that cannot fail: a script whose line 2 is
/// exercise text, one with a statement added to `schedule()`, one whose
/// literal reads back as another text and one with a comment of its own
/// are each refused, as Python reads them.
#[test]
fn the_script_checker_refuses_what_the_template_does_not_hold() {
    let dir = scratch("take-home-checker");
    let template = template_script();
    std::fs::write(dir.join("template.py"), &template).unwrap();
    // The empty plan the template was written from: only the tampering differs.
    let plan =
        r#"{"exercise":"","scenario":"","schema":"","steps":[],"verdict":"passed","problem":null}"#;
    let tampered = [
        (
            "line-two",
            template.replacen(
                "# -*- coding: utf-8 -*-",
                "# scenario x -*- coding: latin-1 -*-",
                1,
            ),
        ),
        (
            "statement",
            template.replacen(
                "def schedule():\n    pass",
                "def schedule():\n    open('x', 'w')",
                1,
            ),
        ),
        (
            "literal",
            template.replacen("SCENARIO = \"\"", "SCENARIO = \"y\"", 1),
        ),
        (
            "comment",
            template.replacen("def schedule():", "# hello\ndef schedule():", 1),
        ),
    ];
    let mut paths = Vec::new();
    for (name, text) in &tampered {
        assert_ne!(text, &template, "{name} changes the template");
        let path = dir.join(format!("{name}.py"));
        std::fs::write(&path, text).unwrap();
        std::fs::write(dir.join(format!("{name}.plan.json")), plan).unwrap();
        paths.push(path);
    }
    let output = Command::new("python3")
        .arg(checker())
        .arg(dir.join("template.py"))
        .args(&paths)
        .output()
        .expect("python3 runs");
    let printed = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{printed}");
    for (name, _) in &tampered {
        assert!(
            printed.contains(&format!("{name}.py: ")),
            "{name} passed: {printed}"
        );
    }
    assert!(printed.contains("0 of 4 scripts keep"), "{printed}");
    let _ = std::fs::remove_dir_all(&dir);
}
