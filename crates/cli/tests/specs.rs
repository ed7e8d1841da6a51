//! Each grader format read as its consumer reads it (issue 51, "Outputs
//! true to their specs"): JSON through serde_json, Gradescope's Markdown
//! through a CommonMark parser, JUnit XML through python3's
//! xml.etree.ElementTree, GitHub's workflow commands line by line. Each test
//! cites the page and the sentence its rule rests on.

use serde_json::Value;
use std::path::PathBuf;
use std::process::Output;

mod common;
use common::{data, fencelab_with, json, text};

const SITE: &str = "https://example.org/fencelab/";

/// `fencelab run claim-compare-and-set` on the naive claim, which fails
/// `one winner` and passes the other two.
fn run_naive(format: &str) -> Output {
    let set = format!("claim={}", data("naive-claim.sql").display());
    let args = [
        "run",
        "claim-compare-and-set",
        "--set",
        &set,
        "--site",
        SITE,
        "--format",
        format,
    ];
    let output = fencelab_with(&args, &[]);
    assert_eq!(output.status.code(), Some(1), "{}", text(&output.stderr));
    output
}

/// The naive claim's `one winner` case as the JSON document has it.
fn one_winner() -> Value {
    let document = json(&run_naive("json"));
    document["entries"][0]["cases"][0].clone()
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("fencelab-specs-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

// Exercism: https://exercism.org/docs/building/tooling/test-runners/interface
// (exercism/docs, building/tooling/test-runners/interface.md).

#[test]
fn exercism_message_holds_the_failure_and_counterexample_and_output_nothing_of_the_runner() {
    // "Message": "The per-test `message` key is used to return the results
    // of a failed test. [...] The `message` value is not limited in length."
    // "Output": "Only content outputted by a user manually should show -
    // not automatic output by the test-runner." A procedure prints nothing,
    // so a test has no `output`.
    let results = json(&run_naive("exercism"));
    let expected = one_winner();
    let tests = results["tests"].as_array().unwrap();
    for test in tests {
        assert!(test.get("output").is_none(), "{test}");
    }
    let failing = &tests[0];
    assert_eq!(failing["name"], "claim-compare-and-set: one winner");
    assert_eq!(failing["status"], "fail");
    let message = failing["message"].as_str().unwrap();
    assert!(
        message.starts_with(expected["message"].as_str().unwrap()),
        "{message}"
    );
    let schedule = format!(
        "shortest failing schedule: {}",
        expected["schedule"].as_str().unwrap()
    );
    assert!(message.contains(&schedule), "{message}");
    assert!(
        message.contains(expected["link"].as_str().unwrap()),
        "{message}"
    );
    // The counterexample: every event of the failing schedule, in order.
    let mut rest = message;
    for line in expected["history"].as_array().unwrap() {
        let event = line["event"].as_str().unwrap();
        let at = rest
            .find(event)
            .unwrap_or_else(|| panic!("`{event}` missing or out of order in {message}"));
        rest = &rest[at + event.len()..];
    }
}

#[test]
fn exercism_test_code_is_the_scenarios_steps() {
    // "Test code": "This is the body of the command that is being tested."
    // A scenario's body is its steps, in the exercise file's syntax: read
    // back as the loader reads steps, they are the file's.
    #[derive(serde::Deserialize)]
    struct Steps {
        steps: Vec<fencelab_model::scenario::StepSpec>,
    }
    let results = json(&run_naive("exercism"));
    let exercise: toml::Table = toml::from_str(
        &std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../model/exercises/01-claim-compare-and-set.toml"
        ))
        .unwrap(),
    )
    .unwrap();
    let scenarios = exercise["scenarios"].as_array().unwrap();
    let tests = results["tests"].as_array().unwrap();
    assert_eq!(tests.len(), scenarios.len());
    for (test, scenario) in tests.iter().zip(scenarios) {
        let code = test["test_code"].as_str().unwrap();
        let read: Steps = toml::from_str(code)
            .unwrap_or_else(|e| panic!("test_code is not the steps as TOML ({e}): {code}"));
        let written: Steps = scenario.clone().try_into().unwrap();
        assert_eq!(read.steps, written.steps, "{code}");
    }
}

// Gradescope: https://gradescope-autograders.readthedocs.io/en/latest/specs/
// (gradescope/autograder_samples, docs/specs.md).

/// The destinations of the links and the text a Markdown renderer makes of
/// `markdown`.
fn rendered(markdown: &str) -> (Vec<String>, String) {
    use pulldown_cmark::{Event, Parser, Tag};
    let mut links = Vec::new();
    let mut shown = String::new();
    for event in Parser::new(markdown) {
        match event {
            Event::Start(Tag::Link { dest_url, .. }) => links.push(dest_url.to_string()),
            Event::Text(t) | Event::Code(t) => shown.push_str(&t),
            Event::SoftBreak | Event::HardBreak | Event::End(_) => shown.push('\n'),
            _ => {}
        }
    }
    (links, shown)
}

