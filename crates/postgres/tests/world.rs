//! A world's life: its schema and seed, its reset, its sessions' pool, and
//! how values, errors and transaction states come back.

mod common;

use common::*;
use fencelab_model::value::{RealBits, Value};
use fencelab_postgres::{Error, ErrorKind, Isolation, ParameterProblem, ResetMethod, Settled};
use std::time::{Duration, Instant};

/// Parents, children (one naming itself), an identity always generated, a
/// stored generated column, and a sequence of its own.
const QUEUE: &str = "
    CREATE TABLE queues (id int GENERATED ALWAYS AS IDENTITY PRIMARY KEY, name text NOT NULL);
    CREATE TABLE jobs (
        id bigserial PRIMARY KEY,
        queue int NOT NULL REFERENCES queues,
        parent bigint REFERENCES jobs,
        state text NOT NULL,
        doubled bigint GENERATED ALWAYS AS (id * 2) STORED
    );
    CREATE SEQUENCE tokens START 100;
    INSERT INTO queues (name) VALUES ('default'), ('mail');
    INSERT INTO jobs (queue, parent, state) VALUES (1, NULL, 'NEW'), (2, 1, 'NEW');
";

#[test]
fn the_seed_is_every_table_in_order_with_its_columns() {
    let Some(world) = world(QUEUE) else { return };
    let seed = world.seed();
    let names: Vec<&str> = seed.iter().map(|table| table.table.as_str()).collect();
    assert_eq!(names, ["jobs", "queues"]);
    assert_eq!(
        seed[0].columns,
        ["id", "queue", "parent", "state", "doubled"]
    );
    assert_eq!(
        seed[0].rows,
        vec![
            vec![int(1), int(1), Value::Null, text("NEW"), int(2)],
            vec![int(2), int(2), int(1), text("NEW"), int(4)],
        ]
    );
    assert_eq!(
        seed[1].rows,
        vec![vec![int(1), text("default")], vec![int(2), text("mail")]]
    );
}

/// Rows changed, deleted and added, sequences moved: each reset method puts
/// back exactly the seed, and the next numbers are the seed's next numbers.
#[test]
fn reset_puts_back_the_rows_and_the_sequences_by_either_method() {
    let Some(mut world) = world(QUEUE) else {
        return;
    };
    assert_eq!(world.reset_method(), ResetMethod::Delete);
    let seed = world.seed().to_vec();
    let observer = world.observer().unwrap();
    let next = "SELECT nextval('tokens'), nextval('jobs_id_seq'), nextval('queues_id_seq')";
    for method in [
        ResetMethod::Delete,
        ResetMethod::Truncate,
        ResetMethod::Delete,
    ] {
        let mut session = world.session(Isolation::ReadCommitted).unwrap();
        run(
            &mut session,
            &observer,
            "UPDATE jobs SET state = 'DONE' WHERE id = 1",
        );
        run(&mut session, &observer, "DELETE FROM jobs WHERE id = 2");
        run(
            &mut session,
            &observer,
            "INSERT INTO queues (name) VALUES ('late')",
        );
        run(&mut session, &observer, "BEGIN");
        run(
            &mut session,
            &observer,
            "INSERT INTO jobs (queue, state) VALUES (3, 'NEW')",
        );
        assert_eq!(
            world.reset_by(method),
            Err(Error::SessionsLent { count: 1 }),
            "a lent session blocks the reset"
        );
        session.close().unwrap();
        world.reset_by(method).unwrap();
        assert_eq!(world.committed().unwrap(), seed, "{method:?}");
        let mut session = world.session(Isolation::ReadCommitted).unwrap();
        assert_eq!(
            rows(&run(&mut session, &observer, next)),
            vec![vec![int(100), int(3), int(3)]],
            "{method:?}"
        );
    }
}

/// A cycle has no order of deletes and inserts: it is truncated, and its
/// rows are copied back with its deferrable key checked at COMMIT.
#[test]
fn foreign_keys_in_a_cycle_reset_by_truncate() {
    let schema = "CREATE TABLE a (id int PRIMARY KEY, b int);
                  CREATE TABLE b (id int PRIMARY KEY, a int REFERENCES a);
                  ALTER TABLE a ADD FOREIGN KEY (b) REFERENCES b DEFERRABLE;
                  INSERT INTO a VALUES (1, NULL); INSERT INTO b VALUES (1, 1); UPDATE a SET b = 1;";
    let Some(mut world) = world(schema) else {
        return;
    };
    assert_eq!(world.reset_method(), ResetMethod::Truncate);
    world.reset().unwrap();
    assert_eq!(world.committed().unwrap(), world.seed().to_vec());
}

