//! Messages survive the trip between the page and its worker exactly: a
//! realistic report goes through `encode` and `decode` and comes back equal,
//! with the values a JS number or a structured clone would change (integers
//! beyond 2^53, a whole real, NUL bytes) intact. The same test runs natively
//! and under wasm-bindgen-test, where the page and the worker really run.

use fencelab_model::LoadError;
use fencelab_model::Schedule;
use fencelab_model::history::{
    CallError, ErrorCause, Event, Outcome, ResultRows, RowChange, TableRows, Values, What,
};
use fencelab_model::monitor::{Belief, Holder, Violation};
use fencelab_model::mutate::StaleEquivalent;
use fencelab_model::procedure::Position;
use fencelab_model::report::{
    Drive, ErrorKind, ExerciseCheck, ExerciseReport, Exploration, Failure, FailureCause,
    FailureKind, KillMatrix, Lane, Place, ScenarioError, ScenarioReport, ScenarioResult,
    VerdictCell,
};
use fencelab_model::site::{IndexError, SiteIndex};
use fencelab_model::value::{RealBits, Value};
use fencelab_protocol::{
    Caught, Edits, Installation, LeftOut, LineMark, LineStatus, Listed, PlaygroundResponse,
    ProcedureMarks, ProtectionReport, Request, Response, Unread, decode, encode, seq_of_request,
};
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

/// Text that JSON must escape and that is not ASCII.
const AWKWARD_TEXT: &str = "worker\u{0}-ä 🦀 'quoted' \"double\"";

fn values(pairs: &[(&str, Value)]) -> Values {
    pairs
        .iter()
        .map(|(name, value)| (name.to_string(), value.clone()))
        .collect()
}

fn event(process: Option<&str>, clock_seconds: i64, what: What) -> Event {
    Event {
        clock_seconds,
        process: process.map(str::to_string),
        actor: process.map(|p| format!("worker-{p}")),
        procedure: process.map(|_| "claim".to_string()),
        step: process.map(|_| 1),
        position: process.map(|_| Position { line: 2, column: 1 }),
        what,
        row_changes: Vec::new(),
    }
}

fn holder(process: &str) -> Holder {
    Holder {
        process: process.into(),
        actor: format!("worker-{process}"),
        called: format!("worker-{process}"),
    }
}

