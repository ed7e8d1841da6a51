//! `fencelab protect` prints the marks the page draws: for every bundled
//! exercise's references, its `--json` document holds exactly the report
//! the page's worker sends the page (asked as the page asks, a `Protect`
//! request, answered a piece at a time, through the wire's codec), and its
//! text names every line the report marks.

use fencelab_core::protection::{LineStatus, ProtectionReport};
use fencelab_protocol::{Edits, Request, Response, decode, encode};
use fencelab_worker::serve::{Served, Server};
use std::process::Command;

/// The page's marks for `exercise`'s references, from the worker.
fn from_the_worker(server: &mut Server, seq: u64, exercise: &fencelab_core::Exercise) -> Response {
    let edits: Edits = exercise.reference_edits();
    let request = Request::Protect {
        seq,
        exercise: exercise.id.clone(),
        edits,
    };
    let request: Request = decode(&encode(&request)).expect("a request reads back");
    let response = match server.serve(request) {
        Served::Answer(response) => *response,
        Served::Job(mut job) => loop {
            if let Some(response) = job.piece() {
                break response;
            }
        },
        Served::Nothing | Served::Read(_) => {
            panic!("the worker answered a protection with nothing")
        }
    };
    decode(&encode(&response)).expect("an answer reads back")
}

/// `fencelab protect ID --json` and its exit code.
fn from_the_cli(id: &str) -> (serde_json::Value, Option<i32>) {
    let output = Command::new(env!("CARGO_BIN_EXE_fencelab"))
        .args(["protect", id, "--json"])
        .output()
        .expect("the fencelab binary runs");
    let json = serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "{id}: not JSON ({e}): {}",
            String::from_utf8_lossy(&output.stderr)
        )
    });
    (json, output.status.code())
}

#[test]
fn protect_prints_the_marks_the_page_gets_for_every_bundled_reference() {
    let exercises = fencelab_core::bundled::exercises().expect("the bundled exercises load");
    // The CLI's runs beside the worker's (the worker has one thread).
    let ids: Vec<String> = exercises.iter().map(|e| e.id.clone()).collect();
    let printed = std::thread::spawn(move || ids.iter().map(|id| from_the_cli(id)).collect());
    let mut server = Server::bundled();
    let pages: Vec<Response> = (1..)
        .zip(&exercises)
        .map(|(seq, exercise)| from_the_worker(&mut server, seq, exercise))
        .collect();
    let printed: Vec<(serde_json::Value, Option<i32>)> =
        printed.join().expect("the CLI's runs end");
    let mut marked = 0;
    for ((exercise, page), (json, code)) in exercises.iter().zip(pages).zip(printed) {
        let Response::Protection { report: page, .. } = page else {
            panic!("{}: the worker judged no marks: {page:?}", exercise.id);
        };
        assert_eq!(json["exercise"], exercise.id.as_str());
        assert_eq!(
            (&json["format_version"], &json["command"]),
            (&1.into(), &"protect".into())
        );
        let printed: ProtectionReport =
            serde_json::from_value(json.clone()).expect("the document holds a report");
        assert_eq!(
            printed, page,
            "{}: the CLI and the page differ",
            exercise.id
        );
        assert_eq!(
            code,
            Some(if page.has_unprotected() { 1 } else { 0 }),
            "{}: exit 1 exactly when a line is unprotected",
            exercise.id
        );
        marked += page
            .procedures
            .iter()
            .flat_map(|p| &p.lines)
            .filter(|m| matches!(m.status, LineStatus::Protected { .. }))
            .count();
    }
    assert!(marked > exercises.len(), "{marked} protected lines in all");
}

#[test]
fn protect_refuses_texts_that_do_not_pass_and_says_which_scenario() {
    let output = Command::new(env!("CARGO_BIN_EXE_fencelab"))
        .args(["protect", "claim-compare-and-set", "--start"])
        .output()
        .expect("the fencelab binary runs");
    assert_eq!(output.status.code(), Some(1));
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(
        said.contains("your procedure does not pass `") && said.contains("no mutant of it"),
        "{said}"
    );
    assert!(output.stdout.is_empty(), "no marks printed");
}

#[test]
fn protect_prints_each_line_with_what_its_marks_say() {
    let output = Command::new(env!("CARGO_BIN_EXE_fencelab"))
        .args(["protect", "claim-compare-and-set"])
        .output()
        .expect("the fencelab binary runs");
    assert_eq!(output.status.code(), Some(0));
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(
        text.starts_with("claim-compare-and-set  line marks: "),
        "{text}"
    );
    assert!(
        text.contains(
            "Line 5: if you drop `AND state = 'NEW'` from the WHERE, “one winner” fails: \
             worker-a and worker-b both believe they hold message msg-1 (schedule `"
        ),
        "{text}"
    );
    assert!(
        text.contains("|  WHERE id = :message_id AND state = 'NEW';"),
        "{text}"
    );
}
