//! The take-home scripts as Python reads them: every bundled scenario's
//! script, written by `fencelab export --python` from the starting texts
//! (the counterexample a learner takes home) and from the reference, is
//! parsed from its bytes by python3's own `compile` and `tokenize`
//! (tests/scripts/check_script.py) and compared with the template, each
//! literal read back against the plan the script was written from.
//!
//! The hostile corpus's `script` cases (tests/hostile/cases/scripts/) attack
//! the same writer with exercise text; this file gives every bundled
//! scenario, and each of those cases' exercise files, to the command line
//! itself.

use fencelab_core::export::template_script;
use fencelab_core::replay::Plan;
use fencelab_core::{Exercise, ExerciseExt, Procedure, bundled};
use fencelab_hostile::script::Scripts;
use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::process::Command;

/// Procedure texts by name, as `texts_with` takes them.
type Edits = BTreeMap<String, String>;

/// Exports every scenario of `exercise` under the texts `edits` make, with
/// `fencelab export EXERCISE ... [extra]` (EXERCISE a bundled id or a file),
/// and adds each script with the plan made here from the same run: the
/// checker reads every literal back against it.
fn export_every_scenario(
    scripts: &mut Scripts,
    exercise: &Exercise,
    named: &OsStr,
    edits: &Edits,
    extra: &[&str],
) {
    let texts = exercise.texts_with(edits);
    let procedures: Vec<Procedure> = texts
        .iter()
        .map(|(name, text)| Procedure::parse(name, text).unwrap())
        .collect();
    let mut checker = exercise.checker(&texts).unwrap();
    for scenario in &exercise.scenarios {
        let script = scripts.next_path();
        let output = Command::new(env!("CARGO_BIN_EXE_fencelab"))
            .arg("export")
            .arg(named)
            .args(["--scenario", &scenario.name, "--python", "-o"])
            .arg(&script)
            .args(extra)
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "{} `{}`: {}",
            exercise.id,
            scenario.name,
            String::from_utf8_lossy(&output.stderr)
        );
        let report = checker.check(scenario);
        let plan = Plan::of(exercise, &procedures, &report, exercise.journal);
        scripts.add_written(script, &plan);
    }
}

#[test]
fn every_bundled_scenarios_exported_script_keeps_the_templates_structure_and_reads_back() {
    let mut scripts = Scripts::new();
    for exercise in bundled::exercises().unwrap() {
        let id = OsStr::new(&exercise.id);
        export_every_scenario(
            &mut scripts,
            &exercise,
            id,
            &exercise.start_edits(),
            &["--start"],
        );
        export_every_scenario(&mut scripts, &exercise, id, &Edits::new(), &[]);
    }
    let count = scripts.paths().len();
    assert!(count > 100, "{count} scripts");
    if let Err(refused) = scripts.read_all() {
        panic!("{refused}");
    }
}

/// The hostile corpus's script cases (names declaring an encoding, values
/// written to close their literal) through the command line itself: each
/// case's exercise file given to `fencelab export`, every scenario's script
/// read by Python against the plan made here.
#[test]
fn hostile_exercise_files_exported_by_the_command_line_keep_the_templates_structure() {
    let mut scripts = Scripts::new();
    let mut files = 0;
    for (name, text) in fencelab_hostile::CASES {
        if !name.starts_with("scripts/") {
            continue;
        }
        let case = fencelab_hostile::parse(name, text).unwrap();
        let input = case.whole_input();
        let exercise = fencelab_core::exercise::load("case.toml", &input).unwrap();
        let file = scripts.folder().join(format!("exercise-{files}.toml"));
        std::fs::write(&file, &input).unwrap();
        files += 1;
        export_every_scenario(
            &mut scripts,
            &exercise,
            file.as_os_str(),
            &Edits::new(),
            &[],
        );
    }
    assert!(files >= 5, "{files} script cases");
    if let Err(refused) = scripts.read_all() {
        panic!("{refused}");
    }
}

/// The checker is not a check that cannot fail: a script whose line 2 is
/// exercise text, one with a statement added to `schedule()`, one whose
/// literal reads back as another text and one with a comment of its own
/// are each refused, as Python reads them.
#[test]
fn the_script_checker_refuses_what_the_template_does_not_hold() {
    let template = template_script();
    // The empty plan the template was written from: only the tampering differs.
    let empty = Plan {
        exercise: String::new(),
        scenario: String::new(),
        schedule: Default::default(),
        journal: Default::default(),
        schema: String::new(),
        steps: Vec::new(),
        verdict: fencelab_core::Verdict::Passed,
        problem: None,
    };
    let tampered = [
        template.replacen(
            "# -*- coding: utf-8 -*-",
            "# scenario x -*- coding: latin-1 -*-",
            1,
        ),
        template.replacen(
            "def schedule():\n    pass",
            "def schedule():\n    open('x', 'w')",
            1,
        ),
        template.replacen("SCENARIO = \"\"", "SCENARIO = \"y\"", 1),
        template.replacen("def schedule():", "# hello\ndef schedule():", 1),
    ];
    let mut scripts = Scripts::new();
    for text in &tampered {
        assert_ne!(text, &template, "the tampering changes the template");
        let path = scripts.next_path();
        std::fs::write(&path, text).unwrap();
        scripts.add_written(path, &empty);
    }
    let paths = scripts.paths().to_vec();
    let refused = scripts
        .read_all()
        .expect_err("every tampered script is refused");
    for path in &paths {
        let name = path.file_name().unwrap().to_string_lossy();
        assert!(
            refused.contains(&format!("{name}: ")),
            "{name} passed: {refused}"
        );
    }
    assert!(refused.contains("0 of 4 scripts keep"), "{refused}");
    // What the refusal kept to look at.
    let kept = paths[0].parent().unwrap();
    let _ = std::fs::remove_dir_all(kept);
}