/// A failing scenario whose history holds every kind of event and every
/// kind of value.
// long: one literal report, every field of it set, so the round trip below
// covers every part of the wire; split, no part would read on its own.
fn failing() -> ScenarioReport {
    let token = Value::Integer(i64::MAX);
    let real = Value::Real(RealBits::new(3.0));
    let returned = ResultRows {
        columns: vec!["token".into(), "weight".into(), "note".into(), "raw".into()],
        rows: vec![vec![
            token.clone(),
            real.clone(),
            Value::Null,
            Value::blob(&[0, 255, 16]),
        ]],
    };
    let mut update = event(
        Some("proc-1"),
        5,
        What::Statement {
            sql: "UPDATE messages SET owner = :actor WHERE id = :id".into(),
            parameters: values(&[
                ("actor", Value::from(AWKWARD_TEXT)),
                ("id", Value::Integer(i64::MIN)),
            ]),
            changed: 1,
            returned: returned.clone(),
        },
    );
    update.row_changes = vec![
        RowChange {
            table: "messages".into(),
            key: vec![Value::Integer(1)],
            before: Some(vec![Value::from("NEW"), Value::Null, real.clone()]),
            after: Some(vec![
                Value::from("CLAIMED"),
                Value::from(AWKWARD_TEXT),
                real.clone(),
            ]),
        },
        RowChange {
            table: "messages".into(),
            key: vec![Value::Integer(2)],
            before: None,
            after: Some(vec![
                Value::from("NEW"),
                Value::Null,
                Value::Integer(i64::MIN),
            ]),
        },
    ];
    let history = vec![
        event(
            None,
            0,
            What::ClockSet {
                from_seconds: 0,
                to_seconds: 5,
            },
        ),
        event(Some("proc-1"), 5, What::ProcessStarted),
        event(
            Some("proc-1"),
            5,
            What::CallStarted {
                arguments: values(&[("message_id", Value::from("msg-1"))]),
            },
        ),
        update,
        event(
            Some("proc-2"),
            5,
            What::Blocked {
                sql: "UPDATE messages SET owner = :actor".into(),
            },
        ),
        event(
            Some("proc-1"),
            5,
            What::Effect {
                name: "deliver".into(),
                values: values(&[("weight", real.clone())]),
            },
        ),
        event(
            Some("proc-1"),
            5,
            What::CallFinished {
                outcome: Outcome::Ok {
                    values: values(&[("token", token.clone()), ("expires_at", Value::Null)]),
                },
                rolled_back: false,
            },
        ),
        event(
            Some("proc-2"),
            6,
            What::CallFinished {
                outcome: Outcome::Refused {
                    category: "stale_token".into(),
                    reason: AWKWARD_TEXT.into(),
                },
                rolled_back: true,
            },
        ),
        event(
            Some("proc-2"),
            6,
            What::CallFinished {
                outcome: Outcome::Error(CallError {
                    cause: ErrorCause::Sql,
                    message: "no such column: x".into(),
                    procedure: "claim".into(),
                    position: Some(Position { line: 3, column: 7 }),
                }),
                rolled_back: false,
            },
        ),
        event(
            Some("proc-2"),
            7,
            What::ProcessCrashed { rolled_back: true },
        ),
        event(
            None,
            7,
            What::DirectSql {
                sql: "DELETE FROM messages".into(),
                changed: 2,
            },
        ),
    ];
    let belief = |process: &str, token: Value| Belief {
        resource: "message msg-1".into(),
        process: process.into(),
        actor: format!("worker-{process}"),
        called: format!("worker-{process}"),
        token: Some(token),
        expires_at: Some(i64::MAX),
        token_called: "fencing token".into(),
    };
    let beliefs = history
        .iter()
        .enumerate()
        .map(|(i, _)| match i {
            0..=5 => Vec::new(),
            _ => vec![
                belief("proc-1", token.clone()),
                belief("proc-2", Value::Integer(i64::MIN)),
            ],
        })
        .collect();
    ScenarioReport {
        name: "one winner".into(),
        summary: AWKWARD_TEXT.into(),
        result: ScenarioResult::Failed {
            failure: Failure::new(
                FailureCause::Invariant {
                    violation: Violation::TwoHolders {
                        resource: "message msg-1".into(),
                        first: holder("proc-1"),
                        first_token: Some(token.clone()),
                        second: holder("proc-2"),
                        second_token: Some(real.clone()),
                    },
                },
                Some(6),
            ),
        },
        schedule: Schedule::parse("a b a b").expect("a schedule"),
        exploration: Exploration {
            sections: 1,
            schedules: u64::MAX,
            pruned: 3,
            states: 7,
            procedure_steps: 843,
            sqlite_steps: i64::MAX as u64,
            memory_bytes: 62_308,
            seed: Some(u64::MAX),
        },
        lanes: vec![
            Lane {
                name: "a".into(),
                process: "proc-1".into(),
                actor: "worker-proc-1".into(),
                called: "worker-proc-1".into(),
            },
            Lane {
                name: "b".into(),
                process: "proc-2".into(),
                actor: "worker-proc-2".into(),
                called: "worker-proc-2".into(),
            },
        ],
        initial_tables: vec![TableRows {
            table: "messages".into(),
            columns: vec!["state".into(), "owner".into(), "weight".into()],
            rows: vec![vec![
                Value::Integer(1),
                Value::from("NEW"),
                Value::Null,
                real,
            ]],
            key_len: 1,
        }],
        history,
        beliefs,
    }
}

fn errored() -> ScenarioReport {
    ScenarioReport {
        name: "first come, first served".into(),
        summary: String::new(),
        result: ScenarioResult::Error {
            error: ScenarioError::of(ErrorKind::Call {
                process: "worker-a".into(),
                procedure: "claim".into(),
                cause: ErrorCause::Sql,
                message: "near \"SELEC\": syntax error".into(),
            })
            .at(Place {
                procedure: "claim".into(),
                position: Some(Position { line: 1, column: 1 }),
            }),
        },
        schedule: Schedule::new(),
        exploration: Exploration::default(),
        lanes: Vec::new(),
        initial_tables: Vec::new(),
        history: Vec::new(),
        beliefs: Vec::new(),
    }
}

fn with_result(mut report: ScenarioReport, result: ScenarioResult) -> ScenarioReport {
    report.result = result;
    report
}

fn exercise_report() -> ExerciseReport {
    ExerciseReport::new(
        "claim-compare-and-set",
        vec![
            failing(),
            errored(),
            with_result(failing(), ScenarioResult::Passed),
            with_result(failing(), ScenarioResult::LimitShown),
        ],
    )
}

