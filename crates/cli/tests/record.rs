//! `fencelab record --postgres`: what a site carries of an exercise's
//! PostgreSQL verdicts (issue 53, item 4), on the server FENCELAB_POSTGRES
//! names (the test command's cluster). The exercise is the browser test's
//! (tests/e2e/fixtures/claim-on-postgres.toml): its reference keeps dense
//! tokens on SQLite and burns one on PostgreSQL.

mod common;

use common::{fencelab, text};
use fencelab_model::report::{Recorded, RecordedTexts, Verdict};
use std::path::{Path, PathBuf};

const FIXTURE: &str = "../../tests/e2e/fixtures/claim-on-postgres.toml";

/// The server's address, or `None` after a line saying the test is
/// skipped; with FENCELAB_REQUIRE_POSTGRES=1 a missing one fails it.
fn server() -> Option<String> {
    match std::env::var("FENCELAB_POSTGRES") {
        Ok(spec) if !spec.trim().is_empty() => Some(spec),
        _ => {
            let required =
                std::env::var("FENCELAB_REQUIRE_POSTGRES").is_ok_and(|value| value == "1");
            assert!(
                !required,
                "FENCELAB_REQUIRE_POSTGRES=1 and no FENCELAB_POSTGRES"
            );
            println!("skipped: FENCELAB_POSTGRES is not set");
            None
        }
    }
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("fencelab-record-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn fixture() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(FIXTURE)
        .display()
        .to_string()
}

#[test]
fn record_without_a_server_is_bad_input() {
    let out = scratch("no-server");
    let output = fencelab(&["record", "--out", &out.display().to_string(), &fixture()]);
    assert_eq!(output.status.code(), Some(2));
    assert!(text(&output.stderr).contains("record needs a server"));
    assert!(!out.exists(), "nothing is written");
}

#[test]
fn a_recording_holds_every_texts_verdicts_and_the_history_only_where_they_differ() {
    let Some(spec) = server() else { return };
    let out = scratch("claim");
    let dir = out.display().to_string();
    let output = fencelab(&["record", "--postgres", &spec, "--out", &dir, &fixture()]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert!(text(&output.stdout).contains("1 scenario verdicts differ from SQLite's"));
    let json = std::fs::read_to_string(out.join("claim-on-postgres.json")).expect("written");
    let recorded: Recorded = serde_json::from_str(&json).expect("a recording");
    assert!(
        recorded.engine.starts_with("PostgreSQL "),
        "{}",
        recorded.engine
    );
    let texts: Vec<&RecordedTexts> = recorded.runs.iter().map(|r| &r.texts).collect();
    assert_eq!(
        texts,
        [
            &RecordedTexts::Reference,
            &RecordedTexts::Start,
            &RecordedTexts::Variant("read, then write".into()),
            &RecordedTexts::Variant("read again right before writing".into()),
        ]
    );
    let reference = &recorded.runs[0];
    let differing: Vec<&str> = reference
        .differing()
        .map(|i| reference.report.scenarios[i].name.as_str())
        .collect();
    assert_eq!(differing, ["tokens without gaps"]);
    for (scenario, sqlite) in reference.report.scenarios.iter().zip(&reference.sqlite) {
        let differs = scenario.name == "tokens without gaps";
        assert_eq!(sqlite, &Some(Verdict::Passed), "{}", scenario.name);
        assert_eq!(!scenario.history.is_empty(), differs, "{}", scenario.name);
    }
    assert!(
        recorded.runs[1..]
            .iter()
            .all(|r| r.differing().count() == 0)
    );
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn a_sqlite_only_exercise_cannot_be_recorded() {
    let Some(spec) = server() else { return };
    let out = scratch("sqlite-only");
    let dir = out.display().to_string();
    // A bundled exercise without PostgreSQL texts, found by looking.
    let sqlite_only = fencelab_core::bundled::exercises()
        .expect("the bundled exercises load")
        .into_iter()
        .find(|e| e.postgres.is_none())
        .expect("a bundled exercise without PostgreSQL texts");
    let output = fencelab(&[
        "record",
        "--postgres",
        &spec,
        "--out",
        &dir,
        &sqlite_only.id,
    ]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        text(&output.stderr).contains("is SQLite only"),
        "{}",
        text(&output.stderr)
    );
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn a_sites_folder_is_recorded_for_its_exercises_with_a_dialect_only() {
    let Some(spec) = server() else { return };
    let folder = scratch("folder");
    std::fs::create_dir_all(&folder).expect("a folder");
    std::fs::copy(fixture(), folder.join("claim-on-postgres.toml")).expect("copied");
    let plain = std::fs::read_to_string(Path::new(&fixture()))
        .expect("read")
        .replace("id = \"claim-on-postgres\"", "id = \"plain\"");
    let plain = &plain[..plain.find("\n[postgres]\n").expect("a dialect")];
    std::fs::write(folder.join("plain.toml"), plain).expect("written");
    std::fs::write(folder.join("index.toml"), "format = 1\n").expect("written");
    let out = scratch("folder-out");
    let (dir, site) = (out.display().to_string(), folder.display().to_string());
    let output = fencelab(&["record", "--postgres", &spec, "--out", &dir, &site]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let written: Vec<String> = std::fs::read_dir(&out)
        .expect("written")
        .map(|e| {
            e.expect("an entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    assert_eq!(written, ["claim-on-postgres.json"]);
    let _ = std::fs::remove_dir_all(&out);
    let _ = std::fs::remove_dir_all(&folder);
}
