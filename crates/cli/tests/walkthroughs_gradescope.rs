//! docs/graders/gradescope/ run as Gradescope runs it (issue 51, item 3:
//! "setup.sh and run_autograder in the autograder zip layout, writing
//! /autograder/results/results.json; tested in a folder laid out like
//! /autograder with a correct, a wrong, a missing, a misnamed, an empty, a
//! binary and a 1 MB submission").
//!
//! Gradescope's "Autograder Specifications"
//! (https://gradescope-autograders.readthedocs.io/en/latest/specs/): "The
//! file must contain at least two files in the root of the archive",
//! setup.sh and run_autograder; "/autograder/source contains the extracted
//! contents of your autograder zip file"; "/autograder/run_autograder is
//! where your autograder script gets copied to"; "/autograder/submission
//! contains the student's submission"; "/autograder/results/results.json
//! is where you put the test output"; "When the autograder executes, the
//! working directory is /autograder".
//!
//! The paths are taken literally: the test runs as root, and
//! tests/data/gradescope_harness.sh, in a private mount namespace
//! (`unshare --mount --propagation private`), bind-mounts a scratch folder
//! on /autograder and another on /usr/local/bin, so setup.sh installs where
//! it says and nothing outside the namespace sees it. Only the empty folder
//! /autograder is made on the machine itself, as the mount point.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

mod common;
use common::{EXERCISE, RELEASE_NAME, Submission, assert_says, data, release_tarball, text};

const SCENARIOS: [&str; 3] = [
    "one winner",
    "first come, first served",
    "each claim takes one message",
];

fn walkthrough(name: &str) -> PathBuf {
    PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../docs/graders/gradescope"
    ))
    .join(name)
}

/// The scratch folders of one Gradescope run.
struct Autograder {
    _scratch: tempfile::TempDir,
    root: PathBuf,
    bin: PathBuf,
    submissions: PathBuf,
    out: PathBuf,
}

impl Autograder {
    /// An autograder zip unpacked as Gradescope unpacks it: the
    /// walkthrough's two files and the release archive with its sum, in
    /// source/.
    fn new() -> Autograder {
        let scratch = tempfile::Builder::new()
            .prefix("fencelab-gradescope-")
            .tempdir()
            .expect("a scratch folder");
        let root = scratch.path().join("autograder");
        let source = root.join("source");
        let [bin, submissions, out, packing] =
            ["bin", "submissions", "out", "packing"].map(|name| scratch.path().join(name));
        for folder in [&source, &bin, &submissions, &out, &packing] {
            std::fs::create_dir_all(folder).expect("a scratch folder");
        }
        for name in ["setup.sh", "run_autograder"] {
            copy(&walkthrough(name), &source.join(name));
        }
        let archive = release_tarball(&packing);
        let archive_name = format!("{RELEASE_NAME}.tar.gz");
        copy(&archive, &source.join(&archive_name));
        let sum = archive.with_file_name(format!("{archive_name}.sha256"));
        copy(&sum, &source.join(format!("{archive_name}.sha256")));
        Autograder {
            _scratch: scratch,
            root,
            bin,
            submissions,
            out,
        }
    }

    fn submit(&self, submission: Submission) {
        let folder = self.submissions.join(name(submission));
        std::fs::create_dir_all(&folder).expect("a submission folder");
        submission.lay_out(&folder);
    }

    /// Builds the image and grades every submission, in a mount namespace
    /// of its own.
    fn run(&self) {
        let unshare = Command::new("unshare")
            .args(["--mount", "--propagation", "private", "true"])
            .output();
        match unshare {
            Ok(output) if output.status.success() => {}
            Ok(output) => panic!(
                "this test needs a private mount namespace and cannot make one \
                 (`unshare --mount` as root): {}",
                text(&output.stderr)
            ),
            Err(e) => panic!("this test needs unshare(1) from util-linux: {e}"),
        }
        std::fs::create_dir_all("/autograder")
            .expect("/autograder, the mount point (the test runs as root)");
        let harness = Command::new("unshare")
            .args(["--mount", "--propagation", "private", "--", "bash"])
            .arg(data("gradescope_harness.sh"))
            .args([&self.root, &self.bin, &self.submissions, &self.out])
            .output()
            .expect("unshare runs");
        assert!(
            harness.status.success(),
            "{}{}",
            text(&harness.stdout),
            text(&harness.stderr)
        );
    }

