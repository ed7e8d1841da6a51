//! The lessons' printed observations, reproduced by the bundled exercises'
//! reference procedures.
//!
//! Each test builds a world from one bundled exercise (its schema, its
//! constants and its reference procedures, exactly as the checker runs
//! them), drives it the way the lesson's run does, formats the outcomes the
//! way the lesson prints them and compares with the lesson's lines, which
//! are written out here by hand. The same source runs natively and under
//! wasm-bindgen-test.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use crate::common::{claim_line, complete_line, values};
use fencelab_core::bundled;
use fencelab_core::{
    Exercise, ExerciseExt, Outcome, Procedure, ProcessId, Value, Values, Verdict, What, World,
};
use serde_json::json;
use std::collections::BTreeMap;

fn exercise(id: &str) -> Exercise {
    bundled::exercises()
        .unwrap_or_else(|e| panic!("{e}"))
        .into_iter()
        .find(|e| e.id == id)
        .unwrap_or_else(|| panic!("no bundled exercise `{id}`"))
}

/// A world with the exercise's schema, constants and reference procedures.
fn world(id: &str) -> World {
    let exercise = exercise(id);
    let procedures = exercise
        .texts_with(&BTreeMap::new())
        .into_iter()
        .map(|(name, text)| Procedure::parse(&name, &text).unwrap_or_else(|e| panic!("{e}")));
    World::new(&exercise.schema, procedures, exercise.constants.clone())
        .unwrap_or_else(|e| panic!("{id}: {e}"))
}

fn call(world: &mut World, process: ProcessId, procedure: &str, args: &[(&str, Value)]) -> Outcome {
    world
        .run_call(process, procedure, values(args))
        .unwrap_or_else(|e| panic!("{procedure}: {e}"))
}

fn value(outcome: &Outcome, name: &str) -> Value {
    match outcome {
        Outcome::Ok { values } => values
            .get(name)
            .cloned()
            .unwrap_or_else(|| panic!("no `{name}` in {values:?}")),
        other => panic!("expected ok with `{name}`, got {other:?}"),
    }
}

fn row(world: &World, sql: &str) -> Vec<Value> {
    world
        .query(sql, &Values::new())
        .unwrap_or_else(|e| panic!("{e}"))
        .rows
        .into_iter()
        .next()
        .unwrap_or_else(|| panic!("`{sql}` returned no row"))
}

/// A value as the lesson's Python prints it: text bare, numbers as digits.
fn bare(value: &Value) -> String {
    match value {
        Value::Text(text) => text.clone(),
        other => other.to_string(),
    }
}

/// `token=1` or `refused: actor_lease_held`, as the lesson's observations read.
fn observation(outcome: &Outcome, name: &str, label: &str) -> String {
    match outcome {
        Outcome::Ok { .. } => format!("{label}={}", bare(&value(outcome, name))),
        Outcome::Refused { category, .. } => format!("refused: {category}"),
        Outcome::Error(error) => panic!("unexpected error {error:?}"),
    }
}

#[test]
fn the_claim_and_the_completion() {
    // The one-statement claim (exercise 1).
    let mut w = world("claim-compare-and-set");
    let a = w.start_process("worker-a").unwrap();
    let b = w.start_process("worker-b").unwrap();
    let mut lines = Vec::new();
    let msg1 = [("message_id", Value::from("msg-1"))];
    lines.push(claim_line("worker-a", &call(&mut w, a, "claim", &msg1)));
    lines.push(claim_line("worker-b", &call(&mut w, b, "claim", &msg1)));

    // Completing under the token (exercise 2).
    let mut w = world("complete-under-the-token");
    let a = w.start_process("worker-a").unwrap();
    let claimed = call(&mut w, a, "claim", &msg1);
    let token = value(&claimed, "token");
    let never_issued = call(
        &mut w,
        a,
        "complete",
        &[("message_id", "msg-1".into()), ("token", 99.into())],
    );
    lines.push(complete_line("worker-a", &never_issued));
    let own = call(
        &mut w,
        a,
        "complete",
        &[("message_id", "msg-1".into()), ("token", token)],
    );
    lines.push(complete_line("worker-a", &own));

    assert_eq!(
        lines,
        [
            "worker-a: claimed with token 1",
            "worker-b: refused, not claimable",
            "worker-a: refused, stale or wrong token",
            "worker-a: completed",
        ]
    );
}