#[test]
fn a_failing_schema_is_an_error_with_the_servers_words() {
    let Some(mut server) = fencelab_postgres::testing::server_for_tests() else {
        return;
    };
    let schema = "CREATE TABLE t (id int); INSERT INTO t VALUES ('one');";
    let error = server.create_world(schema).err().expect("the schema fails");
    let Error::Schema(error) = error else {
        panic!("{error:?}")
    };
    assert_eq!(error.sqlstate, "22P02");
    assert!(
        error
            .message
            .contains("invalid input syntax for type integer"),
        "{error}"
    );
    assert_eq!(error.position, schema.find("'one'"), "where in the schema");
}

/// Worlds of one process never share a name, and a dropped world's
/// database is gone.
#[test]
fn worlds_have_names_of_their_own_and_take_their_database_with_them() {
    let Some(mut first) = world("CREATE TABLE t (id int);") else {
        return;
    };
    let second = world("CREATE TABLE t (id int);").unwrap();
    let prefix = format!("fencelab_{}_", std::process::id());
    assert!(first.name().starts_with(&prefix) && second.name().starts_with(&prefix));
    assert_ne!(first.name(), second.name());
    let gone = second.name().to_string();
    drop(second);
    let observer = first.observer().unwrap();
    let mut session = first.session(Isolation::ReadCommitted).unwrap();
    let count = "SELECT count(*) FROM pg_database WHERE datname = :name";
    assert_eq!(
        rows(&run_with(
            &mut session,
            &observer,
            count,
            &[("name", text(&gone))]
        )),
        vec![vec![int(0)]]
    );
}

#[test]
fn columns_read_as_values_and_other_types_are_named() {
    let Some(mut world) = world("CREATE TABLE t (id int);") else {
        return;
    };
    let observer = world.observer().unwrap();
    let mut session = world.session(Isolation::ReadCommitted).unwrap();
    let all = "SELECT 1::int2, 2::int4, 3::int8, 1.5::float4, 2.5::float8, true, false, 'x'::text,
               'y'::varchar, 'z'::char(2), 'n'::name, '\\x01ff'::bytea, 12.340::numeric, -0.5::numeric, NULL";
    let reply = run(&mut session, &observer, all);
    let real = |value: f64| Value::Real(RealBits::new(value));
    assert_eq!(
        rows(&reply),
        vec![vec![
            int(1),
            int(2),
            int(3),
            real(1.5),
            real(2.5),
            int(1),
            int(0),
            text("x"),
            text("y"),
            text("z "),
            text("n"),
            Value::blob(&[1, 255]),
            text("12.340"),
            text("-0.5"),
            Value::Null,
        ]]
    );
    session.send("SELECT now() AS at", &[]).unwrap();
    let error = session
        .settle(&observer)
        .expect_err("a timestamp is refused");
    assert_eq!(
        error,
        Error::UnsupportedColumn {
            column: "at".into(),
            type_name: "timestamptz".into()
        }
    );
    assert!(
        error.to_string().contains("cast it (`at::text`)"),
        "{error}"
    );
    let echo =
        "SELECT :i::int2 + 0, :f::float8, :b::bool, :t, :blob::bytea, :n::int8 IS NULL, :i::text";
    let given = [
        ("i", int(7)),
        ("f", int(2)),
        ("b", int(1)),
        ("t", text("é")),
        ("blob", Value::blob(&[0, 1])),
        ("n", Value::Null),
    ];
    assert_eq!(
        rows(&run_with(&mut session, &observer, echo, &given)),
        vec![vec![
            int(7),
            real(2.0),
            int(1),
            text("é"),
            Value::blob(&[0, 1]),
            int(1),
            text("7")
        ]]
    );
}

