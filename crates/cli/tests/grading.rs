//! Grading output as graders read it (docs/GRADING.md): the JSON document's
//! contract, points and exit codes, share links, and the Gradescope,
//! Exercism and GitHub formats checked field by field against their
//! documentation. JUnit XML is validated against junit-10.xsd by `cargo
//! xtask test` (its stage needs xmllint).

use serde_json::Value;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Output;

mod common;
use common::fencelab;
use common::{data, fencelab_with, json, text};

fn bundled(name: &str) -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../model/exercises")).join(name)
}

const CLAIM_FILE: &str = "01-claim-compare-and-set.toml";

/// A fresh scratch directory for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("fencelab-grading-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `--set claim=FILE` for a test data file.
fn set_claim(name: &str) -> String {
    format!("claim={}", data(name).display())
}

/// `fencelab run claim-compare-and-set --set claim=DATA_FILE ARGS...`.
fn run_claim(sql_file: &str, args: &[&str]) -> Output {
    run_claim_with(sql_file, args, &[])
}

fn run_claim_with(sql_file: &str, args: &[&str], env: &[(&str, &Path)]) -> Output {
    let set = set_claim(sql_file);
    let mut all = vec!["run", "claim-compare-and-set", "--set", &set];
    all.extend(args);
    fencelab_with(&all, env)
}

/// The 1-based line of the first line of `file` that is exactly `line`.
fn line_of(file: &Path, line: &str) -> usize {
    let text = std::fs::read_to_string(file).unwrap();
    text.lines()
        .position(|l| l == line)
        .expect("the line is there")
        + 1
}

fn keys(object: &Value) -> BTreeSet<String> {
    object
        .as_object()
        .expect("an object")
        .keys()
        .cloned()
        .collect()
}

fn subset(keys: BTreeSet<String>, allowed: &[&str]) -> bool {
    keys.iter().all(|k| allowed.contains(&k.as_str()))
}