#[test]
fn the_lease_timeline_and_the_stalled_worker() {
    // Exercise 3: the timeline at minutes 0, 5, 10, 20 and 25.
    let mut w = world("leases-and-the-handover");
    let a = w.start_process("worker-a").unwrap();
    let b = w.start_process("worker-b").unwrap();
    let msg2 = [("message_id", Value::from("msg-2"))];
    let mut lines = Vec::new();
    for (minute, process, actor) in [
        (0, a, "worker-a"),
        (5, a, "worker-a"),
        (10, b, "worker-b"),
        (20, b, "worker-b"),
        (25, a, "worker-a"),
    ] {
        w.set_clock(minute * 60);
        lines.push(claim_line(actor, &call(&mut w, process, "claim", &msg2)));
    }
    assert_eq!(
        lines,
        [
            "worker-a: claimed with FRESH token 3",
            "worker-a: still mine, SAME token 3",
            "worker-b: refused, unexpired lease held by worker-a",
            "worker-b: claimed with FRESH token 5",
            "worker-a: refused, unexpired lease held by worker-b",
        ]
    );

    // Exercise 4: worker-a stalled past its lease and completes with the
    // token its lapsed claim returned; worker-b holds the current one.
    let mut w = world("the-stalled-worker");
    let a = w.start_process("worker-a").unwrap();
    let b = w.start_process("worker-b").unwrap();
    let mut tokens = BTreeMap::new();
    for (minute, process) in [(0, a), (10, b), (20, b)] {
        w.set_clock(minute * 60);
        if let outcome @ Outcome::Ok { .. } = call(&mut w, process, "claim", &msg2) {
            tokens.insert(process, value(&outcome, "token"));
        }
    }
    w.set_clock(25 * 60);
    let mut lines = Vec::new();
    for (process, actor) in [(a, "worker-a"), (b, "worker-b")] {
        let outcome = call(
            &mut w,
            process,
            "complete",
            &[
                ("message_id", "msg-2".into()),
                ("token", tokens[&process].clone()),
            ],
        );
        lines.push(complete_line(actor, &outcome));
    }
    assert_eq!(tokens[&a], Value::from(3));
    assert_eq!(tokens[&b], Value::from(5));
    assert_eq!(
        lines,
        [
            "worker-a: refused, stale or wrong token",
            "worker-b: completed"
        ]
    );
}

#[test]
fn the_retry_budget_ends_in_dead() {
    let mut w = world("retry-budget-and-dead-letters");
    let a = w.start_process("worker-a").unwrap();
    let msg3 = [("message_id", Value::from("msg-3"))];
    let mut lines = Vec::new();
    for attempt in 0..4 {
        w.set_clock((100 + attempt) * 60);
        let token = value(&call(&mut w, a, "claim", &msg3), "token");
        let outcome = call(
            &mut w,
            a,
            "dead_letter",
            &[("message_id", "msg-3".into()), ("token", token)],
        );
        let verdict = match &outcome {
            Outcome::Ok { .. } => bare(&value(&outcome, "verdict")),
            Outcome::Refused { reason, .. } => format!("refused: {reason}"),
            Outcome::Error(error) => panic!("{error:?}"),
        };
        lines.push(format!("attempt {attempt}: {verdict}"));
    }
    let last = row(
        &w,
        "SELECT state, retry_count FROM messages WHERE id = 'msg-3'",
    );
    lines.push(format!("final: ({}, {})", last[0], last[1]));
    assert_eq!(
        lines,
        [
            "attempt 0: retried",
            "attempt 1: retried",
            "attempt 2: retried",
            "attempt 3: dead-lettered",
            "final: ('DEAD', 3)",
        ]
    );
    // DEAD parks the message; it does not delete it.
    assert_eq!(
        row(&w, "SELECT body FROM messages WHERE id = 'msg-3'"),
        [Value::from("Call the supplier")]
    );
}

