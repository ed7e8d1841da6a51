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

/// The PostgreSQL script (`export --python --postgres`) as Python reads
/// it: a plan whose every text is hostile (quotes, backslashes, newlines,
/// NUL, a line separator, a triple quote, braces, a byte-order mark, an
/// astral character) keeps the PostgreSQL template's structure, and every
/// literal reads back as the plan's text, numbered by the engine's own
/// rewrite.
#[test]
fn a_hostile_plans_postgres_script_keeps_the_templates_structure_and_reads_back() {
    use fencelab_core::export::{postgres_script, postgres_template_script};
    use fencelab_core::history::ResultRows;
    use fencelab_core::replay::{Action, Expected, PlanStep};
    use fencelab_core::value::Value;
    let hostile = "x\"; import os; os.system('id') #\\'\n\r\t\u{0}\u{2028}\u{2029}\"\"\"{0}{{}}\u{feff}\u{202e}\u{1f600}'''";
    let step = |action: Action| PlanStep {
        event: 0,
        who: hostile.into(),
        line: format!("{hostile}: {hostile}"),
        action,
    };
    let sql = format!("UPDATE t SET a = :{} WHERE b = '{hostile}' AND c = :c", "a");
    let plan = Plan {
        exercise: hostile.into(),
        scenario: hostile.into(),
        schedule: Default::default(),
        journal: Default::default(),
        schema: format!("CREATE TABLE t (a TEXT); -- {hostile}"),
        steps: vec![
            step(Action::Open {
                process: hostile.into(),
            }),
            step(Action::Run {
                process: hostile.into(),
                sql: sql.clone(),
                parameters: [
                    ("a".to_string(), Value::Text(hostile.into())),
                    ("c".to_string(), Value::Integer(-3)),
                ]
                .into(),
                expected: Expected::Ran {
                    changed: 1,
                    returned: ResultRows {
                        columns: vec![hostile.into()],
                        rows: vec![vec![Value::Text(hostile.into()), Value::Null]],
                    },
                },
            }),
            step(Action::Run {
                process: hostile.into(),
                sql,
                parameters: Default::default(),
                expected: Expected::Waits,
            }),
            step(Action::Direct {
                sql: hostile.into(),
                changed: 2,
            }),
            step(Action::Note),
            step(Action::Close {
                process: hostile.into(),
            }),
        ],
        verdict: fencelab_core::Verdict::Failed,
        problem: Some(hostile.into()),
    };
    let script = postgres_script(
        &plan,
        Default::default(),
        &fencelab_postgres::positional,
        hostile,
    );
    let folder = tempfile::tempdir().unwrap();
    let template = folder.path().join("template.py");
    std::fs::write(&template, postgres_template_script()).unwrap();
    let path = folder.path().join("hostile.py");
    std::fs::write(&path, &script).unwrap();
    std::fs::write(
        folder.path().join("hostile.plan.json"),
        serde_json::to_string(&plan).unwrap(),
    )
    .unwrap();
    let checker = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/scripts/check_script.py");
    let output = Command::new("python3")
        .arg(&checker)
        .arg(&template)
        .arg(&path)
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success()
            && said.contains("1 of 1 scripts keep the template's structure (1 read back"),
        "{said}{}",
        String::from_utf8_lossy(&output.stderr)
    );
}
