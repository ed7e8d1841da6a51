//! The `fencelab` binary as course authors and CI use it: exit codes, the
//! JSON shape, and errors that name the file and position.

use std::path::PathBuf;
use std::process::{Command, Output};

fn fencelab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_fencelab"))
        .args(args)
        .output()
        .expect("the fencelab binary runs")
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Runs fencelab with `args` and asserts that it exits with `code` and
/// prints `printed` on its standard output.
fn exits_printing(args: &[&str], code: i32, printed: &str) {
    let output = fencelab(args);
    let out = stdout(&output);
    assert_eq!(output.status.code(), Some(code), "{out}");
    assert!(out.contains(printed), "{out}");
}

/// A scratch directory for files this test writes.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("fencelab-cli-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

const NAIVE_CLAIM: &str = "
SELECT state FROM messages WHERE id = :message_id AND state = 'NEW';
-- @refuse not_claimable unless returned 1: not claimable
INSERT INTO lease_tokens (kind) VALUES ('mailbox_claim') RETURNING token;
UPDATE messages SET state = 'CLAIMED', claim_owner = :actor, fencing_token = :token
 WHERE id = :message_id;
-- @return token
";

#[test]
fn list_names_every_bundled_exercise() {
    let output = fencelab(&["list"]);
    assert!(output.status.success());
    assert!(stdout(&output).contains("claim-compare-and-set"));
}

