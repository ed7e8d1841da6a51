//! The facts the lesson "Same fence, another database" teaches, as the
//! server shows them through sessions stepped one statement at a time.

mod common;

use common::*;
use fencelab_postgres::{ErrorKind, Isolation, Reply, Settled, settle_first};

const JOBS: &str = "CREATE TABLE jobs (id int PRIMARY KEY, state text NOT NULL);
     INSERT INTO jobs VALUES (1, 'NEW'), (2, 'NEW');";

/// The loser of `UPDATE ... WHERE state = 'NEW'` waits on the row lock and,
/// once the winner commits, re-checks its WHERE and changes nothing.
#[test]
fn a_second_claim_waits_then_rechecks_its_where_and_changes_nothing() {
    let Some(mut world) = world(JOBS) else { return };
    let observer = world.observer().unwrap();
    let mut a = world.session(Isolation::ReadCommitted).unwrap();
    let mut b = world.session(Isolation::ReadCommitted).unwrap();
    let claim = "UPDATE jobs SET state = 'TAKEN' WHERE id = 1 AND state = 'NEW'";
    run(&mut a, &observer, "BEGIN");
    assert_eq!(changed(&run(&mut a, &observer, claim)), 1);
    b.send(claim, &[]).unwrap();
    assert_eq!(b.settle(&observer).unwrap(), Settled::Waiting);
    assert_eq!(
        b.settle(&observer).unwrap(),
        Settled::Waiting,
        "still waiting while the holder has not moved"
    );
    run(&mut a, &observer, "COMMIT");
    assert_eq!(
        changed(&settle_done(&mut b, &observer)),
        0,
        "the re-checked WHERE no longer matches"
    );
    let committed = world.committed().unwrap();
    assert_eq!(
        committed[0].rows,
        vec![vec![int(1), text("TAKEN")], vec![int(2), text("NEW")]]
    );
}

/// Two transactions that lock two rows in opposite orders: the server
/// fails one of them with 40P01, and the other goes on.
#[test]
fn a_deadlock_fails_one_of_the_two() {
    let Some(mut world) = world(JOBS) else { return };
    let observer = world.observer().unwrap();
    let mut a = world.session(Isolation::ReadCommitted).unwrap();
    let mut b = world.session(Isolation::ReadCommitted).unwrap();
    run(&mut a, &observer, "BEGIN");
    run(&mut b, &observer, "BEGIN");
    run(
        &mut a,
        &observer,
        "UPDATE jobs SET state = 'A' WHERE id = 1",
    );
    run(
        &mut b,
        &observer,
        "UPDATE jobs SET state = 'B' WHERE id = 2",
    );
    a.send("UPDATE jobs SET state = 'A' WHERE id = 2", &[])
        .unwrap();
    assert_eq!(a.settle(&observer).unwrap(), Settled::Waiting);
    b.send("UPDATE jobs SET state = 'B' WHERE id = 1", &[])
        .unwrap();
    // Both wait: only the server can move, breaking the cycle after its
    // deadlock_timeout. Which one it fails is the server's choice (the
    // backend whose own check first finds the cycle: on a loaded machine
    // a's can run after b began to wait), so the test asks, not assumes.
    let (first, reply) = match b.settle(&observer).unwrap() {
        Settled::Done(reply) => (1, reply),
        Settled::Waiting => settle_first(&mut [&mut a, &mut b], &observer).unwrap(),
    };
    let (victim_reply, survivor_reply) = match &reply {
        Reply::Failed(_) => {
            let survivor = if first == 0 { &mut b } else { &mut a };
            (reply.clone(), settle_done(survivor, &observer))
        }
        // The first to finish went through: the other was the victim.
        Reply::Rows { .. } => {
            let victim = if first == 0 { &mut b } else { &mut a };
            (settle_done(victim, &observer), reply.clone())
        }
    };
    assert_eq!(failure(&victim_reply).kind(), ErrorKind::Deadlock);
    assert_eq!(
        changed(&survivor_reply),
        1,
        "the survivor's update goes through once the victim is rolled back"
    );
    assert!(
        a.in_transaction() && b.in_transaction(),
        "the victim's transaction is aborted, not ended"
    );
}

/// Write skew under SERIALIZABLE: two doctors each see two on call and go
/// off call; the server refuses one with 40001.
#[test]
fn serializable_write_skew_is_a_serialization_failure() {
    let schema = "CREATE TABLE doctors (name text PRIMARY KEY, on_call boolean NOT NULL);
                  INSERT INTO doctors VALUES ('alice', true), ('bob', true);";
    let Some(mut world) = world(schema) else {
        return;
    };
    let observer = world.observer().unwrap();
    let mut a = world.session(Isolation::Serializable).unwrap();
    let mut b = world.session(Isolation::Serializable).unwrap();
    let count = "SELECT count(*) FROM doctors WHERE on_call";
    let mut outcomes = Vec::new();
    for (session, name) in [(&mut a, "alice"), (&mut b, "bob")] {
        run(session, &observer, "BEGIN");
        assert_eq!(rows(&run(session, &observer, count)), vec![vec![int(2)]]);
        let off = "UPDATE doctors SET on_call = false WHERE name = :name";
        outcomes.push(run_with(session, &observer, off, &[("name", text(name))]));
    }
    outcomes.push(run(&mut a, &observer, "COMMIT"));
    outcomes.push(settle_or_run(&mut b, &observer, "COMMIT"));
    let failures: Vec<_> = outcomes
        .iter()
        .filter_map(|reply| match reply {
            Reply::Failed(error) => Some(error.kind()),
            _ => None,
        })
        .collect();
    assert_eq!(
        failures,
        vec![ErrorKind::SerializationFailure],
        "{outcomes:?}"
    );
    assert_eq!(rows(&run(&mut a, &observer, count)), vec![vec![int(1)]]);
}