#[test]
fn the_actor_lease_observations() {
    let mut w = world("actor-leases");
    let a = w.start_process("operator-course").unwrap();
    let b = w.start_process("operator-course").unwrap();
    let acquired = call(&mut w, a, "acquire_actor_lease", &[]);
    let held = call(&mut w, b, "acquire_actor_lease", &[]);
    let released = call(
        &mut w,
        a,
        "release_actor_lease",
        &[("token", value(&acquired, "token"))],
    );
    let released = match value(&released, "released") {
        Value::Integer(1) => "True",
        Value::Integer(0) => "False",
        other => panic!("released = {other}"),
    };
    let cleanly = call(&mut w, b, "acquire_actor_lease", &[]);
    let observed = json!({
        "actor_lease_cas": {
            "process_a_acquired": observation(&acquired, "token", "token"),
            "process_b_while_a_holds_it": observation(&held, "token", "token"),
            "process_a_released": released,
            "process_b_now_acquires_cleanly": observation(&cleanly, "token", "token"),
        }
    });
    assert_eq!(
        observed,
        json!({
            "actor_lease_cas": {
                "process_a_acquired": "token=1",
                "process_b_while_a_holds_it": "refused: actor_lease_held",
                "process_a_released": "True",
                "process_b_now_acquires_cleanly": "token=2"
            }
        })
    );
}

/// The direct calls: an attempt under the lease, a second attempt on the
/// same assignment, and a stale lease token (the lesson's
/// `execution_attempt_fencing` block, the attempt id elided after its
/// prefix as the lesson prints it: `attempt_id=att_...`).
fn the_direct_attempt_calls() -> serde_json::Value {
    let mut w = world("execution-attempts");
    let a = w.start_process("operator-course").unwrap();
    let lease = call(&mut w, a, "acquire_actor_lease", &[]);
    let lease_token = value(&lease, "lease_token");
    let attempt = |w: &mut World, assignment: &str, token: Value| {
        call(
            w,
            a,
            "acquire_execution_attempt",
            &[("assignment_id", assignment.into()), ("lease_token", token)],
        )
    };
    let acquired = attempt(&mut w, "asg-1", lease_token.clone());
    let second = attempt(&mut w, "asg-1", lease_token);
    let stale = attempt(&mut w, "asg-2", Value::from(-1));
    let acquired_line = observation(&acquired, "attempt_id", "attempt_id");
    assert!(
        acquired_line.starts_with("attempt_id=att_"),
        "{acquired_line}"
    );
    json!({
        "acquired": "attempt_id=att_...",
        "second_attempt_same_assignment": observation(&second, "attempt_id", "attempt_id"),
        "stale_lease_token": observation(&stale, "attempt_id", "attempt_id"),
    })
}