#[test]
fn check_passes_on_the_bundled_exercises_and_reports_json() {
    // The JSON is docs/GRADING.md's document (format 1), no longer the
    // engine's reports: one entry per exercise, one case per scenario,
    // broken variant and equivalent declaration.
    let output = fencelab(&["check", "--json"]);
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
    let json: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(json["format_version"], 1);
    let first = &json["entries"][0];
    assert_eq!(first["exercise"], "claim-compare-and-set");
    assert_eq!(
        first["file"],
        "crates/model/exercises/01-claim-compare-and-set.toml"
    );
    assert_eq!(first["status"], "passed");
    assert_eq!(first["cases"][0]["kind"], "scenario");
    assert_eq!(first["cases"][0]["status"], "passed");
    let variant = first["cases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["kind"] == "broken_variant")
        .expect("a broken variant's case");
    assert_eq!(variant["status"], "passed");
    assert!(
        variant["message"]
            .as_str()
            .unwrap()
            .starts_with("caught by: ")
    );
}

#[test]
fn run_with_a_broken_claim_fails_and_prints_the_schedule() {
    let dir = scratch("run");
    let claim = dir.join("claim.sql");
    std::fs::write(&claim, NAIVE_CLAIM).unwrap();
    let set = format!("claim={}", claim.display());
    let output = fencelab(&["run", "claim-compare-and-set", "--set", &set]);
    assert_eq!(output.status.code(), Some(1));
    let text = stdout(&output);
    assert!(text.contains("FAILED       one winner"), "{text}");
    assert!(text.contains("shortest failing schedule:"), "{text}");

    let output = fencelab(&["run", "claim-compare-and-set", "--set", &set, "--json"]);
    assert_eq!(output.status.code(), Some(1));
    let json: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap();
    let entry = &json["entries"][0];
    assert_eq!(entry["exercise"], "claim-compare-and-set");
    assert_eq!(entry["counts"]["failed"], 1);
    let one_winner = &entry["cases"][0];
    assert_eq!(one_winner["name"], "one winner");
    // One status, no separate `passed` flag that could disagree with it.
    assert_eq!(one_winner["status"], "failed");
    assert!(one_winner.get("passed").is_none());
    assert!(
        one_winner["message"]
            .as_str()
            .unwrap()
            .contains("both believe")
    );
    assert!(one_winner["schedule"].as_str().unwrap().contains('a'));
    assert!(one_winner["history"].as_array().unwrap().len() > 4);
}

#[test]
fn run_counts_the_limits_shown_apart_from_the_passes() {
    // Exercise 13's references pass its seven ordinary scenarios and show
    // its four limits: a limit shown is never a pass, so it is said apart.
    let output = fencelab(&["run", "counterexamples-bound-the-protection"]);
    let text = stdout(&output);
    assert_eq!(output.status.code(), Some(0), "{text}");
    assert_eq!(
        text.lines().last(),
        Some("7 passed, 4 limits shown, 0 failed, 0 errored"),
        "{text}"
    );
}

#[test]
fn extra_scenario_files_run_beside_the_bundled_ones() {
    let dir = scratch("scenario");
    let file = dir.join("extra.toml");
    std::fs::write(
        &file,
        r#"
[[scenarios]]
name = "b alone"
steps = [
  { start = "b", actor = "worker-b" },
  { call = "claim", process = "b", args = { message_id = "msg-1" }, expect = { outcome = "ok", values = { token = 1 } } },
]
"#,
    )
    .unwrap();
    let output = fencelab(&[
        "run",
        "claim-compare-and-set",
        "--scenario-file",
        file.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
    assert!(stdout(&output).contains("passed       b alone"));
}

#[test]
fn explore_reports_schedules_and_states() {
    let output = fencelab(&[
        "explore",
        "claim-compare-and-set",
        "--scenario",
        "one winner",
    ]);
    assert_eq!(output.status.code(), Some(0));
    let text = stdout(&output);
    // The reduced explorer: the plain one cut 5 runs here.
    assert!(text.contains("(3 schedules, 4 states, 1 pruned)"), "{text}");
    assert!(text.contains("schedules per second"), "{text}");
}

#[test]
fn a_schedule_limit_is_an_error_not_a_pass() {
    let output = fencelab(&["explore", "claim-compare-and-set", "--max-schedules", "1"]);
    assert_eq!(output.status.code(), Some(1));
    let text = stdout(&output);
    assert!(text.contains("not a pass"), "{text}");
    // The CLI names the flag that raises the limit; the model's sentence,
    // which the page shows too, does not.
    assert!(
        text.contains("or raise the limit (`fencelab run --max-schedules`)"),
        "{text}"
    );
}

#[test]
fn bad_input_exits_2_naming_the_file_and_position() {
    let dir = scratch("bad");
    let file = dir.join("broken.toml");
    std::fs::write(
        &file,
        "format = 1\nid = \"x\"\ntitle = \"t\"\nsurprise = true\n",
    )
    .unwrap();
    let output = fencelab(&["check", file.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    let message = stderr(&output);
    assert!(message.contains("broken.toml:4:1"), "{message}");
    assert!(message.contains("surprise"), "{message}");

    let output = fencelab(&["check", dir.join("missing.toml").to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("missing.toml: cannot read"));

    let claim = dir.join("claim.sql");
    std::fs::write(&claim, "SELECT 1;\n-- @refuse oops unless changed one\n").unwrap();
    let set = format!("claim={}", claim.display());
    let output = fencelab(&["run", "claim-compare-and-set", "--set", &set]);
    assert_eq!(output.status.code(), Some(2));
    let message = stderr(&output);
    assert!(message.contains("claim.sql:2:1"), "{message}");
    assert!(message.contains("not a row count"), "{message}");

    let extra = dir.join("extra.toml");
    std::fs::write(
        &extra,
        "\n[[scenarios]]\nname = \"x\"\nsteps = [ { start = \"a\" } ]\n",
    )
    .unwrap();
    let output = fencelab(&[
        "run",
        "claim-compare-and-set",
        "--scenario-file",
        extra.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(2));
    let message = stderr(&output);
    // At the step's own line (4), not its `[[scenarios]]` header (2).
    assert!(
        message.contains("extra.toml:4:11: scenarios[0].steps[0]"),
        "{message}"
    );
    assert!(message.contains("needs `actor`"), "{message}");

    let output = fencelab(&["run", "no-such-exercise"]);
    assert_eq!(output.status.code(), Some(2));
    let output = fencelab(&["frobnicate"]);
    assert_eq!(output.status.code(), Some(2));
}

#[test]
fn a_directory_of_exercises_is_checked_file_by_file_in_name_order() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../model/exercises");
    let output = fencelab(&["check", dir]);
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
    let text = stdout(&output);
    // Checked in parallel, printed in the order of the files' names.
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "toml"))
        .collect();
    files.sort();
    let ids: Vec<String> = files.iter().map(|file| exercise_id(file)).collect();
    let headings: Vec<&str> = text
        .lines()
        .filter(|line| !line.starts_with(' ') && line.contains("  "))
        .map(|line| line.split("  ").next().unwrap())
        .collect();
    assert_eq!(headings, ids, "{text}");
    let summary = format!(
        "checked {n} exercises: {n} ok, 0 failing, 0 unreadable",
        n = ids.len()
    );
    assert_eq!(text.lines().last(), Some(summary.as_str()), "{text}");
}

/// The `id` of an exercise file, read from its `id = "..."` line.
fn exercise_id(file: &std::path::Path) -> String {
    let text = std::fs::read_to_string(file).unwrap();
    let line = text.lines().find(|line| line.starts_with("id = ")).unwrap();
    line["id = ".len()..].trim_matches('"').to_string()
}

/// A file of this crate's test data.
fn data(name: &str) -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data")).join(name)
}

#[test]
fn a_directory_check_ends_with_one_summary_line_and_counts_every_file() {
    let dir = scratch("summary").join("exercises");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let sound = "01-claim-compare-and-set.toml";
    let bundled = concat!(env!("CARGO_MANIFEST_DIR"), "/../model/exercises");
    std::fs::copy(PathBuf::from(bundled).join(sound), dir.join(sound)).unwrap();
    for name in ["uncaught-variant.toml", "unknown-field.toml"] {
        std::fs::copy(data(name), dir.join(name)).unwrap();
    }
    // Not an exercise file: a directory stands for its .toml files only.
    std::fs::write(dir.join("notes.txt"), "not an exercise").unwrap();

    let output = fencelab(&["check", dir.to_str().unwrap()]);
    // A file that cannot be loaded is bad input, after the others are checked.
    assert_eq!(output.status.code(), Some(2), "{}", stdout(&output));
    let text = stdout(&output);
    assert_eq!(
        text.lines().last(),
        Some("checked 3 exercises: 1 ok, 1 failing, 1 unreadable"),
        "{text}"
    );
    let sound = text
        .find("claim-compare-and-set  ")
        .expect("the sound one is reported");
    let uncaught = text
        .find("uncaught-variant  ")
        .expect("the failing one too");
    assert!(sound < uncaught, "{text}");
    assert!(
        text.contains("SURVIVED     takes without looking"),
        "{text}"
    );
    let error = stderr(&output);
    assert!(error.contains("unknown-field.toml:6:1"), "{error}");
    assert!(error.contains("surprise"), "{error}");

    std::fs::remove_file(dir.join("unknown-field.toml")).unwrap();
    let output = fencelab(&["check", dir.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1), "{}", stdout(&output));
    assert_eq!(
        stdout(&output).lines().last(),
        Some("checked 2 exercises: 1 ok, 1 failing, 0 unreadable")
    );

    // --json stays one document, with an entry per exercise checked.
    let output = fencelab(&["check", dir.to_str().unwrap(), "--json"]);
    assert_eq!(output.status.code(), Some(1));
    let json: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap();
    let entries = json["entries"].as_array().unwrap();
    assert_eq!(entries.len(), 2);
    assert_eq!(entries[0]["exercise"], "claim-compare-and-set");
    assert_eq!(entries[0]["status"], "passed");
    assert_eq!(entries[1]["exercise"], "uncaught-variant");
    assert_eq!(entries[1]["status"], "failed");
}

#[test]
fn new_writes_a_starter_that_passes_check_and_whose_start_fails() {
    let dir = scratch("new").join("course");
    let _ = std::fs::remove_dir_all(&dir);
    let output = fencelab(&["new", "my-course-claim", "--dir", dir.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let file = dir.join("my-course-claim.toml");
    assert!(stdout(&output).contains(&format!("wrote {}", file.display())));
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.contains("\nid = \"my-course-claim\"\n"), "{text}");
    assert!(text.contains("docs/EXERCISES.md"), "{text}");

    let output = fencelab(&["check", file.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
    let report = stdout(&output);
    assert!(report.contains("mutants: 1/1 caught"), "{report}");
    assert!(
        report.contains("checked 1 exercise: 1 ok, 0 failing, 0 unreadable"),
        "{report}"
    );
    // What a learner first sees is scored too; the starter's start fails.
    assert!(report.contains("  start: "), "{report}");
    assert!(
        !report.contains("note: the starting texts pass"),
        "{report}"
    );

    // The references pass; the starting text, as a learner first sees it, fails.
    let output = fencelab(&["run", file.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
    let output = fencelab(&["run", file.to_str().unwrap(), "--start"]);
    assert_eq!(output.status.code(), Some(1), "{}", stdout(&output));
    let run = stdout(&output);
    assert!(run.contains("FAILED       one taker"), "{run}");
    assert!(
        run.contains("both believe they hold ticket ticket-1"),
        "{run}"
    );

    // Every mutant `fencelab mutate` generates is caught or declared
    // equivalent, so the author's first mutate passes too.
    exits_printing(&["mutate", file.to_str().unwrap()], 0, " 0 survived, ");

    // A bundled exercise's id is refused: a site's index would refuse it later.
    let output = fencelab(&[
        "new",
        "claim-compare-and-set",
        "--dir",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("the id of a bundled exercise"),
        "{}",
        stderr(&output)
    );
    assert!(!dir.join("claim-compare-and-set.toml").exists());

    // A second `new` of the same id refuses and leaves the file as it was.
    std::fs::write(&file, "# the author's edits\n").unwrap();
    let output = fencelab(&["new", "my-course-claim", "--dir", dir.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("already exists"),
        "{}",
        stderr(&output)
    );
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        "# the author's edits\n"
    );

    // The id must be one the loader accepts; nothing is written otherwise.
    let output = fencelab(&["new", "My_Claim", "--dir", dir.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("`My_Claim` is not an exercise id"),
        "{}",
        stderr(&output)
    );
    assert!(!dir.join("My_Claim.toml").exists());
}

#[test]
fn new_with_postgres_writes_both_dialects_and_the_file_loads_and_passes() {
    let dir = scratch("new-postgres").join("course");
    let _ = std::fs::remove_dir_all(&dir);
    let dir_arg = dir.to_str().unwrap();
    let output = fencelab(&["new", "my-claim", "--dir", dir_arg, "--postgres"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(
        stdout(&output).contains("[postgres]"),
        "{}",
        stdout(&output)
    );
    let file = dir.join("my-claim.toml");
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.contains("\n[postgres]\n"), "{text}");
    assert!(text.contains("GENERATED ALWAYS AS IDENTITY"), "{text}");
    // The whole file loads, its dialect checked too, and the SQLite
    // exercise is the plain starter's: it passes as that one does.
    exits_printing(&["check", file.to_str().unwrap()], 0, "mutants: 1/1 caught");
    exits_printing(&["run", file.to_str().unwrap(), "--start"], 1, "FAILED");
}

#[test]
fn help_exits_0_and_names_each_subcommands_options() {
    let output = fencelab(&["--help"]);
    assert_eq!(output.status.code(), Some(0));
    let top = stdout(&output);
    for command in [
        "list", "check", "index", "run", "explore", "mutate", "new", "version",
    ] {
        assert!(top.contains(&format!("\n  {command} ")), "{command}: {top}");
    }
    assert!(top.contains("Exit codes"), "{top}");
    let output = fencelab(&["help"]);
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(stdout(&output), top);

    let limits = [
        "--max-schedules",
        "--max-steps",
        "--max-sqlite-steps",
        "--max-memory-mib",
    ];
    let options: [(&str, &[&str]); 8] = [
        ("list", &[]),
        (
            "check",
            &[
                "--json",
                "--format",
                "--points",
                "--min-score",
                "--history",
                "--site",
            ],
        ),
        ("index", &["<DIR>", "--check"]),
        (
            "run",
            &[
                "--set",
                "--start",
                "--scenario-file <FILE>",
                "--json",
                "--format",
                "--min-score",
            ],
        ),
        (
            "explore",
            &[
                "--set",
                "--start",
                "--scenario <NAME>",
                "--random",
                "--seed",
                "--json",
            ],
        ),
        ("mutate", &["--json"]),
        ("new", &["<ID>", "--dir", "--postgres"]),
        ("version", &[]),
    ];
    for (command, names) in options {
        for help in [fencelab(&[command, "--help"]), fencelab(&["help", command])] {
            assert_eq!(help.status.code(), Some(0), "{command}");
            let text = stdout(&help);
            assert!(
                text.contains(&format!("Usage: fencelab {command}")),
                "{text}"
            );
            let mut expected = names.to_vec();
            if command == "run" || command == "explore" {
                expected.extend(limits);
            }
            for name in expected {
                assert!(text.contains(name), "{command} --help names {name}: {text}");
            }
        }
    }
}

#[test]
fn version_exits_0_and_names_sqlite() {
    for args in [&["--version"][..], &["-V"], &["version"]] {
        let output = fencelab(args);
        assert_eq!(output.status.code(), Some(0));
        let text = stdout(&output);
        assert!(
            text.starts_with(&format!(
                "fencelab {} (SQLite 3.",
                env!("CARGO_PKG_VERSION")
            )),
            "{text}"
        );
    }
}

#[test]
fn usage_errors_exit_2_with_a_sentence_naming_the_option() {
    let output = fencelab(&["explore", "claim-compare-and-set", "--frobnicate"]);
    assert_eq!(output.status.code(), Some(2));
    let error = stderr(&output);
    assert!(
        error.contains("error: unexpected argument '--frobnicate' found"),
        "{error}"
    );
    assert!(error.contains("Usage: fencelab explore"), "{error}");
    assert!(stdout(&output).is_empty());

    let cases: [(&[&str], &str); 7] = [
        (&["frobnicate"], "unrecognized subcommand 'frobnicate'"),
        (&[], "Usage: fencelab <COMMAND>"),
        (
            &["run", "claim-compare-and-set", "--max-steps", "0"],
            "invalid value '0' for '--max-steps <N>': must be at least 1",
        ),
        (
            &["explore", "claim-compare-and-set", "--random", "many"],
            "invalid value 'many' for '--random <N>': takes a whole number, not `many`",
        ),
        (
            &["run", "claim-compare-and-set", "--max-memory-mib", "5000"],
            "must be between 1 and 4096",
        ),
        (
            &["run", "claim-compare-and-set", "--set", "claim"],
            "takes PROCEDURE=SQL_FILE, not `claim`",
        ),
        (
            &["explore", "claim-compare-and-set", "--seed", "7"],
            "--random <N>",
        ),
    ];
    for (args, message) in cases {
        let output = fencelab(args);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert!(
            stderr(&output).contains(message),
            "{args:?}: {}",
            stderr(&output)
        );
    }
    // The run-only and explore-only options stay where they belong.
    for args in [
        &["list", "--json"][..],
        &["check", "--set", "claim=x.sql"],
        &["run", "claim-compare-and-set", "--random", "3"],
        &[
            "explore",
            "claim-compare-and-set",
            "--scenario",
            "a",
            "--scenario",
            "b",
        ],
    ] {
        assert_eq!(fencelab(args).status.code(), Some(2), "{args:?}");
    }
}

#[test]
fn a_random_search_reports_its_seed_and_replays_from_it() {
    let dir = scratch("random");
    let claim = dir.join("claim.sql");
    std::fs::write(&claim, NAIVE_CLAIM).unwrap();
    let set = format!("claim={}", claim.display());
    let run = |seed: &str| {
        let output = fencelab(&[
            "explore",
            "claim-compare-and-set",
            "--set",
            &set,
            "--scenario",
            "one winner",
            "--random",
            "50",
            "--seed",
            seed,
            "--json",
        ]);
        assert_eq!(output.status.code(), Some(1), "{}", stdout(&output));
        let json: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap();
        // docs/GRADING.md's document, its cases with their search.
        assert_eq!(json["format_version"], 1);
        assert_eq!(json["command"], "explore");
        json["entries"][0]["cases"][0].clone()
    };
    let first = run("7");
    assert_eq!(first["name"], "one winner");
    assert_eq!(first["status"], "failed");
    assert_eq!(first["exploration"]["seed"], 7);
    let searched = first["exploration"]["schedules"].as_u64().unwrap();
    assert!((1..=50).contains(&searched), "{first}");
    assert!(
        first["exploration"]["procedure_steps"].as_u64().unwrap() > 0,
        "{first}"
    );
    assert!(
        first["history"].as_array().is_some_and(|h| !h.is_empty()),
        "{first}"
    );
    // The same seed finds the same schedule again.
    assert_eq!(run("7")["schedule"], first["schedule"]);
    let output = fencelab(&["run", "claim-compare-and-set", "--seed", "7"]);
    assert_eq!(output.status.code(), Some(2));
}

#[test]
fn mutate_prints_the_score_and_each_survivor_as_a_diff_and_fails_on_one() {
    let weak = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../core/tests/data/mutation-one-winner.toml"
    );
    let output = fencelab(&["mutate", weak]);
    assert_eq!(output.status.code(), Some(1), "{}", stdout(&output));
    let text = stdout(&output);
    assert!(
        text.contains("mutation-one-winner  mutation score"),
        "{text}"
    );
    assert!(
        text.contains("SURVIVED claim:2:2:negate-condition"),
        "{text}"
    );
    assert!(
        text.contains("    +  WHERE NOT (id = :message_id AND state = 'NEW');"),
        "{text}"
    );
    let output = fencelab(&["mutate", weak, "--json"]);
    let json: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap();
    // docs/GRADING.md's mutation document, field by field.
    assert_eq!(json["format_version"], 1);
    assert_eq!(json["command"], "mutate");
    assert_eq!(json["ok"], false);
    let run = &json["exercises"][0];
    assert_eq!(run["exercise"], "mutation-one-winner");
    assert_eq!(run["ok"], false);
    assert!(run["counts"]["killed"].as_u64().unwrap() >= 3);
    assert!(run["score_percent"].as_f64().is_some_and(|p| p < 100.0));
    assert!(run["seconds"].as_f64().is_some());
    let mutants = run["mutants"].as_array().unwrap();
    assert_eq!(
        mutants.len() as u64,
        run["counts"]["generated"].as_u64().unwrap()
    );
    let killed = mutants.iter().find(|m| m["verdict"] == "killed").unwrap();
    let kill = &killed["killed_by"][0];
    assert_eq!(kill["scenario"], "one winner");
    assert!(
        kill["message"]
            .as_str()
            .is_some_and(|m| m.contains("believe")),
        "{kill}"
    );
    assert!(
        kill["schedule"].as_str().is_some_and(|s| !s.is_empty()),
        "{kill}"
    );
    let survivor = mutants
        .iter()
        .find(|m| m["id"] == "claim:2:2:negate-condition")
        .unwrap();
    assert_eq!(survivor["verdict"], "survived");
    assert_eq!(survivor["procedure"], "claim");
    assert_eq!(
        (survivor["line"].as_u64(), survivor["column"].as_u64()),
        (Some(2), Some(2))
    );
    assert_eq!(survivor["operator"], "negate-condition");
    assert!(
        survivor["text"]
            .as_str()
            .is_some_and(|t| t.contains("WHERE NOT ("))
    );
    assert!(survivor.get("killed_by").is_none(), "{survivor}");
    assert_eq!(run["stale_equivalents"], serde_json::json!([]));
}

#[test]
fn mutate_names_each_stale_declaration_and_which_way_it_is_stale() {
    let weak = include_str!("../../core/tests/data/mutation-one-winner.toml");
    let dir = scratch("stale");
    let file = dir.join("stale.toml");
    std::fs::write(
        &file,
        format!(
            "{weak}\n[[equivalent]]\nmutant = \"claim:2:25:drop-conjunct\"\nreason = \"Wrong on purpose.\"\n\n\
             [[equivalent]]\nmutant = \"claim:9:9:weaken-begin\"\nreason = \"Names no mutant.\"\n"
        ),
    )
    .unwrap();
    let output = fencelab(&["mutate", file.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1));
    let text = stdout(&output);
    assert!(
        text.contains("STALE [[equivalent]]: `claim:2:25:drop-conjunct` is declared equivalent, but `one winner` kills it"),
        "{text}"
    );
    let output = fencelab(&["mutate", "--json", file.to_str().unwrap()]);
    let json: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(
        json["exercises"][0]["stale_equivalents"],
        serde_json::json!([
            {
                "kind": "matches_nothing",
                "mutant": "claim:9:9:weaken-begin",
                "message": "`claim:9:9:weaken-begin` matches no generated mutant"
            },
            {
                "kind": "killed",
                "mutant": "claim:2:25:drop-conjunct",
                "scenario": "one winner",
                "message": "`claim:2:25:drop-conjunct` is declared equivalent, but `one winner` kills it"
            }
        ])
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_endless_or_oversized_input_file_is_bad_input_not_read_whole() {
    // A device is refused by name without being read (it was read to the
    // size cap and called too large; issue 26).
    let output = fencelab(&["check", "/dev/zero"]);
    assert_eq!(output.status.code(), Some(2));
    let error = String::from_utf8_lossy(&output.stderr).to_string();
    assert!(
        error.contains("/dev/zero: is a character device, not a file"),
        "{error}"
    );
    let dir = scratch("oversized");
    let big = dir.join("big.toml");
    std::fs::write(&big, "#".repeat(256 * 1024 + 1)).unwrap();
    let output = fencelab(&["check", big.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("the file is larger than 262144 bytes"),
        "{}",
        stderr(&output)
    );
    let _ = std::fs::remove_dir_all(&dir);
    let output = fencelab(&["run", "claim-compare-and-set", "--set", "claim=/dev/zero"]);
    assert_eq!(output.status.code(), Some(2));
}

/// A copy of bundled exercise 1 under another id, as an author's own.
fn own_claim_exercise(dir: &std::path::Path, id: &str) {
    let bundled = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../model/exercises/01-claim-compare-and-set.toml"
    );
    let text = std::fs::read_to_string(bundled).unwrap().replacen(
        "\nid = \"claim-compare-and-set\"\n",
        &format!("\nid = \"{id}\"\n"),
        1,
    );
    assert!(text.contains(&format!("id = \"{id}\"")));
    std::fs::write(dir.join(format!("{id}.toml")), text).unwrap();
}

/// In a built site, each of its own exercises has a page the build wrote
/// from its file as it was then: indexing says so, with the command that
/// writes them again.
#[test]
fn index_in_a_built_site_says_its_exercises_pages_are_the_builds() {
    let site = scratch("index-in-a-site");
    let dir = site.join("exercises");
    let _ = std::fs::remove_dir_all(&site);
    std::fs::create_dir_all(&dir).unwrap();
    own_claim_exercise(&dir, "my-course-claim");
    let output = fencelab(&["index", dir.to_str().unwrap()]);
    assert!(
        !stdout(&output).contains("site-pages"),
        "not a built site yet"
    );
    std::fs::write(site.join("index.html"), "<!doctype html>").unwrap();
    let output = fencelab(&["index", dir.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(
        stdout(&output).contains(&format!(
            "`cargo xtask site-pages {}` writes them again",
            site.display()
        )),
        "{}",
        stdout(&output)
    );
    let _ = std::fs::remove_dir_all(&site);
}

#[test]
fn index_writes_the_site_index_only_when_every_exercise_passes() {
    let dir = scratch("index").join("exercises");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let index = dir.join("index.toml");
    own_claim_exercise(&dir, "my-course-claim");
    own_claim_exercise(&dir, "my-course-again");
    // A stale precompressed copy of the index, older than the one written.
    std::fs::write(dir.join("index.toml.gz"), "stale").unwrap();
    std::thread::sleep(std::time::Duration::from_millis(20));

    let output = fencelab(&["index", dir.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let written = std::fs::read_to_string(&index).unwrap();
    assert!(
        written
            .contains("exercises = [\n  \"my-course-again.toml\",\n  \"my-course-claim.toml\",\n]"),
        "{written}"
    );
    assert!(
        !dir.join("index.toml.gz").exists(),
        "the stale copy is gone"
    );
    assert!(
        stdout(&output).ends_with(&format!(
            "checked 2 exercises: all ok; wrote {} listing 2\n",
            index.display()
        )),
        "{}",
        stdout(&output)
    );

    // Each refusal leaves the index as it was and names the file.
    let broken = dir.join("zz-broken.toml");
    std::fs::copy(data("unknown-field.toml"), &broken).unwrap();
    let output = fencelab(&["index", dir.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("zz-broken.toml:6:1"),
        "{}",
        stderr(&output)
    );
    assert!(stdout(&output).contains("index.toml was not written"));
    // --check says the same and writes nothing either way.
    let output = fencelab(&["index", "--check", dir.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("zz-broken.toml:6:1"));
    assert!(
        stdout(&output).ends_with(&format!("{} cannot be indexed\n", dir.display())),
        "{}",
        stdout(&output)
    );
    std::fs::remove_file(&broken).unwrap();
    std::fs::remove_file(&index).unwrap();
    let output = fencelab(&["index", "--check", dir.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(0));
    assert!(stdout(&output).ends_with("checked 2 exercises: all ok\n"));
    assert!(!index.exists(), "--check writes no index");
    std::fs::write(&index, &written).unwrap();

    std::fs::copy(data("uncaught-variant.toml"), &broken).unwrap();
    let output = fencelab(&["index", dir.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1));
    assert!(stdout(&output).contains("SURVIVED"), "{}", stdout(&output));
    assert!(
        stdout(&output).contains("zz-broken.toml does not pass its check"),
        "{}",
        stdout(&output)
    );
    std::fs::remove_file(&broken).unwrap();

    own_claim_exercise(&dir, "claim-compare-and-set");
    let copy = std::fs::read_to_string(dir.join("my-course-claim.toml")).unwrap();
    std::fs::write(dir.join("twin.toml"), copy).unwrap();
    let output = fencelab(&["index", dir.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    let error = stderr(&output);
    assert!(
        error.contains(
            "claim-compare-and-set.toml: the id `claim-compare-and-set` is a bundled exercise's"
        ),
        "{error}"
    );
    assert!(
        error.contains("my-course-claim.toml, ")
            && error.contains("twin.toml all have the id `my-course-claim`"),
        "{error}"
    );
    assert_eq!(std::fs::read_to_string(&index).unwrap(), written);

    std::fs::write(dir.join("my course.toml"), "").unwrap();
    let output = fencelab(&["index", dir.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("is not a plain file name"),
        "{}",
        stderr(&output)
    );
}

/// A hostile corpus case's whole input, as the corpus builds it.
fn hostile_input(case: &str) -> String {
    fencelab_hostile::parse("case", case)
        .expect("a corpus case")
        .whole_input()
}

#[test]
fn mutate_past_the_mutant_budget_is_an_error_naming_the_limit_and_no_score() {
    let dir = scratch("budget");
    let file = dir.join("many.toml");
    std::fs::write(
        &file,
        hostile_input(include_str!(
            "../../../tests/hostile/cases/mutants/two-thousand-predicates.toml"
        )),
    )
    .unwrap();
    let output = fencelab(&["mutate", file.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let printed = stdout(&output);
    assert!(
        printed.contains(
            "ERROR: `take` gives more than 1000 mutants, the limit of mutants per procedure"
        ),
        "{printed}"
    );
    assert!(!printed.contains("mutation score"), "{printed}");
    let output = fencelab(&["mutate", "--json", file.to_str().unwrap()]);
    let json: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap();
    let run = &json["exercises"][0];
    assert!(run.get("score_percent").is_none(), "{json}");
    assert!(
        run["error"]
            .as_str()
            .is_some_and(|e| e.contains("mutants per procedure"))
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn untrusted_text_reaches_the_terminal_with_its_control_and_bidi_characters_written_out() {
    // `new` quotes the id it refuses; an id with an ESC sequence and a line
    // break once echoed both to the terminal.
    let dir = scratch("quoting");
    let output = fencelab(&[
        "new",
        "\u{1b}[31mred\nline\u{202e}",
        "--dir",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(2));
    let error = stderr(&output);
    assert!(
        error.contains("\\u{1b}[31mred\\u{a}line\\u{202e}"),
        "{error}"
    );
    assert!(
        !error.contains('\u{1b}') && !error.contains('\u{202e}'),
        "{error}"
    );
    assert_eq!(error.lines().count(), 1, "one line: {error}");
    // JSON stays JSON, with the characters as JSON escapes.
    let file = dir.join("bidi.toml");
    std::fs::write(
        &file,
        hostile_input(include_str!(
            "../../../tests/hostile/cases/terminal/bidi-override-and-escape-in-a-failure.toml"
        )),
    )
    .unwrap();
    let output = fencelab(&["check", "--json", file.to_str().unwrap()]);
    let printed = stdout(&output);
    assert!(!printed.contains('\u{1b}') && !printed.contains('\u{202e}'));
    let json: serde_json::Value = serde_json::from_str(&printed).unwrap();
    assert!(
        json.to_string().contains('\u{202e}'),
        "the value is unchanged"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Makes a FIFO at `path` (mkfifo, as an author's shell would).
fn fifo(path: &std::path::Path) {
    let made = Command::new("mkfifo")
        .arg(path)
        .status()
        .expect("mkfifo runs");
    assert!(made.success());
}

/// Writes `text` to the FIFO at `path` from a thread of its own, as `cat
/// file > fifo` would: the open waits for the reader.
fn write_later(path: &std::path::Path, text: String) -> std::thread::JoinHandle<()> {
    let path = path.to_path_buf();
    std::thread::spawn(move || {
        use std::io::Write;
        if let Ok(mut fifo) = std::fs::OpenOptions::new().write(true).open(path) {
            let _ = fifo.write_all(text.as_bytes());
        }
    })
}

#[test]
fn a_fifo_is_read_to_its_end_as_a_set_file_and_as_a_directorys_entry() {
    let dir = scratch("fifo");
    let claim = dir.join("claim.sql");
    fifo(&claim);
    let writer = write_later(&claim, NAIVE_CLAIM.to_string());
    let output = fencelab(&[
        "run",
        "claim-compare-and-set",
        "--set",
        &format!("claim={}", claim.display()),
    ]);
    writer.join().unwrap();
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert!(stdout(&output).contains("shortest failing schedule"));

    let exercises = dir.join("exercises");
    std::fs::create_dir_all(&exercises).unwrap();
    let entry = exercises.join("from-a-fifo.toml");
    fifo(&entry);
    let writer = write_later(
        &entry,
        hostile_input(include_str!(
            "../../../tests/hostile/cases/files/fifo-written-an-exercise.toml"
        )),
    );
    let output = fencelab(&["check", exercises.to_str().unwrap()]);
    writer.join().unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(stdout(&output).contains("checked 1 exercise: 1 ok"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn index_names_a_link_to_nothing_instead_of_skipping_it() {
    let dir = scratch("dangling");
    std::os::unix::fs::symlink(dir.join("gone.toml"), dir.join("linked.toml")).unwrap();
    let output = fencelab(&["index", "--check", dir.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("linked.toml: is a symbolic link to nothing"),
        "{}",
        stderr(&output)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Exports exercise 1's scenario "one winner" with `texts` (`--start` or
/// nothing), runs the script with python3, and gives its exit code and output.
fn exported_claim_script(name: &str, texts: &[&str]) -> (Option<i32>, String) {
    let dir = scratch(name);
    let script = dir.join("claim.py");
    let mut args = vec![
        "export",
        "claim-compare-and-set",
        "--scenario",
        "one winner",
        "--python",
        "--output",
    ];
    let script_arg = script.display().to_string();
    args.push(&script_arg);
    args.extend_from_slice(texts);
    let output = fencelab(&args);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let ran = Command::new("python3")
        .arg(&script)
        .output()
        .expect("python3 runs");
    let _ = std::fs::remove_dir_all(&dir);
    (ran.status.code(), stdout(&ran))
}

/// The naive claim's script, run on a real file by Python's own sqlite3,
/// shows both workers believing they own msg-1 and exits 1; the reference's
/// exits 0.
#[test]
fn the_exported_naive_claim_breaks_on_a_real_file_and_the_reference_holds() {
    let (code, printed) = exported_claim_script("export-naive", &["--start"]);
    assert_eq!(code, Some(1), "{printed}");
    assert!(!printed.contains("DIFFERS"), "{printed}");
    assert!(
        printed.contains("worker-a") && printed.contains("worker-b"),
        "{printed}"
    );
    assert!(printed.contains("msg-1"), "{printed}");
    // It says the break was reproduced, then ends on the broken guarantee.
    let ending: Vec<&str> = printed.trim_end().lines().rev().take(3).collect();
    assert_eq!(
        ending[2],
        "Reproduced on this file: every step did what fencelab's run did, and this guarantee broke:",
        "{printed}"
    );
    assert!(ending[0].contains("msg-1"), "{printed}");
    let (code, printed) = exported_claim_script("export-reference", &[]);
    assert_eq!(code, Some(0), "{printed}");
    assert!(
        printed.contains("Reproduced on this file: every step did what fencelab's run did:\n\nevery guarantee held"),
        "{printed}"
    );
}

/// Exercise 1's scenarios on a real file, each process an operating-system
/// process, in both journal modes: no step differs.
#[test]
fn replay_on_a_real_file_with_processes_agrees_with_the_simulator() {
    let dir = scratch("replay");
    let file = dir.join("replay.db");
    let output = fencelab(&[
        "replay",
        "claim-compare-and-set",
        "--variants",
        "--journal",
        "both",
        "--processes",
        "--explored",
        "all",
        "--file",
        &file.display().to_string(),
    ]);
    let _ = std::fs::remove_dir_all(&dir);
    let printed = stdout(&output);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{printed}{}",
        stderr(&output)
    );
    assert!(printed.contains(": 0 differ"), "{printed}");
    // The explorer's schedules in which a claim waits for the lock are
    // replayed beside the shown ones, waits included.
    assert!(
        printed.contains("(4 of explored schedules)") && printed.contains("(2 waits for the lock)"),
        "{printed}"
    );
    assert!(!file.exists(), "the replay removes its file");
}

/// A replay whose reader has gone (`fencelab replay ... | head`) ends at
/// its first write, with exit 0 as such a pipe expects, and still removes
/// its scratch folder: that end returns through no guard.
#[test]
fn a_replay_whose_output_is_closed_leaves_no_scratch_folder() {
    let tmp = scratch("replay-closed-output");
    let mut child = Command::new(env!("CARGO_BIN_EXE_fencelab"))
        .args([
            "replay",
            "claim-compare-and-set",
            "--scenario",
            "one winner",
            "--journal",
            "both",
        ])
        .env("TMPDIR", &tmp)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the fencelab binary runs");
    // Closed before anything is written: the first write fails.
    drop(child.stdout.take());
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let left: Vec<_> = std::fs::read_dir(&tmp)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    let _ = std::fs::remove_dir_all(&tmp);
    assert!(left.is_empty(), "the replay left {left:?}");
}

/// `export -o FILE --force` replaces a file that exists, and still never
/// writes through a symbolic link (tests/hostile/cases/commands/ holds the
/// refusals without --force).
#[test]
fn export_with_force_replaces_a_file_but_never_writes_through_a_link() {
    let dir = scratch("export-force");
    let export = |path: &PathBuf| {
        fencelab(&[
            "export",
            "claim-compare-and-set",
            "--scenario",
            "one winner",
            "--python",
            "-o",
            &path.display().to_string(),
            "--force",
        ])
    };
    let notes = dir.join("notes.py");
    std::fs::write(&notes, "# old notes\n").unwrap();
    let output = export(&notes);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(
        std::fs::read_to_string(&notes)
            .unwrap()
            .starts_with("#!/usr/bin/env python3"),
        "the file is replaced by the script"
    );
    let victim = dir.join("victim.txt");
    std::fs::write(&victim, "kept").unwrap();
    let link = dir.join("link.py");
    let _ = std::fs::remove_file(&link);
    std::os::unix::fs::symlink(&victim, &link).unwrap();
    let output = export(&link);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("link.py: is a symbolic link"),
        "{}",
        stderr(&output)
    );
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "kept");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `replay --file PATH` takes a database an earlier replay left (its header
/// holds the replay's application_id) without being told, any other file
/// only with --force; --force says nothing without --file.
#[test]
fn replay_file_replaces_a_database_a_replay_left_and_another_file_only_with_force() {
    let dir = scratch("replay-force");
    let replay = |path: &PathBuf, force: bool| {
        let path = path.display().to_string();
        let mut args = vec![
            "replay",
            "claim-compare-and-set",
            "--scenario",
            "one winner",
            "--file",
            &path,
        ];
        if force {
            args.push("--force");
        }
        fencelab(&args)
    };
    let left = dir.join("left.db");
    let _ = std::fs::remove_file(&left);
    let connection = rusqlite::Connection::open(&left).unwrap();
    // docs/REPLAY.md: "flab", the mark of a replay's database.
    connection
        .execute_batch(&format!(
            "PRAGMA application_id = {}; CREATE TABLE t (x);",
            0x666C_6162
        ))
        .unwrap();
    drop(connection);
    let output = replay(&left, false);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(!left.exists(), "the replay removes the database it made");
    let notes = dir.join("notes.db");
    std::fs::write(&notes, "an author's notes").unwrap();
    let output = replay(&notes, true);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(!notes.exists(), "--force replaced the file");
    let output = fencelab(&["replay", "claim-compare-and-set", "--force"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("--file"), "{}", stderr(&output));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn check_notes_starting_texts_that_pass_every_scenario() {
    // Exercise 13 starts from the working `apply`, to explore the limits.
    let file = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../model/exercises/13-counterexamples-bound-the-protection.toml"
    ));
    let output = fencelab(&["check", file.to_str().unwrap()]);
    assert_eq!(
        output.status.code(),
        Some(0),
        "a note is not a failure: {}",
        stdout(&output)
    );
    let report = stdout(&output);
    // Its four limits are counted apart: a limit shown is never a pass.
    assert!(
        report.contains("  start: 7 of 7 scenarios pass, 4 limits shown"),
        "{report}"
    );
    assert!(
        report.contains("  reference: 7 of 7 scenarios pass, 4 limits shown"),
        "{report}"
    );
    assert!(
        report.contains(
            "note: the starting texts pass every scenario: a learner starts with nothing to repair"
        ),
        "{report}"
    );
}