#[test]
fn a_parameter_that_does_not_fit_is_named() {
    let Some(mut world) = world("CREATE TABLE t (small int2, flag boolean);") else {
        return;
    };
    let observer = world.observer().unwrap();
    let mut session = world.session(Isolation::ReadCommitted).unwrap();
    let insert = "INSERT INTO t (small, flag) VALUES (:small, :flag)";
    let attempts = [
        (
            int(70000),
            int(1),
            "small",
            ParameterProblem::OutOfRange {
                type_name: "int2".into(),
                value: 70000,
            },
        ),
        (
            int(1),
            text("yes"),
            "flag",
            ParameterProblem::Mismatch {
                type_name: "bool".into(),
                value_kind: "text",
            },
        ),
    ];
    for (small, flag, name, problem) in attempts {
        let parameters = [("small".to_string(), small), ("flag".to_string(), flag)];
        session.send(insert, &parameters).unwrap();
        assert_eq!(
            session.settle(&observer),
            Err(Error::Parameter {
                name: name.into(),
                problem
            })
        );
    }
    assert_eq!(
        session.send(insert, &[]),
        Err(Error::MissingParameter {
            name: "small".into()
        })
    );
    assert_eq!(session.settle(&observer), Err(Error::NothingInFlight));
    assert!(world.committed().unwrap()[0].rows.is_empty());
}

/// The server's error position, in the learner's text (before the rewrite).
#[test]
fn an_error_position_points_into_the_text_as_written() {
    let Some(mut world) = world("CREATE TABLE t (id int);") else {
        return;
    };
    let observer = world.observer().unwrap();
    let mut session = world.session(Isolation::ReadCommitted).unwrap();
    let sql = "SELECT :long_name, 'é', nope FROM t";
    let error = failure(&run_with(
        &mut session,
        &observer,
        sql,
        &[("long_name", int(1))],
    ));
    assert_eq!(error.kind(), ErrorKind::Other);
    assert_eq!(error.sqlstate, "42703");
    assert_eq!(error.position, sql.find("nope"));
}

#[test]
fn update_returning_gives_its_rows_and_its_count() {
    let Some(mut world) = world("CREATE TABLE t (id int); INSERT INTO t VALUES (1), (2), (3);")
    else {
        return;
    };
    let observer = world.observer().unwrap();
    let mut session = world.session(Isolation::ReadCommitted).unwrap();
    let reply = run(
        &mut session,
        &observer,
        "UPDATE t SET id = id * 10 WHERE id < 3 RETURNING id",
    );
    assert_eq!(changed(&reply), 2);
    assert_eq!(rows(&reply), vec![vec![int(10)], vec![int(20)]]);
    let reply = run(&mut session, &observer, "UPDATE t SET id = id WHERE false");
    assert_eq!((changed(&reply), rows(&reply)), (0, vec![]));
}

/// In and out of a transaction block, a failed one included: COMMIT of an
/// aborted transaction rolls it back and leaves the block.
#[test]
fn the_transaction_state_follows_begin_errors_and_commit() {
    let Some(mut world) = world("CREATE TABLE t (id int UNIQUE); INSERT INTO t VALUES (1);") else {
        return;
    };
    let observer = world.observer().unwrap();
    let mut session = world.session(Isolation::ReadCommitted).unwrap();
    assert!(!session.in_transaction());
    assert_eq!(
        failure(&run(&mut session, &observer, "INSERT INTO t VALUES (1)")).kind(),
        ErrorKind::UniqueViolation
    );
    assert!(
        !session.in_transaction(),
        "a failed statement outside a block stays outside"
    );
    run(&mut session, &observer, "BEGIN");
    assert!(session.in_transaction());
    run(&mut session, &observer, "SAVEPOINT s");
    run(&mut session, &observer, "INSERT INTO t VALUES (2)");
    assert_eq!(
        failure(&run(&mut session, &observer, "INSERT INTO t VALUES (1)")).kind(),
        ErrorKind::UniqueViolation
    );
    assert!(
        session.in_transaction(),
        "an error keeps the (aborted) transaction"
    );
    let error = failure(&run(&mut session, &observer, "SELECT 1"));
    assert_eq!(error.kind(), ErrorKind::InFailedTransaction);
    run(&mut session, &observer, "ROLLBACK TO SAVEPOINT s");
    assert!(session.in_transaction());
    run(&mut session, &observer, "INSERT INTO t VALUES (3)");
    assert_eq!(
        failure(&run(&mut session, &observer, "SELECT 1/0")).sqlstate,
        "22012"
    );
    run(&mut session, &observer, "COMMIT");
    assert!(
        !session.in_transaction(),
        "COMMIT of a failed transaction ends it"
    );
    assert_eq!(
        world.committed().unwrap()[0].rows,
        vec![vec![int(1)]],
        "and rolled it back"
    );
}