/// Marks of both kinds, with text JSON must escape.
fn protection_report() -> ProtectionReport {
    ProtectionReport {
        procedures: vec![ProcedureMarks {
            procedure: "claim".into(),
            lines: vec![
                LineMark {
                    line: 4,
                    status: LineStatus::Protected {
                        caught: vec![
                            Caught {
                                scenario: "one winner".into(),
                                sentence: AWKWARD_TEXT.into(),
                                schedule: Schedule::parse("a b a b").expect("a schedule"),
                                description: "drop `AND state = 'NEW'` from the WHERE".into(),
                                mutant_text: format!("SELECT 1;\n-- {AWKWARD_TEXT}"),
                                limit: true,
                            },
                            Caught {
                                scenario: AWKWARD_TEXT.into(),
                                sentence: String::new(),
                                schedule: Schedule::new(),
                                description: "delete `UPDATE messages SET ...`".into(),
                                mutant_text: String::new(),
                                limit: false,
                            },
                        ],
                        uncaught: vec!["swap `=` for `<>`".into()],
                    },
                },
                LineMark {
                    line: u32::MAX,
                    status: LineStatus::Unprotected {
                        descriptions: vec![AWKWARD_TEXT.into()],
                    },
                },
            ],
        }],
        mutants: 2,
    }
}

/// Encodes, decodes, and checks the message came back equal.
/// A draft's check: the failing report's verdict in every cell kind.
fn draft_check() -> ExerciseCheck {
    let run = ExerciseReport::new("draft", vec![failing(), errored()]);
    let mut matrix = KillMatrix::new(vec!["one winner".into(), "errored".into()]);
    matrix.push("read, then write", AWKWARD_TEXT, &run);
    ExerciseCheck {
        title: AWKWARD_TEXT.into(),
        reference: run.clone(),
        start: VerdictCell::row(&run),
        matrix,
        stale_equivalents: vec![
            StaleEquivalent::MatchesNothing {
                mutant: AWKWARD_TEXT.into(),
            },
            StaleEquivalent::Killed {
                mutant: "claim:1:1:x".into(),
                scenario: AWKWARD_TEXT.into(),
            },
            StaleEquivalent::Unmatchable {
                reason: AWKWARD_TEXT.into(),
            },
        ],
    }
}

fn round_trip<T>(message: &T) -> T
where
    T: serde::Serialize + serde::de::DeserializeOwned + PartialEq + std::fmt::Debug,
{
    let text = encode(message);
    let back: T = decode(&text).unwrap_or_else(|error| panic!("{error}: {text}"));
    assert_eq!(&back, message, "{text}");
    back
}

#[test]
fn an_exercise_report_round_trips_exactly() {
    let response: Response = Response::Checked {
        seq: u64::MAX,
        report: exercise_report(),
    };
    let Response::Checked { report, .. } = round_trip(&response) else {
        panic!("the response changed kind");
    };
    let failing = &report.scenarios[0];
    let What::Statement {
        parameters,
        returned,
        ..
    } = &failing.history[3].what
    else {
        panic!("the fourth event is the UPDATE");
    };
    // Exactly the values a JS number would have changed.
    assert_eq!(parameters["id"], Value::Integer(i64::MIN));
    assert_eq!(parameters["actor"], Value::from(AWKWARD_TEXT));
    assert_eq!(returned.rows[0][0], Value::Integer(i64::MAX));
    match returned.rows[0][1] {
        Value::Real(real) => assert_eq!(real.get().to_bits(), 3.0f64.to_bits()),
        ref other => panic!("3.0 came back as {other:?}"),
    }
    assert_eq!(returned.rows[0][2], Value::Null);
    // The failure keeps its kind and reads the same sentence on both
    // sides; the page, which reads it, does not take the cause's data.
    let failure = failing.failure().expect("a failure");
    assert_eq!(failure.kind(), FailureKind::Invariant);
    assert_eq!(failure.cause(), None);
    assert_eq!(
        failure.to_string(),
        "worker-proc-1 and worker-proc-2 both believe they hold message msg-1"
    );
    assert_eq!(
        failing.beliefs[6][0].describe(),
        format!("message msg-1 (fencing token {})", i64::MAX)
    );
    assert_eq!(report.passed, 2);
    assert_eq!(report.failed, 2);
}