    fn read(&self, name: &str) -> String {
        let path = self.out.join(name);
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    }

    fn setup_status(&self) -> String {
        self.read("setup.status").trim().to_string()
    }

    /// What run_autograder left for `submission`: its exit status and
    /// results.json, read as JSON.
    fn results(&self, submission: Submission) -> (String, Value) {
        let name = name(submission);
        let status = self.read(&format!("{name}.status")).trim().to_string();
        let json = self.read(&format!("{name}.json"));
        let results = serde_json::from_str(&json)
            .unwrap_or_else(|e| panic!("{name}: results.json is not JSON ({e}): {json}"));
        (status, results)
    }
}

fn copy(from: &Path, to: &Path) {
    std::fs::copy(from, to)
        .unwrap_or_else(|e| panic!("{} to {}: {e}", from.display(), to.display()));
}

fn name(submission: Submission) -> String {
    format!("{submission:?}").to_lowercase()
}

/// Every test of the exercise, in order, each as Gradescope reads it.
fn tests(results: &Value) -> &Vec<Value> {
    let tests = results["tests"].as_array().expect("tests");
    let names: Vec<&str> = tests.iter().map(|t| t["name"].as_str().unwrap()).collect();
    let expected: Vec<String> = SCENARIOS
        .iter()
        .map(|s| format!("{EXERCISE}: {s}"))
        .collect();
    assert_eq!(names, expected, "{results}");
    tests
}

#[test]
fn every_submission_leaves_every_test_in_results_json() {
    let autograder = Autograder::new();
    let mut submissions = vec![Submission::Correct, Submission::Wrong];
    submissions.extend(Submission::UNUSABLE);
    for &submission in &submissions {
        autograder.submit(submission);
    }
    autograder.run();
    assert_eq!(
        autograder.setup_status(),
        "0",
        "{}",
        autograder.read("setup.log")
    );
    let setup_log = autograder.read("setup.log");
    assert!(
        setup_log.contains(": OK"),
        "the sum is checked: {setup_log}"
    );
    assert!(setup_log.contains("fencelab 0.1.0"), "{setup_log}");
    assert!(autograder.bin.join("fencelab").is_file(), "installed");

    for submission in submissions {
        let (status, results) = autograder.results(submission);
        assert_eq!(status, "0", "{submission:?}: run_autograder ends with 0");
        let tests = tests(&results);
        match submission {
            Submission::Correct => {
                assert_eq!(results["score"], 3, "{results}");
                assert!(tests.iter().all(|t| t["status"] == "passed"), "{results}");
            }
            Submission::Wrong => {
                assert_eq!(results["score"], 2, "{results}");
                assert_eq!(tests[0]["status"], "failed");
                let output = common::markdown_text(tests[0]["output"].as_str().unwrap());
                assert!(
                    output.contains("shortest failing schedule: a a b a b b"),
                    "{output}"
                );
            }
            unusable => {
                assert_eq!(results["score"], 0, "{unusable:?}: {results}");
                for test in tests {
                    assert_eq!(test["status"], "failed", "{test}");
                    assert_says(
                        unusable,
                        &common::markdown_text(test["output"].as_str().unwrap()),
                    );
                }
                // The instructor's log (results/stdout) says it too.
                let log = autograder.read(&format!("{}.stdout", name(unusable)));
                assert_says(unusable, &log);
            }
        }
    }
}

#[test]
fn an_archive_that_is_not_the_released_one_is_not_installed() {
    let autograder = Autograder::new();
    let sum = autograder
        .root
        .join("source")
        .join(format!("{RELEASE_NAME}.tar.gz.sha256"));
    let line = std::fs::read_to_string(&sum).unwrap();
    let other = format!("{}{}", "0".repeat(64), &line[64..]);
    std::fs::write(&sum, other).unwrap();
    autograder.submit(Submission::Correct);
    autograder.run();
    assert_ne!(autograder.setup_status(), "0");
    let setup_log = autograder.read("setup.log");
    assert!(setup_log.contains("FAILED"), "{setup_log}");
    assert!(!autograder.bin.join("fencelab").exists());
    // With no fencelab to run, run_autograder still leaves a results.json
    // that says so, and ends with 0.
    let (status, results) = autograder.results(Submission::Correct);
    assert_eq!(status, "0");
    assert_eq!(results["score"], 0);
    assert!(
        results["output"]
            .as_str()
            .unwrap()
            .contains("could not run fencelab"),
        "{results}"
    );
}