#[test]
fn gradescope_output_is_markdown_with_the_link_clickable_timed_and_visible() {
    // "Output String Formatting": `"text"` (default for test output) - "No
    // HTML, Markdown, or ANSI will be rendered."; `"md"` - "This will
    // render some basic Markdown in your output."
    let results = json(&run_naive("gradescope"));
    let expected = one_winner();
    let tests = results["tests"].as_array().unwrap();
    for test in tests {
        assert_eq!(test["output_format"], "md", "{test}");
    }
    let (links, shown) = rendered(tests[0]["output"].as_str().unwrap());
    assert_eq!(links, [expected["link"].as_str().unwrap()]);
    // Escaped where Markdown would read it, the sentence shows as it is.
    assert!(
        shown.contains(expected["message"].as_str().unwrap()),
        "{shown}"
    );
    assert!(
        shown.contains(expected["schedule"].as_str().unwrap()),
        "{shown}"
    );
    // `"execution_time": 136, // optional, seconds`.
    let seconds = results["execution_time"].as_f64().expect("execution_time");
    assert!(seconds >= 0.0);
    // "Options for the visibility field are as follows: hidden,
    // after_due_date, after_published, visible (default)": said, not left
    // to the default, so the file shows what a student sees.
    assert_eq!(results["visibility"], "visible");
}

// GitLab: https://docs.gitlab.com/ci/testing/unit_test_reports/, "JUnit XML
// format specification".

#[test]
fn junit_testcases_carry_their_time_and_place_where_gitlab_reads_them() {
    // "testcase | time | Test execution time in seconds." "testcase | file
    // | File path where the test is defined." "failure | Element content |
    // Failure message and stack trace." pytest's junit-10.xsd, which `cargo
    // xtask junit-check` validates against, gives a testcase only `name`,
    // `time`, `classname` and `group`: `file` and `line` there would make
    // the report invalid, so the place goes where both accept it, the
    // failure's content.
    let xml = run_naive("junit").stdout;
    let report = common::read_junit(&xml);
    let seconds = |value: &Value| -> f64 {
        value
            .as_str()
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| panic!("no time in seconds: {value}"))
    };
    assert!(seconds(&report["time"]) >= 0.0);
    let cases = report["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 3);
    for case in cases {
        assert!(seconds(&case["time"]) >= 0.0, "{case}");
        assert!(seconds(&case["suite_time"]) >= 0.0, "{case}");
        assert!(case["file"].is_null(), "junit-10.xsd has no testcase file");
    }
    let failed = &cases[0];
    assert_eq!(failed["name"], "one winner");
    assert_eq!(failed["outcome"]["kind"], "failure");
    let place = format!("at {}:4", data("naive-claim.sql").display());
    let content = failed["outcome"]["text"].as_str().unwrap();
    assert!(content.contains(&place), "{content}");
}

// GitHub Actions: "GitHub Actions are limited to 10 warning annotations and
// 10 error annotations per step." (docs.github.com/en/rest/checks/runs,
// the `annotations` parameter; actions/toolkit docs/problem-matchers.md,
// "Limitations"). "Job summaries are isolated between steps and each step
// is restricted to a maximum size of 1MiB."
// (docs.github.com/en/actions/reference/workflows-and-actions/workflow-commands,
// "Step isolation and limits").

#[test]
fn github_shows_ten_errors_the_first_of_each_file_first_then_a_notice_and_summarises_all() {
    // One file with three failing cases, then ten with one: 13 in all.
    let dir = scratch("github-cap");
    std::fs::copy(
        data("three-uncaught-variants.toml"),
        dir.join("a-three.toml"),
    )
    .unwrap();
    for i in 1..=10 {
        std::fs::copy(
            data("uncaught-variant.toml"),
            dir.join(format!("b{i:02}.toml")),
        )
        .unwrap();
    }
    let summary = dir.join("summary.md");
    let output = fencelab_with(
        &["check", dir.to_str().unwrap(), "--format", "github"],
        &[("GITHUB_STEP_SUMMARY", &summary)],
    );
    assert_eq!(output.status.code(), Some(1), "{}", text(&output.stderr));
    let out = text(&output.stdout);
    let errors: Vec<&str> = out.lines().filter(|l| l.starts_with("::error ")).collect();
    assert_eq!(errors.len(), 10, "{out}");
    // The first failing case of each file before any file's second.
    let files: Vec<String> = errors
        .iter()
        .map(|l| {
            l["::error file=".len()..]
                .split(',')
                .next()
                .unwrap()
                .to_string()
        })
        .collect();
    let mut expected = vec![dir.join("a-three.toml").display().to_string()];
    expected.extend((1..=9).map(|i| dir.join(format!("b{i:02}.toml")).display().to_string()));
    assert_eq!(files, expected, "{out}");
    let notices: Vec<&str> = out.lines().filter(|l| l.starts_with("::notice")).collect();
    assert_eq!(notices.len(), 1, "{out}");
    assert!(notices[0].contains("3 more"), "{}", notices[0]);
    // Everything in the step summary: a row per case that did not pass.
    let written = std::fs::read_to_string(&summary).unwrap();
    let rows = written
        .lines()
        .filter(|l| {
            l.starts_with("| ") && !l.starts_with("| exercise |") && !l.starts_with("| ---")
        })
        .count();
    assert_eq!(rows, 13, "{written}");
    assert!(written.len() < 1024 * 1024);
}