/// The decisive property, through the ordinary run path: a second process
/// of the same actor, a different assignment, refused until the first
/// finishes; the lesson's other three lines.
fn a_second_process_of_the_same_actor() -> serde_json::Value {
    let mut w2 = world("execution-attempts");
    let p = w2.start_process("operator-course").unwrap();
    let q = w2.start_process("operator-course").unwrap();
    let start = |w: &mut World, process: ProcessId, assignment: &str| {
        call(
            w,
            process,
            "start_assignment",
            &[("assignment_id", assignment.into())],
        )
    };
    let started = start(&mut w2, p, "asg-1");
    let refused = start(&mut w2, q, "asg-2");
    let never_running = row(&w2, "SELECT state FROM assignments WHERE id = 'asg-2'");
    let finish = |w: &mut World, process: ProcessId, assignment: &str, started: &Outcome| {
        call(
            w,
            process,
            "finish_assignment",
            &[
                ("assignment_id", assignment.into()),
                ("attempt_token", value(started, "attempt_token")),
                ("lease_token", value(started, "lease_token")),
            ],
        )
    };
    let finished = finish(&mut w2, p, "asg-1", &started);
    assert!(matches!(finished, Outcome::Ok { .. }), "{finished:?}");
    let next = start(&mut w2, q, "asg-2");
    let next_finished = finish(&mut w2, q, "asg-2", &next);
    assert!(
        matches!(next_finished, Outcome::Ok { .. }),
        "{next_finished:?}"
    );
    let after_release = row(&w2, "SELECT state FROM assignments WHERE id = 'asg-2'");
    let (outcome, category) = match &refused {
        Outcome::Refused { category, .. } => ("refused", category.clone()),
        other => panic!("expected a refusal, got {other:?}"),
    };
    json!({
        "second_process_same_actor_different_assignment": {
            "outcome": outcome,
            "category": category,
        },
        "assignment_never_reached_running": bare(&never_running[0]),
        "same_actor_next_assignment_after_release": bare(&after_release[0]),
    })
}

#[test]
fn the_execution_attempt_observations() {
    let mut observed = a_second_process_of_the_same_actor();
    observed["execution_attempt_fencing"] = the_direct_attempt_calls();
    assert_eq!(
        observed,
        json!({
            "execution_attempt_fencing": {
                "acquired": "attempt_id=att_...",
                "second_attempt_same_assignment": "refused: execution_attempt_held",
                "stale_lease_token": "refused: actor_lease_lost"
            },
            "second_process_same_actor_different_assignment": {
                "outcome": "refused",
                "category": "actor_lease_held"
            },
            "assignment_never_reached_running": "CREATED",
            "same_actor_next_assignment_after_release": "COMPLETED"
        })
    );
}

#[test]
fn the_session_incarnations() {
    let mut w = world("session-incarnations");
    let host_a = w.start_process("host-a").unwrap();
    let host_b = w.start_process("host-b").unwrap();
    let session = |ttl: i64| {
        [
            ("session_id", Value::from("session-1")),
            ("ttl", ttl.into()),
        ]
    };
    let mut incarnations = Vec::new();
    call(&mut w, host_a, "start_host", &[]);
    let a_claim = call(&mut w, host_a, "claim_session", &session(10));
    incarnations.push(value(&a_claim, "incarnation"));
    w.set_clock(20);
    call(&mut w, host_b, "start_host", &[]);
    let b_claim = call(&mut w, host_b, "claim_session", &session(60));
    incarnations.push(value(&b_claim, "incarnation"));
    let finish = |w: &mut World, process: ProcessId, claim: &Outcome, result: &str| {
        call(
            w,
            process,
            "finish_session",
            &[
                ("session_id", "session-1".into()),
                ("incarnation", value(claim, "incarnation")),
                ("result", result.into()),
            ],
        )
    };
    let a_finish = finish(&mut w, host_a, &a_claim, "stale result");
    let b_finish = finish(&mut w, host_b, &b_claim, "current result");
    let stored = row(
        &w,
        "SELECT host_id, incarnation, result FROM session_completions WHERE session_id = 'session-1'",
    );

    // The second test: a 10-second claim finished at t=11.
    let mut w = world("session-incarnations");
    let host = w.start_process("host-a").unwrap();
    call(&mut w, host, "start_host", &[]);
    let claim = call(&mut w, host, "claim_session", &session(10));
    w.set_clock(11);
    let late = finish(&mut w, host, &claim, "late result");

    let shown = |outcome: &Outcome| match outcome {
        Outcome::Ok { .. } => "stored".to_string(),
        Outcome::Refused { reason, .. } => format!("refused ({reason})"),
        Outcome::Error(error) => panic!("{error:?}"),
    };
    let incarnations: Vec<String> = incarnations.iter().map(Value::to_string).collect();
    let lines = [
        format!("incarnations [{}]", incarnations.join(", ")),
        format!("host-a finish: {}", shown(&a_finish)),
        format!("host-b finish: {}", shown(&b_finish)),
        format!("completion: ({}, {}, {})", stored[0], stored[1], stored[2]),
        format!("ttl 10 s, finished at t=11: {}", shown(&late)),
    ];
    assert_eq!(
        lines,
        [
            "incarnations [1, 2]",
            "host-a finish: refused (stale or expired session incarnation)",
            "host-b finish: stored",
            "completion: ('host-b', 2, 'current result')",
            "ttl 10 s, finished at t=11: refused (stale or expired session incarnation)",
        ]
    );
}