// long: one message of every kind, in the order the protocol declares them;
// the point is that none is missing.
/// One of each response the worker writes, with awkward data.
fn responses() -> Vec<Response> {
    vec![
        Response::Ready {
            sqlite_version: "3.50.4".into(),
        },
        Response::Replayed {
            seq: 7,
            report: failing(),
        },
        Response::Driven {
            seq: 8,
            drive: Drive {
                report: failing(),
                options: vec!["a".into(), "b".into()],
                finished: false,
                next: vec![Some("UPDATE t SET x = 1".into()), None],
            },
        },
        Response::Queried {
            seq: 9,
            result: Ok(ResultRows {
                columns: vec!["big".into(), "real".into()],
                rows: vec![vec![
                    Value::Integer(i64::MIN),
                    Value::Real(RealBits::new(-0.5)),
                ]],
            }),
        },
        Response::Queried {
            seq: 10,
            result: Err(AWKWARD_TEXT.into()),
        },
        Response::Failed {
            seq: 11,
            message: AWKWARD_TEXT.into(),
        },
        Response::Protection {
            seq: 12,
            report: protection_report(),
        },
        Response::Authored {
            seq: 14,
            result: Ok(draft_check()),
        },
        Response::Authored {
            seq: 15,
            result: Err(LoadError {
                file: "draft.toml".into(),
                line: 31,
                column: 1,
                field: "schema".into(),
                message: AWKWARD_TEXT.into(),
            }),
        },
        Response::Drafted {
            seq: 16,
            result: Ok(Box::new(
                fencelab_model::bundled::catalog()
                    .expect("the bundled exercises load")
                    .swap_remove(0),
            )),
        },
        Response::Working { seq: 17 },
    ]
}

#[test]
fn every_response_and_request_round_trips() {
    let mut edits = Edits::new();
    edits.insert("claim".into(), format!("SELECT 1; -- {AWKWARD_TEXT}"));
    let schedule = Schedule::parse("a b b a").expect("a schedule");
    for response in &responses() {
        round_trip(response);
    }
    let requests = [
        Request::Check {
            seq: 1,
            exercise: "claim-compare-and-set".into(),
            edits: edits.clone(),
        },
        Request::Replay {
            seq: 2,
            exercise: "claim-compare-and-set".into(),
            edits: edits.clone(),
            scenario: "one winner".into(),
            schedule: schedule.clone(),
        },
        Request::Drive {
            seq: 3,
            exercise: "claim-compare-and-set".into(),
            edits: edits.clone(),
            scenario: "one winner".into(),
            schedule: Schedule::new(),
        },
        Request::Query {
            seq: u64::MAX,
            exercise: "claim-compare-and-set".into(),
            edits: edits.clone(),
            scenario: "one winner".into(),
            schedule,
            event_index: 4,
            sql: "SELECT * FROM messages".into(),
        },
        Request::Protect {
            seq: 13,
            exercise: "claim-compare-and-set".into(),
            edits,
        },
        Request::Author {
            seq: 14,
            file: "draft.toml".into(),
            source: format!("title = \"{}\"\r\n", AWKWARD_TEXT.replace('\0', "")),
            check: true,
        },
        Request::Author {
            seq: 15,
            file: "draft.toml".into(),
            source: AWKWARD_TEXT.into(),
            check: false,
        },
        Request::Index {
            seq: 16,
            source: "format = 1\nexercises = [\"a.toml\"]\n".into(),
        },
        Request::Prepare {
            exercise: "claim-compare-and-set".into(),
        },
    ];
    for request in &requests {
        let text = encode(request);
        assert_eq!(round_trip(request).seq(), request.seq());
        assert_eq!(seq_of_request(&text), request.seq());
    }
}

/// The playground reads every answer the worker writes: the authoring
/// view's without their results (it never asks for one), every other one
/// whole, as the authoring view reads it.
#[test]
fn the_playground_reads_every_answer_and_skips_the_authoring_views_results() {
    for response in responses() {
        let text = encode(&response);
        let read: PlaygroundResponse =
            decode(&text).unwrap_or_else(|error| panic!("{error}: {text}"));
        let whole: Response = decode(&text).unwrap_or_else(|error| panic!("{error}: {text}"));
        assert_eq!(read.seq(), response.seq(), "{text}");
        match (&whole, read) {
            (Response::Drafted { seq, .. }, Response::Drafted { seq: read, result }) => {
                assert_eq!((*seq, result), (read, Unread));
            }
            (Response::Authored { seq, .. }, Response::Authored { seq: read, result }) => {
                assert_eq!((*seq, result), (read, Unread));
            }
            // The same variant with the same fields (the two types differ
            // only in the authoring view's results).
            (whole, read) => assert_eq!(format!("{read:?}"), format!("{whole:?}")),
        }
    }
}

