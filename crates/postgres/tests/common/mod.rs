//! Helpers of the tests that need a server (found by
//! `fencelab_postgres::testing::server_for_tests`, which skips or fails).

#![allow(dead_code)]

use fencelab_model::value::Value;
use fencelab_postgres::testing::server_for_tests;
use fencelab_postgres::{Observer, Reply, ServerError, Session, Settled, WorldDb};
use std::time::{Duration, Instant};

/// A new world with `schema`, or `None` when the tests skip.
pub fn world(schema: &str) -> Option<WorldDb> {
    let mut server = server_for_tests()?;
    Some(
        server
            .create_world(schema)
            .expect("the test schema applies"),
    )
}

/// Sends `sql` and settles it, expecting a reply (no wait).
pub fn run(session: &mut Session, observer: &Observer, sql: &str) -> Reply {
    run_with(session, observer, sql, &[])
}

pub fn run_with(
    session: &mut Session,
    observer: &Observer,
    sql: &str,
    parameters: &[(&str, Value)],
) -> Reply {
    let parameters: Vec<(String, Value)> = parameters
        .iter()
        .map(|(n, v)| (n.to_string(), v.clone()))
        .collect();
    session
        .send(sql, &parameters)
        .expect("the statement is sent");
    match session.settle(observer).expect("the statement settles") {
        Settled::Done(reply) => reply,
        Settled::Waiting => panic!("`{sql}` waits, where it should have replied"),
    }
}

/// Settles a session again and again until it is done (a waiting session
/// stays waiting until the holder moves, so only for a holder that will).
pub fn settle_done(session: &mut Session, observer: &Observer) -> Reply {
    let started = Instant::now();
    loop {
        match session.settle(observer).expect("the statement settles") {
            Settled::Done(reply) => return reply,
            Settled::Waiting if started.elapsed() < Duration::from_secs(20) => {
                std::thread::sleep(Duration::from_millis(1))
            }
            Settled::Waiting => panic!("still waiting after 20 s"),
        }
    }
}

pub fn rows(reply: &Reply) -> Vec<Vec<Value>> {
    match reply {
        Reply::Rows { rows, .. } => rows.clone(),
        Reply::Failed(error) => panic!("expected rows, the server refused: {error}"),
    }
}

pub fn changed(reply: &Reply) -> u64 {
    match reply {
        Reply::Rows { changed, .. } => *changed,
        Reply::Failed(error) => panic!("expected a count, the server refused: {error}"),
    }
}

pub fn failure(reply: &Reply) -> ServerError {
    match reply {
        Reply::Failed(error) => error.clone(),
        Reply::Rows { .. } => panic!("expected a refusal, got {reply:?}"),
    }
}

pub fn int(value: i64) -> Value {
    Value::Integer(value)
}

pub fn text(value: &str) -> Value {
    Value::Text(value.to_string())
}