#[test]
fn a_stale_generation_is_rejected() {
    let mut w = world("a-generation-per-resource");
    let worker = w.start_process("worker-a").unwrap();
    let authority = w.start_process("authority").unwrap();
    let fund_a = [("resource", Value::from("fund-A"))];
    let read = call(&mut w, worker, "read_generation", &fund_a);
    let seen = value(&read, "generation");
    let installed = call(
        &mut w,
        authority,
        "install_generation",
        &[("resource", "fund-A".into()), ("generation", 2.into())],
    );
    let applied = call(
        &mut w,
        worker,
        "apply",
        &[
            ("resource", "fund-A".into()),
            ("generation", seen.clone()),
            ("delta", 5.into()),
        ],
    );
    let verdict = match &applied {
        Outcome::Refused { .. } => "rejected",
        Outcome::Ok { .. } => "accepted",
        Outcome::Error(error) => panic!("{error:?}"),
    };
    let line = format!(
        "A reads generation {seen}; the destination installs {}; apply(A,{seen}) is {verdict}.",
        value(&installed, "generation")
    );
    assert_eq!(
        line,
        "A reads generation 1; the destination installs 2; apply(A,1) is rejected."
    );
}

#[test]
fn a_replay_returns_the_original_result() {
    let mut w = world("authority-does-not-dedupe");
    let worker = w.start_process("worker-a").unwrap();
    let mut apply = |request: &str, delta: i64| {
        let outcome = call(
            &mut w,
            worker,
            "apply",
            &[
                ("resource", "fund-A".into()),
                ("generation", 1.into()),
                ("request_id", request.into()),
                ("delta", delta.into()),
            ],
        );
        value(&outcome, "value")
    };
    let r1 = apply("r1", 7);
    let r2 = apply("r2", 5);
    let replay = apply("r1", 7);
    let current = row(&w, "SELECT value FROM resources WHERE id = 'fund-A'");
    let lines = [
        format!("r1 returned {r1}"),
        format!("r2 took the value to {r2}"),
        format!("replaying r1 returns {replay}"),
        format!("current value {}", current[0]),
    ];
    assert_eq!(
        lines,
        [
            "r1 returned 7",
            "r2 took the value to 12",
            "replaying r1 returns 7",
            "current value 12",
        ]
    );
}

/// The procedure texts of an exercise: the learner's starting texts, or the
/// references.
fn texts(exercise: &Exercise, start: bool) -> Vec<(String, String)> {
    exercise
        .procedures
        .iter()
        .map(|p| {
            let text = if start && p.editable {
                &p.start
            } else {
                &p.reference
            };
            (p.name.clone(), text.clone())
        })
        .collect()
}

/// The verdict of one named scenario of an exercise on these texts.
fn verdict(exercise: &Exercise, scenario: &str, texts: &[(String, String)]) -> Verdict {
    let scenario = exercise
        .scenarios
        .iter()
        .find(|s| s.name == scenario)
        .unwrap_or_else(|| panic!("{}: no scenario `{scenario}`", exercise.id))
        .clone();
    exercise
        .run_texts(texts, &[scenario])
        .scenarios
        .remove(0)
        .verdict()
}

