//! `cargo xtask junit-check`, a `test` stage: `fencelab check` and `fencelab
//! run --format junit` on the bundled exercises and the CLI's test data,
//! with passing, failing and erroring cases and a file that does not load,
//! each validated by xmllint against junit-10.xsd (the schema tools.rs puts
//! at [`JUNIT_SCHEMA`]).
//!
//! Each run must also end with its documented exit code and hold the
//! elements it is there for (`<failure>`, `<error>`), so a run that printed
//! an empty report cannot pass by being valid.

use crate::cmd;
use crate::tools::JUNIT_SCHEMA;
use std::path::Path;
use std::process::Command;

/// One report to produce and validate.
struct Report {
    name: &'static str,
    args: Vec<String>,
    exit_code: i32,
    /// Text the report must hold.
    holds: &'static [&'static str],
}

pub fn run(root: &Path) -> Result<(), String> {
    let schema = root.join(JUNIT_SCHEMA);
    if !schema.is_file() {
        return Err(format!(
            "{} is missing: `cargo xtask setup` downloads it",
            schema.display()
        ));
    }
    let out = root.join("target/junit");
    let course = out.join("course");
    let _ = std::fs::remove_dir_all(&course);
    std::fs::create_dir_all(&course)
        .map_err(|e| format!("cannot create {}: {e}", course.display()))?;
    let data = root.join("crates/cli/tests/data");
    for name in ["uncaught-variant.toml", "unknown-field.toml"] {
        std::fs::copy(data.join(name), course.join(name))
            .map_err(|e| format!("cannot copy {name}: {e}"))?;
    }
    let set = |file: &str| format!("claim={}", data.join(file).display());
    let words = |args: &[&str]| args.iter().map(|a| a.to_string()).collect::<Vec<_>>();
    let reports = [
        Report {
            name: "check-bundled",
            args: words(&["check"]),
            exit_code: 0,
            holds: &["<testcase "],
        },
        Report {
            name: "check-failing-and-unloadable",
            args: words(&["check", &course.display().to_string()]),
            exit_code: 2,
            holds: &["<failure ", "<error type=\"unloadable\""],
        },
        Report {
            name: "run-failing",
            args: words(&[
                "run",
                "claim-compare-and-set",
                "--set",
                &set("naive-claim.sql"),
                "--site",
                "https://example.org/fencelab/",
            ]),
            exit_code: 1,
            holds: &["<failure ", "#s1="],
        },
        Report {
            name: "run-unparsable",
            args: words(&[
                "run",
                "claim-compare-and-set",
                "--set",
                &set("unparsable-claim.sql"),
            ]),
            exit_code: 2,
            holds: &["<error "],
        },
        Report {
            name: "run-limit",
            args: words(&["run", "claim-compare-and-set", "--max-schedules", "1"]),
            exit_code: 1,
            holds: &["<error "],
        },
    ];
    let mut failures = Vec::new();
    for report in &reports {
        if let Err(problem) = produce_and_validate(report, &out, &schema) {
            failures.push(format!("{}: {problem}", report.name));
        }
    }
    if failures.is_empty() {
        println!(
            "xtask: {} JUnit reports valid against {JUNIT_SCHEMA}",
            reports.len()
        );
        Ok(())
    } else {
        Err(failures.join("\n"))
    }
}

fn produce_and_validate(report: &Report, out: &Path, schema: &Path) -> Result<(), String> {
    let mut args: Vec<&str> = report.args.iter().map(String::as_str).collect();
    args.extend(["--format", "junit"]);
    let mut command = cmd::fencelab(&args);
    let shown = cmd::describe(&command);
    let output = command
        .output()
        .map_err(|e| format!("cannot run `{shown}`: {e}"))?;
    if output.status.code() != Some(report.exit_code) {
        return Err(format!(
            "`{shown}` exited {:?}, not {}: {}",
            output.status.code(),
            report.exit_code,
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    let xml = String::from_utf8_lossy(&output.stdout);
    for needed in report.holds {
        if !xml.contains(needed) {
            return Err(format!("the report has no `{needed}`"));
        }
    }
    let file = out.join(format!("{}.xml", report.name));
    std::fs::write(&file, xml.as_bytes())
        .map_err(|e| format!("cannot write {}: {e}", file.display()))?;
    let mut validate = Command::new("xmllint");
    validate
        .arg("--noout")
        .arg("--schema")
        .arg(schema)
        .arg(&file);
    cmd::status(&mut validate)
}
