//! Small things a newcomer tripped on (issue 51), each as the newcomer met
//! it: the text summary's counts, `check` given a bundled id, the schedule
//! line of a scenario with one order only, and the size figures of
//! docs/GRADING.md.

use serde_json::Value;
use std::path::PathBuf;
use std::process::{Command, Output};

fn fencelab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_fencelab"))
        .args(args)
        .env_remove("GITHUB_STEP_SUMMARY")
        .output()
        .expect("the fencelab binary runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn data(name: &str) -> String {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data"))
        .join(name)
        .display()
        .to_string()
}

#[test]
fn the_text_summary_counts_errored_cases_as_errored() {
    // One schedule is too few for `one winner`: an exploration limit, an
    // error verdict, never a failure of the text.
    let args = ["run", "claim-compare-and-set", "--max-schedules", "1"];
    let document: Value =
        serde_json::from_slice(&fencelab(&[&args[..], &["--json"]].concat()).stdout).unwrap();
    let counts = &document["counts"];
    assert_eq!(counts["errored"], 1, "{counts}");
    let output = fencelab(&args);
    let report = text(&output.stdout);
    let expected = format!(
        "{} passed, {} failed, {} errored",
        counts["passed"].as_u64().unwrap() + counts["limit_shown"].as_u64().unwrap(),
        counts["failed"],
        counts["errored"]
    );
    assert_eq!(report.lines().last(), Some(expected.as_str()), "{report}");
}

#[test]
fn check_given_a_bundled_id_checks_that_exercise() {
    let output = fencelab(&["check", "claim-compare-and-set"]);
    let (out, err) = (text(&output.stdout), text(&output.stderr));
    assert_eq!(output.status.code(), Some(0), "{out}{err}");
    assert!(!err.contains("cannot read"), "{err}");
    assert!(
        out.contains("checked 1 exercise: 1 ok, 0 failing, 0 unreadable"),
        "{out}"
    );
    // Its entry names the bundled file, as `check` with no argument does.
    let output = fencelab(&["check", "claim-compare-and-set", "--json"]);
    let document: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(
        document["entries"][0]["file"],
        "crates/model/exercises/01-claim-compare-and-set.toml"
    );
    // A name that is neither a file nor a bundled id still says so.
    let output = fencelab(&["check", "no-such-exercise"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        text(&output.stderr).contains("no-such-exercise"),
        "{}",
        text(&output.stderr)
    );
}

#[test]
fn a_scenario_with_one_order_shows_no_empty_schedule() {
    // `a take` has no concurrent step: its one order is no schedule to show.
    let exercise = data("uncaught-variant.toml");
    let set = format!("take={}", data("refusing-take.sql"));
    let run =
        |format: &[&str]| fencelab(&[&["run", &exercise, "--set", &set][..], format].concat());

    let output = run(&[]);
    assert_eq!(output.status.code(), Some(1));
    let report = text(&output.stdout);
    assert!(report.contains("FAILED       a take"), "{report}");
    assert!(!report.contains("schedule"), "{report}");

    let document: Value = serde_json::from_slice(&run(&["--json"]).stdout).unwrap();
    let case = &document["entries"][0]["cases"][0];
    assert_eq!(case["status"], "failed");
    assert!(case.get("schedule").is_none(), "{case}");

    let annotations = text(&run(&["--format", "github"]).stdout);
    assert!(annotations.contains("::error "), "{annotations}");
    assert!(!annotations.contains("schedule"), "{annotations}");
}

#[test]
fn grading_md_counts_the_bundled_exercises_as_list_does() {
    let listed = text(&fencelab(&["list"]).stdout).lines().count();
    let guide = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../docs/GRADING.md"
    ))
    .unwrap();
    let said: Vec<&str> = guide
        .split("bundled exercises")
        .zip(guide.split("bundled exercises").skip(1))
        .filter_map(|(before, _)| before.split_whitespace().last())
        .filter(|word| word.chars().all(|c| c.is_ascii_digit()))
        .collect();
    assert!(!said.is_empty(), "GRADING.md gives no count");
    for count in said {
        assert_eq!(count, listed.to_string(), "GRADING.md says {count}");
    }
}