#[test]
fn each_incident_fails_on_the_starting_text_and_passes_on_the_reference() {
    // The third lesson: each exercise reproduces one real incident's
    // interleaving. The learner's starting text has the incident's bug, so
    // that interleaving fails there; the reference is the maintainers' fix,
    // so it passes.
    let incidents = [
        // riverqueue/river#1302, fixed in #1373.
        (
            "the-rescuer-and-the-finished-job",
            "the worker completes between fetch and rescue",
        ),
        (
            "the-rescuer-and-the-finished-job",
            "a fresh attempt after the fetch",
        ),
        // etcd-io/etcd#9921 and #11456, fixed by #11408.
        (
            "the-lock-granted-too-late",
            "the lease runs out while waiting",
        ),
        // Kleppmann, "How to do distributed locking" (2016).
        (
            "the-storage-that-checks-the-token",
            "the client that paused past its lease",
        ),
        // Amazon SQS's visibility timeout and receipt handles.
        (
            "the-stale-receipt",
            "the consumer that stalled past its timeout",
        ),
        // idempot-dev/idempot-js#182: an overwriting claim, taken after the look.
        (
            "the-key-checked-then-inserted",
            "a retry while the first request is in flight",
        ),
        // client-go's leaderelection: no fencing.
        (
            "the-leader-that-kept-acting",
            "the leader that stalled past its lease",
        ),
        // KAFKA-9144, fixed by apache/kafka#7687.
        (
            "the-epoch-that-went-back",
            "the abort that made the producer look idle",
        ),
        // etcd-io/etcd#22082, with the fix of #22115.
        (
            "the-unlock-that-came-back",
            "the unlock retried after a relock",
        ),
        // CURATOR-460, fixed by apache/curator#262.
        (
            "the-suspended-leader",
            "the leader suspended past its session",
        ),
        // hexpm/hexpm#1825: Oban's Lifeline rescued a running job.
        ("the-rescue-of-running-jobs", "the night of 11 August"),
        // awslabs/amazon-dynamodb-lock-client#1: a random record version.
        (
            "the-lock-with-a-random-version",
            "the client that paused past its lease",
        ),
    ];
    for (id, scenario) in incidents {
        let exercise = exercise(id);
        assert_eq!(exercise.lesson, "Fences in the wild", "{id}");
        assert_eq!(
            verdict(&exercise, scenario, &texts(&exercise, true)),
            Verdict::Failed,
            "{id}: `{scenario}` on the starting text"
        );
        assert_eq!(
            verdict(&exercise, scenario, &texts(&exercise, false)),
            Verdict::Passed,
            "{id}: `{scenario}` on the reference"
        );
    }
}

#[test]
fn contention_is_shown_as_a_wait_and_then_the_step_going_through() {
    // The second lesson's observation: while worker A holds its transaction,
    // worker B's apply is turned away by the lock (it waits), and after A's
    // COMMIT it goes through: contention is not rejection.
    let exercise = exercise("decide-in-the-transaction");
    let scenario = exercise
        .scenarios
        .iter()
        .find(|s| s.name == "contention is not rejection")
        .unwrap()
        .clone();
    let report = exercise
        .run_texts(&texts(&exercise, false), &[scenario])
        .scenarios
        .remove(0);
    assert_eq!(report.verdict(), Verdict::Passed);
    let mut lines = Vec::new();
    for event in &report.history {
        let actor = event.actor.as_deref().unwrap_or("-");
        match &event.what {
            What::Blocked { sql } => lines.push(format!(
                "{actor}: waits for the lock at {}",
                sql.trim_end_matches(';')
            )),
            What::Statement { sql, .. } if sql.trim().trim_end_matches(';') == "COMMIT" => {
                lines.push(format!("{actor}: COMMIT"))
            }
            What::CallFinished { outcome, .. } => lines.push(format!(
                "{actor}: {}",
                observation(outcome, "value", "value")
            )),
            _ => {}
        }
    }
    assert_eq!(
        lines,
        [
            "worker-b: waits for the lock at BEGIN IMMEDIATE",
            "worker-a: COMMIT",
            "worker-a: value=5",
            "worker-b: COMMIT",
            "worker-b: value=8",
        ],
        "shown schedule {}",
        report.schedule
    );
}
