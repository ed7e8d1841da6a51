//! The first lesson's runnable toy mailbox, driven step by step through the
//! engine, with the lesson's printed observations as expectations.
//!
//! The same source runs natively and under wasm-bindgen-test (Node and
//! Chromium), and the history of the whole drive must equal the committed
//! golden file on every platform: that is the determinism property.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use crate::common::{claim_line, complete_line, values};
use fencelab_core::history::What;
use fencelab_core::{Outcome, Procedure, ProcessId, StepResult, Value, Values, World};

/// The toy mailbox with the lesson's three messages.
const SCHEMA: &str = concat!(
    include_str!("../schemas/mailbox.sql"),
    "INSERT INTO messages(id, body, state) VALUES
  ('msg-1', 'Restock vanilla', 'NEW'),
  ('msg-2', 'Order cones', 'NEW'),
  ('msg-3', 'Call the supplier', 'NEW');"
);

/// Reads, decides in "code", then writes: the broken claim.
const NAIVE_CLAIM: &str = "
SELECT state FROM messages WHERE id = :message_id AND state = 'NEW';
-- @refuse not_claimable unless returned 1: not claimable
UPDATE messages SET state = 'CLAIMED', claim_owner = :actor WHERE id = :message_id;
";

/// Mints, then decides and writes in one compare-and-set. Like the lesson's
/// toy, it mints outside any transaction, so a refused claim burns a number.
const CAS_CLAIM: &str = "
INSERT INTO lease_tokens(kind) VALUES ('mailbox_claim') RETURNING token;
UPDATE messages SET state = 'CLAIMED', claim_owner = :actor, fencing_token = :token
 WHERE id = :message_id AND state = 'NEW';
-- @refuse not_claimable unless changed 1: not claimable
-- @return token
";

const COMPLETE: &str = "
UPDATE messages SET state = 'DONE'
 WHERE id = :message_id AND claim_owner = :actor AND fencing_token IS :token;
-- @refuse fencing_token_stale unless changed 1: stale or wrong token
";

/// Renewal inside one's own lease keeps the token; anything else mints.
const LEASED_CLAIM: &str = "
SELECT fencing_token AS token, 'same' AS freshness FROM messages
 WHERE id = :message_id AND claim_owner = :actor AND claim_expires_at > :now;
-- @return token, freshness if returned 1
SELECT claim_owner AS holder FROM messages WHERE id = :message_id;
INSERT INTO lease_tokens(kind) VALUES ('mailbox_claim') RETURNING token, 'fresh' AS freshness;
UPDATE messages
   SET state = 'CLAIMED', claim_owner = :actor, fencing_token = :token,
       claim_expires_at = :now + :lease_seconds
 WHERE id = :message_id AND (state = 'NEW' OR claim_expires_at <= :now);
-- @refuse lease_held unless changed 1: unexpired lease held by {holder}
-- @return token, freshness
";

/// Retry within the budget, else park the message as DEAD; either way only
/// under the presented token, compared null-safely.
const DEAD_LETTER: &str = "
UPDATE messages
   SET state = CASE WHEN retry_count < :max_retries THEN 'NEW' ELSE 'DEAD' END,
       claim_owner = CASE WHEN retry_count < :max_retries THEN NULL ELSE claim_owner END,
       claim_expires_at = CASE WHEN retry_count < :max_retries THEN NULL ELSE claim_expires_at END,
       fencing_token = CASE WHEN retry_count < :max_retries THEN NULL ELSE fencing_token END,
       retry_count = CASE WHEN retry_count < :max_retries THEN retry_count + 1 ELSE retry_count END
 WHERE id = :message_id AND fencing_token IS :token
RETURNING CASE state WHEN 'DEAD' THEN 'dead-lettered' ELSE 'retried' END AS verdict;
-- @refuse fencing_token_stale unless changed 1: stale in-memory message, re-read before retrying
-- @return verdict
";

const LEASE_SECONDS: i64 = 15 * 60;

fn world() -> World {
    let procedures = [
        ("naive_claim", NAIVE_CLAIM),
        ("claim", CAS_CLAIM),
        ("complete", COMPLETE),
        ("claim_leased", LEASED_CLAIM),
        ("dead_letter", DEAD_LETTER),
    ]
    .map(|(name, text)| Procedure::parse(name, text).unwrap());
    let constants = values(&[
        ("lease_seconds", LEASE_SECONDS.into()),
        ("max_retries", 3.into()),
    ]);
    World::new(SCHEMA, procedures, constants).unwrap()
}

fn message(id: &str) -> Values {
    values(&[("message_id", id.into())])
}