/// web/start-worker.js writes this request by hand (`JSON.stringify`), as
/// the app is not running yet: its text must read as `Prepare`.
#[test]
fn the_prepare_that_start_worker_js_writes_is_read() {
    let script = include_str!("../../start-worker.js");
    assert!(
        script.contains("JSON.stringify({ Prepare: { exercise: exercise } })"),
        "start-worker.js no longer writes the request this test reads"
    );
    let written = r#"{"Prepare":{"exercise":"claim-compare-and-set"}}"#;
    assert_eq!(
        decode::<Request>(written).ok(),
        Some(Request::Prepare {
            exercise: "claim-compare-and-set".into()
        })
    );
    assert_eq!(seq_of_request(written), 0);
}

#[test]
fn a_message_that_cannot_be_read_is_an_error_with_its_seq_when_it_has_one() {
    let unknown = r#"{"Explode":{"seq":42,"exercise":"x"}}"#;
    assert!(decode::<Request>(unknown).is_err());
    assert_eq!(seq_of_request(unknown), 42);
    let bad_schedule =
        r#"{"Drive":{"seq":5,"exercise":"x","edits":{},"scenario":"s","schedule":"a; b"}}"#;
    let error = decode::<Request>(bad_schedule).expect_err("a schedule that is not one");
    assert!(error.message.contains("is not a process name"), "{error}");
    assert_eq!(seq_of_request(bad_schedule), 5);
    assert!(decode::<Response>("not json").is_err());
    assert_eq!(seq_of_request("not json"), 0);
    assert_eq!(seq_of_request("[1, 2]"), 0);
}

/// A message that cannot be written (a map whose keys are not strings)
/// still sends something the other side reads: `Failed`, saying why.
#[test]
fn a_message_that_cannot_be_written_is_sent_as_failed() {
    let unwritable: std::collections::BTreeMap<(u8, u8), u8> = [((1, 2), 3)].into();
    let text = encode(&unwritable);
    match decode::<Response>(&text) {
        Ok(Response::Failed { seq: 0, message }) => assert!(
            message.starts_with("a message could not be encoded: key must be a string"),
            "{message}"
        ),
        other => panic!("{text} reads as {other:?}"),
    }
}

/// What the worker loads for the page crosses whole: every bundled exercise
/// (constants, seed rows, scenarios with their values) comes back equal, in
/// each answer that carries one, and so do the loader's errors and a site's
/// index. The page lists what arrives without parsing it again.
#[test]
fn loaded_exercises_indexes_and_load_errors_cross_exactly() {
    let exercises = fencelab_model::bundled::catalog().expect("the bundled exercises load");
    let error = LoadError {
        file: "exercises/mine.toml".into(),
        line: 12,
        column: 3,
        field: "schema".into(),
        message: AWKWARD_TEXT.into(),
    };
    let mut responses: Vec<Response> = vec![
        Response::Installed {
            seq: 1,
            installation: Box::new(Installation::LeftOut(LeftOut::Unloadable(error.clone()))),
        },
        Response::Drafted {
            seq: 2,
            result: Err(error.clone()),
        },
        Response::Indexed {
            seq: 3,
            result: SiteIndex::new(vec!["a.toml".into()]),
        },
        Response::Indexed {
            seq: 4,
            result: Err(IndexError(AWKWARD_TEXT.into())),
        },
    ];
    for (seq, exercise) in (5..).zip(&exercises) {
        responses.push(Response::Installed {
            seq,
            installation: Box::new(match seq % 4 {
                0 => Installation::Listed(Listed {
                    exercise: exercise.clone(),
                    schema_error: None,
                }),
                1 => Installation::Replaced(Listed {
                    exercise: exercise.clone(),
                    schema_error: Some(error.clone()),
                }),
                2 => Installation::LeftOut(LeftOut::IdTaken {
                    id: exercise.id.clone(),
                    holder: Some(AWKWARD_TEXT.into()),
                }),
                _ => Installation::LeftOut(LeftOut::IdTaken {
                    id: exercise.id.clone(),
                    holder: None,
                }),
            }),
        });
        responses.push(Response::Drafted {
            seq,
            result: Ok(Box::new(exercise.clone())),
        });
    }
    for response in &responses {
        assert_eq!(&round_trip(response), response);
    }
}