fn settle_or_run(
    session: &mut fencelab_postgres::Session,
    observer: &fencelab_postgres::Observer,
    sql: &str,
) -> Reply {
    session.send(sql, &[]).unwrap();
    settle_done(session, observer)
}

/// `INSERT ... SELECT ... WHERE NOT EXISTS` without a unique key: at read
/// committed neither sees the other's uncommitted row, and both insert.
#[test]
fn insert_if_absent_without_a_unique_key_lets_two_through() {
    let Some(mut world) = world("CREATE TABLE claims (key text NOT NULL, owner text NOT NULL);")
    else {
        return;
    };
    let observer = world.observer().unwrap();
    let mut a = world.session(Isolation::ReadCommitted).unwrap();
    let mut b = world.session(Isolation::ReadCommitted).unwrap();
    let insert = "INSERT INTO claims (key, owner) SELECT :key, :owner
                  WHERE NOT EXISTS (SELECT 1 FROM claims WHERE key = :key)";
    run(&mut a, &observer, "BEGIN");
    run(&mut b, &observer, "BEGIN");
    assert_eq!(
        changed(&run_with(
            &mut a,
            &observer,
            insert,
            &[("key", text("k")), ("owner", text("a"))]
        )),
        1
    );
    assert_eq!(
        changed(&run_with(
            &mut b,
            &observer,
            insert,
            &[("key", text("k")), ("owner", text("b"))]
        )),
        1
    );
    run(&mut a, &observer, "COMMIT");
    run(&mut b, &observer, "COMMIT");
    let committed = world.committed().unwrap();
    assert_eq!(
        committed[0].rows,
        vec![vec![text("k"), text("a")], vec![text("k"), text("b")]]
    );
}

/// A sequence's number taken in a transaction that rolls back is gone.
#[test]
fn a_sequence_burns_its_numbers_on_rollback() {
    let Some(mut world) = world("CREATE TABLE tokens (id bigserial PRIMARY KEY, holder text);")
    else {
        return;
    };
    let observer = world.observer().unwrap();
    let mut a = world.session(Isolation::ReadCommitted).unwrap();
    let take = "INSERT INTO tokens (holder) VALUES (:holder) RETURNING id";
    run(&mut a, &observer, "BEGIN");
    assert_eq!(
        rows(&run_with(&mut a, &observer, take, &[("holder", text("a"))])),
        vec![vec![int(1)]]
    );
    run(&mut a, &observer, "ROLLBACK");
    assert_eq!(
        rows(&run_with(&mut a, &observer, take, &[("holder", text("b"))])),
        vec![vec![int(2)]]
    );
    assert_eq!(
        world.committed().unwrap()[0].rows,
        vec![vec![int(2), text("b")]]
    );
}

/// A queue's claim with `FOR UPDATE SKIP LOCKED` passes over a row another
/// transaction holds, without waiting.
#[test]
fn skip_locked_passes_over_a_locked_row() {
    let Some(mut world) = world(JOBS) else { return };
    let observer = world.observer().unwrap();
    let mut a = world.session(Isolation::ReadCommitted).unwrap();
    let mut b = world.session(Isolation::ReadCommitted).unwrap();
    let claim =
        "SELECT id FROM jobs WHERE state = 'NEW' ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED";
    run(&mut a, &observer, "BEGIN");
    run(&mut b, &observer, "BEGIN");
    assert_eq!(rows(&run(&mut a, &observer, claim)), vec![vec![int(1)]]);
    assert_eq!(rows(&run(&mut b, &observer, claim)), vec![vec![int(2)]]);
    let plain = "SELECT id FROM jobs WHERE id = 1 FOR UPDATE";
    b.send(plain, &[]).unwrap();
    assert_eq!(
        b.settle(&observer).unwrap(),
        Settled::Waiting,
        "without SKIP LOCKED it waits"
    );
}

/// An advisory lock is the session's: a session returned to the pool (as a
/// crashed process's is), even one waiting on a lock, holds none after.
#[test]
fn a_returned_sessions_advisory_locks_are_released() {
    let Some(mut world) = world(JOBS) else { return };
    let observer = world.observer().unwrap();
    let mut witness = world.session(Isolation::ReadCommitted).unwrap();
    let mut holder = world.session(Isolation::ReadCommitted).unwrap();
    let mut waiter = world.session(Isolation::ReadCommitted).unwrap();
    run(&mut holder, &observer, "SELECT pg_advisory_lock(7)");
    run(&mut waiter, &observer, "SELECT pg_advisory_lock(8)");
    let try_lock = |id: i64| format!("SELECT pg_try_advisory_lock({id})");
    assert_eq!(
        rows(&run(&mut witness, &observer, &try_lock(7))),
        vec![vec![int(0)]]
    );
    // The waiter, holding 8, waits for 7: dropped in flight, it is cancelled.
    waiter.send("SELECT pg_advisory_lock(7)", &[]).unwrap();
    assert_eq!(waiter.settle(&observer).unwrap(), Settled::Waiting);
    waiter.close().expect("a waiting session closes");
    drop(holder);
    assert_eq!(
        rows(&run(&mut witness, &observer, &try_lock(7))),
        vec![vec![int(1)]]
    );
    assert_eq!(
        rows(&run(&mut witness, &observer, &try_lock(8))),
        vec![vec![int(1)]]
    );
}