/// A session returned to the pool comes back clean: no transaction, its
/// settings re-applied, its isolation the one asked for.
#[test]
fn a_pooled_session_comes_back_clean_at_the_isolation_asked() {
    let Some(mut world) = world("CREATE TABLE t (id int);") else {
        return;
    };
    let observer = world.observer().unwrap();
    let mut first = world.session(Isolation::ReadCommitted).unwrap();
    let pid = first.pid();
    run(&mut first, &observer, "SET statement_timeout = '1s'");
    run(&mut first, &observer, "BEGIN");
    run(&mut first, &observer, "INSERT INTO t VALUES (1)");
    drop(first);
    let mut again = world.session(Isolation::Serializable).unwrap();
    assert_eq!(again.pid(), pid, "the pool's connection");
    assert!(!again.in_transaction());
    let settings =
        "SELECT current_setting('statement_timeout'), current_setting('transaction_isolation'),
                    current_setting('deadlock_timeout'), (SELECT count(*) FROM t)";
    let deadlock = if again.fast_deadlocks() { "20ms" } else { "1s" };
    assert_eq!(
        rows(&run(&mut again, &observer, settings)),
        vec![vec![
            text("10s"),
            text("serializable"),
            text(deadlock),
            int(0)
        ]]
    );
}

/// What a world costs, printed for docs/PERFORMANCE.md (run with
/// `--nocapture`): opening a session and taking a pooled one, a statement's
/// send and settle, a reset by each method. Asserts only that each is done.
#[test]
fn measurements() {
    let Some(mut world) = world(QUEUE) else {
        return;
    };
    let observer = world.observer().unwrap();
    let mean = |total: Duration, count: u32| {
        format!("{:.3} ms", total.as_secs_f64() * 1000.0 / f64::from(count))
    };
    let started = Instant::now();
    let opened: Vec<_> = (0..10)
        .map(|_| world.session(Isolation::ReadCommitted).unwrap())
        .collect();
    let open = started.elapsed();
    drop(opened);
    let started = Instant::now();
    for _ in 0..100 {
        world
            .session(Isolation::ReadCommitted)
            .unwrap()
            .close()
            .unwrap();
    }
    let pooled = started.elapsed();
    let mut session = world.session(Isolation::ReadCommitted).unwrap();
    let started = Instant::now();
    for _ in 0..500 {
        run(
            &mut session,
            &observer,
            "UPDATE jobs SET state = 'NEW' WHERE id = 1",
        );
    }
    let statement = started.elapsed();
    let mut other = world.session(Isolation::ReadCommitted).unwrap();
    run(&mut session, &observer, "BEGIN");
    run(
        &mut session,
        &observer,
        "UPDATE jobs SET state = 'A' WHERE id = 1",
    );
    other
        .send("UPDATE jobs SET state = 'B' WHERE id = 1", &[])
        .unwrap();
    let started = Instant::now();
    let mut waits = 0;
    while other.settle(&observer).unwrap() == Settled::Waiting && waits < 100 {
        waits += 1;
    }
    let wait = started.elapsed();
    drop((session, other));
    let mut resets = Vec::new();
    for method in [ResetMethod::Delete, ResetMethod::Truncate] {
        let started = Instant::now();
        for _ in 0..100 {
            world.reset_by(method).unwrap();
        }
        resets.push(format!("{method:?} {}", mean(started.elapsed(), 100)));
    }
    println!(
        "open a session {}; take and return a pooled one {}; send and settle an UPDATE {}; settle a waiting one (to Waiting) {}; reset: {}",
        mean(open, 10),
        mean(pooled, 100),
        mean(statement, 500),
        mean(wait, waits.max(1)),
        resets.join(", ")
    );
    assert_eq!(world.committed().unwrap(), world.seed().to_vec());
}

/// The server's timeout is the hard stop: a statement past it fails with
/// 57014, and a session dropped in the middle of a long statement is
/// cancelled, not waited for.
#[test]
fn a_statement_past_its_timeout_fails_and_a_dropped_one_is_cancelled() {
    let Some(mut world) = world("CREATE TABLE t (id int);") else {
        return;
    };
    let observer = world.observer().unwrap();
    let mut session = world.session(Isolation::ReadCommitted).unwrap();
    run(&mut session, &observer, "SET statement_timeout = '50ms'");
    let error = failure(&run(&mut session, &observer, "SELECT pg_sleep(5)"));
    assert_eq!(error.kind(), ErrorKind::Timeout);
    drop(session);
    let mut session = world.session(Isolation::ReadCommitted).unwrap();
    session.send("SELECT pg_sleep(8)", &[]).unwrap();
    let started = Instant::now();
    session.close().unwrap();
    assert!(
        started.elapsed() < Duration::from_secs(4),
        "{:?}",
        started.elapsed()
    );
}