#[test]
fn check_json_has_an_entry_per_file_even_one_that_does_not_load() {
    let dir = scratch("entries");
    std::fs::copy(bundled(CLAIM_FILE), dir.join(CLAIM_FILE)).unwrap();
    for name in ["uncaught-variant.toml", "unknown-field.toml"] {
        std::fs::copy(data(name), dir.join(name)).unwrap();
    }
    let output = fencelab(&["check", dir.to_str().unwrap(), "--format", "json"]);
    assert_eq!(output.status.code(), Some(2), "{}", text(&output.stderr));
    let document = json(&output);
    assert_eq!(document["format_version"], 1);
    assert_eq!(document["command"], "check");
    let entries = document["entries"].as_array().unwrap();
    let files: Vec<&str> = entries
        .iter()
        .map(|e| e["file"].as_str().unwrap())
        .collect();
    let expected: Vec<String> = [CLAIM_FILE, "uncaught-variant.toml", "unknown-field.toml"]
        .iter()
        .map(|name| dir.join(name).display().to_string())
        .collect();
    assert_eq!(files, expected);
    assert_eq!(
        entries
            .iter()
            .map(|e| e["status"].clone())
            .collect::<Vec<_>>(),
        ["passed", "failed", "unloadable"]
    );

    // The file that did not load is an entry with its error's place.
    let unloadable = &entries[2];
    assert!(unloadable.get("exercise").is_none());
    assert_eq!(unloadable["error"]["line"], 6);
    assert_eq!(unloadable["error"]["column"], 1);
    assert!(
        unloadable["error"]["message"]
            .as_str()
            .unwrap()
            .contains("surprise")
    );
    assert_eq!(unloadable["cases"].as_array().unwrap().len(), 0);

    // The survivor is a failed case placed at its [[mutants]] table.
    let survivor = entries[1]["cases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["kind"] == "broken_variant")
        .unwrap();
    assert_eq!(survivor["status"], "failed");
    assert_eq!(
        survivor["location"]["line"],
        line_of(&dir.join("uncaught-variant.toml"), "[[mutants]]")
    );

    // Counts add up, per entry and over the document, each kind apart.
    let mut sum = 0;
    for entry in entries {
        let c = &entry["counts"];
        let parts: u64 = ["passed", "failed", "errored", "limit_shown"]
            .iter()
            .map(|k| c[k].as_u64().unwrap())
            .sum();
        assert_eq!(c["total"].as_u64().unwrap(), parts);
        assert_eq!(
            c["total"].as_u64().unwrap(),
            entry["cases"].as_array().unwrap().len() as u64
        );
        sum += parts;
    }
    assert_eq!(document["counts"]["total"].as_u64().unwrap(), sum);
    assert_eq!(document["counts"]["failed"], 1);
}

/// The starter exercise with `points = 3` on its first scenario.
fn weighted_exercise(dir: &Path) -> PathBuf {
    let output = fencelab(&["new", "weighted", "--dir", dir.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let file = dir.join("weighted.toml");
    let starter = std::fs::read_to_string(&file).unwrap();
    let weighted = starter.replacen(
        "name = \"one taker\"\n",
        "name = \"one taker\"\npoints = 3\n",
        1,
    );
    assert_ne!(weighted, starter);
    std::fs::write(&file, weighted).unwrap();
    file
}

#[test]
fn run_grades_a_submission_with_points_histories_and_a_minimum_score() {
    let dir = scratch("points");
    let file = weighted_exercise(&dir);
    let file = file.to_str().unwrap();

    let output = fencelab(&["run", file, "--start", "--json"]);
    assert_eq!(output.status.code(), Some(1));
    let document = json(&output);
    let cases = document["entries"][0]["cases"].as_array().unwrap();
    let one_taker = &cases[0];
    assert_eq!(one_taker["name"], "one taker");
    assert_eq!(one_taker["status"], "failed");
    assert_eq!(
        (one_taker["points"].clone(), one_taker["max_points"].clone()),
        (0.into(), 3.into())
    );
    let max: u64 = cases
        .iter()
        .map(|c| c["max_points"].as_u64().unwrap())
        .sum();
    let earned: u64 = cases
        .iter()
        .filter(|c| c["status"] == "passed" || c["status"] == "limit_shown")
        .map(|c| c["max_points"].as_u64().unwrap())
        .sum();
    assert_eq!(max, 3 + (cases.len() as u64 - 1));
    assert_eq!(document["score"]["max"].as_u64().unwrap(), max);
    assert_eq!(document["score"]["points"].as_u64().unwrap(), earned);
    // By default only what did not pass carries its history.
    for case in cases {
        let passed = case["status"] == "passed" || case["status"] == "limit_shown";
        assert_eq!(case.get("history").is_some(), !passed, "{case}");
    }
    let cases_with = |history: &str| {
        let document = json(&fencelab(&[
            "run",
            file,
            "--start",
            "--json",
            "--history",
            history,
        ]));
        document["entries"][0]["cases"].as_array().unwrap().clone()
    };
    assert!(
        cases_with("all")
            .iter()
            .all(|c| !c["history"].as_array().unwrap().is_empty())
    );
    assert!(
        cases_with("none")
            .iter()
            .all(|c| c.get("history").is_none())
    );

    // --points ends the text with the score; --min-score decides the exit.
    let output = fencelab(&["run", file, "--start", "--points"]);
    let score = format!("score {earned}/{max}");
    assert_eq!(text(&output.stdout).lines().last(), Some(score.as_str()));
    let least = earned.to_string();
    let output = fencelab(&["run", file, "--start", "--min-score", &least]);
    assert_eq!(output.status.code(), Some(0));
    let more = (earned + 1).to_string();
    let output = fencelab(&["run", file, "--start", "--min-score", &more]);
    assert_eq!(output.status.code(), Some(1));
    // With a document on stdout, the score line goes to stderr.
    let output = fencelab(&["run", file, "--start", "--format", "json", "--points"]);
    assert_eq!(json(&output)["score"]["points"].as_u64(), Some(earned));
    assert_eq!(text(&output.stderr).trim(), score);
    // The reference earns everything.
    let output = fencelab(&["run", file, "--points"]);
    assert_eq!(output.status.code(), Some(0));
    let full = format!("score {max}/{max}");
    assert_eq!(text(&output.stdout).lines().last(), Some(full.as_str()));
}

#[test]
fn points_are_checked_and_a_bad_value_is_placed_at_its_line() {
    let dir = scratch("bad-points");
    let file = weighted_exercise(&dir);
    let line = line_of(&file, "points = 3");
    let weighted = std::fs::read_to_string(&file).unwrap();
    for (value, says) in [("5000", "0 to 1000 points"), ("-1", "")] {
        std::fs::write(
            &file,
            weighted.replace("points = 3", &format!("points = {value}")),
        )
        .unwrap();
        let output = fencelab(&["check", file.to_str().unwrap()]);
        assert_eq!(output.status.code(), Some(2));
        let error = text(&output.stderr);
        assert!(
            error.contains(&format!("weighted.toml:{line}:")),
            "{value}: {error}"
        );
        assert!(error.contains(says), "{error}");
    }
}

#[test]
fn a_counterexample_links_to_the_page_with_the_submitted_text() {
    let output = run_claim(
        "naive-claim.sql",
        &["--json", "--site", "https://example.org/course/fencelab/"],
    );
    assert_eq!(output.status.code(), Some(1));
    let document = json(&output);
    let case = &document["entries"][0]["cases"][0];
    let link = case["link"].as_str().expect("a failed case has a link");
    let fragment = link
        .strip_prefix("https://example.org/course/fencelab/#")
        .expect("on the site given");
    let opened = fencelab_model::share::decode(fragment).expect("the page reads it");
    assert_eq!(opened.exercise, "claim-compare-and-set");
    assert_eq!(opened.scenario.as_deref(), Some("one winner"));
    assert_eq!(
        opened.schedule.map(|s| s.to_string()),
        case["schedule"].as_str().map(str::to_string)
    );
    let naive = std::fs::read_to_string(data("naive-claim.sql")).unwrap();
    assert_eq!(opened.edits.get("claim"), Some(&naive));
    // Passing cases have no counterexample to link to.
    let passing = &document["entries"][0]["cases"][1];
    assert_eq!(passing["status"], "passed");
    assert!(passing.get("link").is_none());

    let output = fencelab(&["run", "claim-compare-and-set", "--site", "example.org"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(text(&output.stderr).contains("--site"));
}

#[test]
fn gradescope_results_carry_the_documented_fields() {
    let output = run_claim("naive-claim.sql", &["--format", "gradescope"]);
    assert_eq!(output.status.code(), Some(1));
    let results = json(&output);
    // gradescope-autograders.readthedocs.io, "Autograder Specifications".
    assert!(subset(
        keys(&results),
        &[
            "score",
            "execution_time",
            "output",
            "output_format",
            "test_output_format",
            "test_name_format",
            "visibility",
            "stdout_visibility",
            "extra_data",
            "tests",
            "leaderboard"
        ]
    ));
    let tests = results["tests"].as_array().expect("tests is an array");
    assert_eq!(tests.len(), 3);
    let mut sum = 0.0;
    for test in tests {
        assert!(subset(
            keys(test),
            &[
                "score",
                "max_score",
                "status",
                "name",
                "name_format",
                "number",
                "output",
                "output_format",
                "tags",
                "visibility",
                "extra_data"
            ]
        ));
        assert!(test["name"].is_string());
        assert!(test["output"].is_string());
        let score = test["score"].as_f64().expect("score is a number");
        let max = test["max_score"].as_f64().expect("max_score is a number");
        assert!((0.0..=max).contains(&score));
        let status = test["status"].as_str().unwrap();
        assert!(["passed", "failed"].contains(&status), "{status}");
        assert_eq!(status == "passed", score == max);
        sum += score;
    }
    assert_eq!(results["score"].as_f64(), Some(sum));
    assert_eq!(sum, 2.0);
    let failed = &tests[0];
    assert_eq!(failed["name"], "claim-compare-and-set: one winner");
    assert!(
        failed["output"]
            .as_str()
            .unwrap()
            .contains("shortest failing schedule: ")
    );
}

#[test]
fn exercism_results_are_version_3_with_its_statuses() {
    let allowed_top = ["version", "status", "message", "tests"];
    let allowed_test = [
        "name",
        "status",
        "message",
        "output",
        "test_code",
        "task_id",
    ];
    let check_shape = |results: &Value| {
        assert!(subset(keys(results), &allowed_top));
        assert_eq!(results["version"], 3);
        let tests = results["tests"].as_array().expect("tests is an array");
        for test in tests {
            assert!(subset(keys(test), &allowed_test));
            assert!(test["name"].is_string());
            assert!(test["test_code"].is_string());
            let status = test["status"].as_str().unwrap();
            assert!(["pass", "fail", "error"].contains(&status), "{status}");
            // A failed or errored test says why; output stays within 500.
            assert_eq!(test["message"].is_string(), status != "pass");
            if let Some(output) = test.get("output") {
                assert!(output.as_str().unwrap().chars().count() <= 500);
            }
        }
        results["status"].as_str().unwrap().to_string()
    };

    let output = run_claim("naive-claim.sql", &["--format", "exercism"]);
    let failing = json(&output);
    assert_eq!(check_shape(&failing), "fail");
    assert!(failing.get("message").is_none());
    assert_eq!(failing["tests"][0]["status"], "fail");
    assert_eq!(failing["tests"][1]["status"], "pass");

    let output = fencelab(&["run", "claim-compare-and-set", "--format", "exercism"]);
    assert_eq!(check_shape(&json(&output)), "pass");

    // A text that does not parse runs no test: `error`, with a message.
    let output = run_claim("unparsable-claim.sql", &["--format", "exercism"]);
    assert_eq!(output.status.code(), Some(2));
    let errored = json(&output);
    assert_eq!(check_shape(&errored), "error");
    assert!(!errored["message"].as_str().unwrap().is_empty());
    assert!(text(&output.stderr).contains("unparsable-claim.sql:2:1"));
}

#[test]
fn github_annotations_name_the_file_and_line_and_the_summary_is_written() {
    let dir = scratch("github");
    let summary = dir.join("summary.md");
    std::fs::write(&summary, "earlier step\n").unwrap();
    let output = run_claim_with(
        "naive-claim.sql",
        &["--format", "github"],
        &[("GITHUB_STEP_SUMMARY", &summary)],
    );
    assert_eq!(output.status.code(), Some(1));
    let out = text(&output.stdout);
    // The text report, then one annotation per case that did not pass.
    assert!(out.contains("FAILED       one winner"), "{out}");
    // At the submitted text's UPDATE (line 4), the step of the call whose
    // return broke the scenario: the file the student can change.
    let naive = data("naive-claim.sql").display().to_string();
    let annotations: Vec<&str> = out.lines().filter(|l| l.starts_with("::")).collect();
    assert_eq!(annotations.len(), 1, "{out}");
    assert!(
        annotations[0].starts_with(&format!("::error file={naive},line=4,title=")),
        "{out}"
    );
    // A multi-line message stays one command.
    assert!(
        annotations[0].contains("%0Ashortest failing schedule: "),
        "{out}"
    );

    let written = std::fs::read_to_string(&summary).unwrap();
    assert!(written.starts_with("earlier step\n"), "appended: {written}");
    assert!(
        written.contains("### fencelab run: 2 of 3 points"),
        "{written}"
    );
    assert!(
        written.contains("| claim-compare-and-set | one winner | failed |"),
        "{written}"
    );

    // An error in a submitted text points at that file's line.
    let output = run_claim("unparsable-claim.sql", &["--format", "github"]);
    assert_eq!(output.status.code(), Some(2));
    let file = data("unparsable-claim.sql").display().to_string();
    assert!(
        text(&output.stdout).contains(&format!("::error file={file},line=2,")),
        "{}",
        text(&output.stdout)
    );
}

#[test]
fn check_annotations_point_at_the_declaration_and_at_a_load_error() {
    let dir = scratch("github-check");
    for name in ["uncaught-variant.toml", "unknown-field.toml"] {
        std::fs::copy(data(name), dir.join(name)).unwrap();
    }
    let output = fencelab(&["check", dir.to_str().unwrap(), "--format", "github"]);
    assert_eq!(output.status.code(), Some(2));
    let out = text(&output.stdout);
    let uncaught = dir.join("uncaught-variant.toml");
    let line = line_of(&uncaught, "[[mutants]]");
    assert!(
        out.contains(&format!("::error file={},line={line},", uncaught.display())),
        "{out}"
    );
    let unknown = dir.join("unknown-field.toml");
    assert!(
        out.contains(&format!("::error file={},line=6,col=1,", unknown.display())),
        "{out}"
    );
}

#[test]
fn junit_has_a_suite_per_exercise_and_a_case_per_scenario() {
    let output = run_claim("naive-claim.sql", &["--format", "junit"]);
    assert_eq!(output.status.code(), Some(1));
    let xml = text(&output.stdout);
    assert!(xml.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites "));
    assert!(
        xml.contains("tests=\"3\" failures=\"1\" errors=\"0\""),
        "{xml}"
    );
    assert_eq!(xml.matches("<testcase ").count(), 3, "{xml}");
    assert_eq!(xml.matches("<failure ").count(), 1, "{xml}");
    assert!(xml.contains(&format!("file=\"crates/model/exercises/{CLAIM_FILE}\"")));
}