fn with_token(id: &str, token: i64) -> Values {
    values(&[("message_id", id.into()), ("token", token.into())])
}

fn one_value(world: &World, sql: &str) -> Value {
    world.query(sql, &Values::new()).unwrap().rows[0][0].clone()
}

fn token_of(outcome: &Outcome) -> i64 {
    match outcome {
        Outcome::Ok { values } => values["token"].as_i64().unwrap(),
        other => panic!("expected a token, got {other:?}"),
    }
}

/// Drives the whole toy and returns the lines it prints, as the lesson does.
fn drive_the_toy(world: &mut World) -> Vec<String> {
    let mut lines = Vec::new();
    let a = world.start_process("worker-a").unwrap();
    let b = world.start_process("worker-b").unwrap();

    // Both read before either writes: the interleaving two busy processes produce.
    world.call(a, "naive_claim", message("msg-1")).unwrap();
    world.call(b, "naive_claim", message("msg-1")).unwrap();
    assert_eq!(world.step(a).unwrap(), StepResult::Ran);
    assert_eq!(world.step(b).unwrap(), StepResult::Ran);
    let a_outcome = step_to_end(world, a);
    let b_outcome = step_to_end(world, b);
    for (actor, outcome) in [("worker-a", &a_outcome), ("worker-b", &b_outcome)] {
        let believes = matches!(outcome, Outcome::Ok { .. });
        lines.push(format!("{actor} believes it owns msg-1: {believes}"));
    }
    let owner = one_value(world, "SELECT claim_owner FROM messages WHERE id = 'msg-1'");
    lines.push(format!("owner on disk: {}", owner.as_str().unwrap()));

    world
        .execute_direct(
            "UPDATE messages SET state = 'NEW', claim_owner = NULL, fencing_token = NULL",
        )
        .unwrap();
    let a_claim = world.run_call(a, "claim", message("msg-1")).unwrap();
    lines.push(claim_line("worker-a", &a_claim));
    let b_claim = world.run_call(b, "claim", message("msg-1")).unwrap();
    lines.push(claim_line("worker-b", &b_claim));

    let wrong = world
        .run_call(a, "complete", with_token("msg-1", 99))
        .unwrap();
    lines.push(complete_line("worker-a", &wrong));
    let right = world
        .run_call(a, "complete", with_token("msg-1", token_of(&a_claim)))
        .unwrap();
    lines.push(complete_line("worker-a", &right));

    // The lease timeline, in minutes.
    let mut a_token = 0;
    let mut b_token = 0;
    for (minute, process, actor) in [
        (0, a, "worker-a"),
        (5, a, "worker-a"),
        (10, b, "worker-b"),
        (20, b, "worker-b"),
        (25, a, "worker-a"),
    ] {
        world.set_clock(minute * 60);
        let outcome = world
            .run_call(process, "claim_leased", message("msg-2"))
            .unwrap();
        if let Outcome::Ok { .. } = outcome {
            *if process == a {
                &mut a_token
            } else {
                &mut b_token
            } = token_of(&outcome);
        }
        lines.push(claim_line(actor, &outcome));
    }

    // worker-a stalled past its lease; it still presents the token it was given.
    let stale = world
        .run_call(a, "complete", with_token("msg-2", a_token))
        .unwrap();
    lines.push(complete_line("worker-a", &stale));
    let current = world
        .run_call(b, "complete", with_token("msg-2", b_token))
        .unwrap();
    lines.push(complete_line("worker-b", &current));

    for attempt in 0..4 {
        world.set_clock((100 + attempt) * 60);
        let claim = world.run_call(a, "claim_leased", message("msg-3")).unwrap();
        let verdict = world
            .run_call(a, "dead_letter", with_token("msg-3", token_of(&claim)))
            .unwrap();
        let Outcome::Ok { values } = verdict else {
            panic!("dead_letter: {verdict:?}")
        };
        lines.push(format!(
            "attempt {attempt}: {}",
            values["verdict"].as_str().unwrap()
        ));
    }
    let final_row = world
        .query(
            "SELECT state, retry_count FROM messages WHERE id = 'msg-3'",
            &Values::new(),
        )
        .unwrap();
    lines.push(format!(
        "final: ({}, {})",
        final_row.rows[0][0], final_row.rows[0][1]
    ));
    lines
}

fn step_to_end(world: &mut World, id: ProcessId) -> Outcome {
    loop {
        if let StepResult::Finished(outcome) = world.step(id).unwrap() {
            return outcome;
        }
    }
}

