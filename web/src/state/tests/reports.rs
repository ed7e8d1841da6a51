//! Reports as the worker would send them for the bundled claim exercise,
//! built once from fencelab-model's types (the page cannot run the engine).
//! "one winner" failing is the naive claim's counterexample: both workers
//! claim msg-1, and after the last step both believe they hold it.

use fencelab_model::history::{Event, Outcome, ResultRows, Values, What};
use fencelab_model::monitor::{Belief, Holder, Violation};
use fencelab_model::report::{Exploration, Lane};
use fencelab_model::{Drive, ExerciseReport, Failure, FailureCause, ScenarioReport};
use fencelab_model::{ScenarioResult, Schedule, Value};
use fencelab_protocol::{Caught, LineMark, LineStatus, ProcedureMarks, ProtectionReport};

pub const CLAIM: &str = "claim-compare-and-set";
pub const ONE_WINNER: &str = "one winner";
pub const FIRST_COME: &str = "first come, first served";
/// The step of the failing "one winner" where it broke: worker-b's claim
/// returns ok while worker-a still believes it holds msg-1.
pub const BROKE_AT: usize = 7;

fn event(process: &str, what: What) -> Event {
    let actor = match process {
        "proc-1" => "worker-a",
        _ => "worker-b",
    };
    Event {
        clock_seconds: 0,
        process: Some(process.into()),
        actor: Some(actor.into()),
        // Every event but a start belongs to the claim.
        procedure: (!matches!(what, What::ProcessStarted)).then(|| "claim".into()),
        step: None,
        position: None,
        what,
        row_changes: Vec::new(),
    }
}

fn values(pairs: &[(&str, Value)]) -> Values {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.clone()))
        .collect()
}

fn belief(process: &str, actor: &str, token: i64) -> Belief {
    Belief {
        resource: "message msg-1".into(),
        process: process.into(),
        actor: actor.into(),
        called: actor.into(),
        token: Some(Value::Integer(token)),
        expires_at: None,
        token_called: "token".into(),
    }
}

fn claim_steps(process: &str, token: i64) -> Vec<Event> {
    vec![
        event(
            process,
            What::CallStarted {
                arguments: values(&[("message_id", "msg-1".into())]),
            },
        ),
        event(
            process,
            What::Statement {
                sql: "UPDATE messages SET claim_owner = :actor WHERE id = :message_id".into(),
                parameters: values(&[("message_id", "msg-1".into())]),
                changed: 1,
                returned: ResultRows::default(),
            },
        ),
        event(
            process,
            What::CallFinished {
                outcome: Outcome::Ok {
                    values: values(&[("token", token.into())]),
                },
                rolled_back: false,
            },
        ),
    ]
}

/// Both workers start, worker-a claims, then worker-b claims over it.
fn history() -> Vec<Event> {
    let mut history = vec![
        event("proc-1", What::ProcessStarted),
        event("proc-2", What::ProcessStarted),
    ];
    history.extend(claim_steps("proc-1", 1));
    history.extend(claim_steps("proc-2", 2));
    history
}

/// What the processes believe after each event of [`history`].
fn beliefs() -> Vec<Vec<Belief>> {
    (0..history().len())
        .map(|i| match i {
            0..=3 => Vec::new(),
            4..=6 => vec![belief("proc-1", "worker-a", 1)],
            _ => vec![
                belief("proc-1", "worker-a", 1),
                belief("proc-2", "worker-b", 2),
            ],
        })
        .collect()
}

fn scenario(name: &str, result: ScenarioResult, schedule: &str) -> ScenarioReport {
    ScenarioReport {
        name: name.into(),
        summary: String::new(),
        result,
        schedule: Schedule::parse(schedule).expect("a schedule"),
        exploration: Exploration::default(),
        lanes: vec![
            Lane {
                name: "a".into(),
                process: "proc-1".into(),
                actor: "worker-a".into(),
                called: "worker-a".into(),
            },
            Lane {
                name: "b".into(),
                process: "proc-2".into(),
                actor: "worker-b".into(),
                called: "worker-b".into(),
            },
        ],
        initial_tables: Vec::new(),
        history: history(),
        beliefs: beliefs(),
    }
}