#[test]
fn the_toy_reproduces_the_lessons_observations() {
    let mut world = world();
    let lines = drive_the_toy(&mut world);
    let expected = [
        "worker-a believes it owns msg-1: true",
        "worker-b believes it owns msg-1: true",
        "owner on disk: worker-b",
        "worker-a: claimed with token 1",
        "worker-b: refused, not claimable",
        "worker-a: refused, stale or wrong token",
        "worker-a: completed",
        "worker-a: claimed with FRESH token 3",
        "worker-a: still mine, SAME token 3",
        "worker-b: refused, unexpired lease held by worker-a",
        "worker-b: claimed with FRESH token 5",
        "worker-a: refused, unexpired lease held by worker-b",
        "worker-a: refused, stale or wrong token",
        "worker-b: completed",
        "attempt 0: retried",
        "attempt 1: retried",
        "attempt 2: retried",
        "attempt 3: dead-lettered",
        "final: ('DEAD', 3)",
    ];
    assert_eq!(lines, expected);
    // DEAD is a parking spot, not a deletion: the body is still there.
    assert_eq!(
        one_value(&world, "SELECT body FROM messages WHERE id = 'msg-3'"),
        Value::from("Call the supplier")
    );
}

#[test]
fn the_history_is_identical_on_every_platform() {
    let mut world = world();
    drive_the_toy(&mut world);
    let json = serde_json::to_string_pretty(world.history()).unwrap();
    let golden = include_str!("../golden/toy-history.json");
    #[cfg(not(target_arch = "wasm32"))]
    if std::env::var_os("FENCELAB_UPDATE_GOLDEN").is_some() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden/toy-history.json");
        std::fs::write(path, format!("{json}\n")).unwrap();
        return;
    }
    assert!(
        json.trim_end() == golden.trim_end(),
        "the history differs from tests/golden/toy-history.json; \
         rerun natively with FENCELAB_UPDATE_GOLDEN=1 and review the diff"
    );
}

#[test]
fn a_refused_claim_rolls_back_its_mint_inside_a_transaction() {
    let mut world = world();
    world.set_procedure(
        Procedure::parse(
            "claim",
            "BEGIN IMMEDIATE;
             INSERT INTO lease_tokens(kind) VALUES ('mailbox_claim') RETURNING token;
             UPDATE messages SET state = 'CLAIMED', claim_owner = :actor, fencing_token = :token
              WHERE id = :message_id AND state = 'NEW';
             -- @refuse not_claimable unless changed 1
             COMMIT;
             -- @return token",
        )
        .unwrap(),
    );
    let a = world.start_process("worker-a").unwrap();
    let b = world.start_process("worker-b").unwrap();
    assert_eq!(
        token_of(&world.run_call(a, "claim", message("msg-1")).unwrap()),
        1
    );
    let refused = world.run_call(b, "claim", message("msg-1")).unwrap();
    assert!(matches!(&refused, Outcome::Refused { category, .. } if category == "not_claimable"));
    // The refused claim's mint rolled back with it, so the next mint is 2.
    assert_eq!(
        token_of(&world.run_call(b, "claim", message("msg-2")).unwrap()),
        2
    );
    let finished = world.history().iter().rev().find(|e| {
        matches!(
            &e.what,
            What::CallFinished {
                outcome: Outcome::Refused { .. },
                ..
            }
        )
    });
    assert!(matches!(
        finished.map(|e| &e.what),
        Some(What::CallFinished {
            rolled_back: true,
            ..
        })
    ));
}

#[test]
fn a_restarted_process_of_the_same_actor_is_a_different_process() {
    let mut world = world();
    let old = world.start_process("worker-a").unwrap();
    world.set_clock(0);
    let first = token_of(
        &world
            .run_call(old, "claim_leased", message("msg-2"))
            .unwrap(),
    );
    // The old process stalls; a new process of the same actor starts after
    // the lease expired and reclaims with a fresh token.
    let new = world.start_process("worker-a").unwrap();
    assert_eq!(
        (old.to_string(), new.to_string()),
        ("proc-1".into(), "proc-2".into())
    );
    world.set_clock(LEASE_SECONDS + 1);
    let second = token_of(
        &world
            .run_call(new, "claim_leased", message("msg-2"))
            .unwrap(),
    );
    assert!(second > first);
    // The owner name matches; only the token refuses the old process.
    let stale = world
        .run_call(old, "complete", with_token("msg-2", first))
        .unwrap();
    assert!(
        matches!(&stale, Outcome::Refused { category, .. } if category == "fencing_token_stale")
    );
    let current = world
        .run_call(new, "complete", with_token("msg-2", second))
        .unwrap();
    assert!(matches!(current, Outcome::Ok { .. }));
}