pub fn two_holders() -> Failure {
    Failure::new(
        FailureCause::Invariant {
            violation: Violation::TwoHolders {
                resource: "message msg-1".into(),
                first: Holder {
                    process: "proc-1".into(),
                    actor: "worker-a".into(),
                    called: "worker-a".into(),
                },
                first_token: Some(1.into()),
                second: Holder {
                    process: "proc-2".into(),
                    actor: "worker-b".into(),
                    called: "worker-b".into(),
                },
                second_token: Some(2.into()),
            },
        },
        Some(BROKE_AT),
    )
}

pub fn one_winner_failing() -> ScenarioReport {
    scenario(
        ONE_WINNER,
        ScenarioResult::Failed {
            failure: two_holders(),
        },
        "a a b b",
    )
}

pub fn passing(name: &str, schedule: &str) -> ScenarioReport {
    scenario(name, ScenarioResult::Passed, schedule)
}

/// A replay that ended in an error after `events` events: its schedule is
/// the moves it made, fewer than were asked for.
pub fn errored(name: &str, made: &str, events: usize) -> ScenarioReport {
    let mut report = scenario(
        name,
        ScenarioResult::Error {
            error: fencelab_model::ScenarioError::of(fencelab_model::report::ErrorKind::Unusable {
                message: "process `a` cannot move: its call has ended".into(),
            }),
        },
        made,
    );
    report.history.truncate(events);
    report.beliefs.truncate(events);
    report
}

/// The claim exercise's report: "one winner" fails or passes, "first come,
/// first served" passes.
pub fn claim_report(one_winner_fails: bool) -> ExerciseReport {
    let one_winner = if one_winner_fails {
        one_winner_failing()
    } else {
        passing(ONE_WINNER, "a a b b")
    };
    ExerciseReport::new(CLAIM, vec![one_winner, passing(FIRST_COME, "")])
}

/// A drive of "one winner" after `events` events of its history.
pub fn drive(events: usize, finished: bool) -> Drive {
    let mut report = if finished {
        one_winner_failing()
    } else {
        passing(ONE_WINNER, "")
    };
    report.history.truncate(events);
    report.beliefs.truncate(events);
    Drive {
        report,
        options: if finished {
            Vec::new()
        } else {
            vec!["a".into(), "b".into()]
        },
        finished,
        next: if finished {
            Vec::new()
        } else {
            vec![Some("SELECT 1".into()), None]
        },
    }
}

/// The line of the claim whose changes the scenarios catch in
/// [`protection_report`]: dropping either conjunct of its WHERE. The second
/// change, the state predicate, is the one "one winner" catches.
pub const PROTECTED_LINE: u32 = 4;
pub const STATE_PREDICATE: usize = 1;
pub const MUTANT_CLAIM: &str = "UPDATE messages SET claim_owner = :actor WHERE id = :message_id;";
/// The line no scenario notices a change to.
pub const UNPROTECTED_LINE: u32 = 7;

/// The worker's marks for a solved claim: line 4 protected by two caught
/// removals, line 7 unprotected.
pub fn protection_report() -> ProtectionReport {
    ProtectionReport {
        procedures: vec![ProcedureMarks {
            procedure: "claim".into(),
            lines: vec![
                LineMark {
                    line: PROTECTED_LINE,
                    status: LineStatus::Protected {
                        caught: vec![
                            Caught {
                                scenario: FIRST_COME.into(),
                                sentence:
                                    "worker-b's claim: expected ok, got refused (not_claimable)"
                                        .into(),
                                schedule: Schedule::new(),
                                description: "drop `id = :message_id AND` from the WHERE".into(),
                                mutant_text: "UPDATE messages SET claim_owner = :actor;".into(),
                                limit: false,
                            },
                            Caught {
                                scenario: ONE_WINNER.into(),
                                sentence: two_holders().to_string(),
                                schedule: Schedule::parse("a a b b").expect("a schedule"),
                                description: "drop `AND state = 'NEW'` from the WHERE".into(),
                                mutant_text: MUTANT_CLAIM.into(),
                                limit: false,
                            },
                        ],
                        uncaught: vec![
                            "compare with `IS` instead of `=` in `state = 'NEW'`".into(),
                        ],
                    },
                },
                LineMark {
                    line: UNPROTECTED_LINE,
                    status: LineStatus::Unprotected {
                        descriptions: vec!["use `'mailbox'` instead of `'mailbox_claim'`".into()],
                    },
                },
            ],
        }],
        mutants: 4,
    }
}
