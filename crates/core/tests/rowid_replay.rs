//! SQLite's random source is one per program: only a run on one thread
//! replays a rowid drawn at random exactly. This test has its own binary,
//! so no other test draws from that source while it runs: in tests/suite,
//! beside the other tests' threads, it failed (a clean-clone CI run drew
//! 3252144563315554604 where the first world had drawn 3360874082579901463).

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use fencelab_core::{Outcome, Values, World};

#[path = "suite/counters/mod.rs"]
mod counters;

use counters::world_with;

#[test]
fn a_rowid_past_the_largest_replays_exactly() {
    // Once a table's largest rowid is i64::MAX, SQLite picks the next one
    // at random. The engine pins SQLite's generator on every reset, so the
    // same inputs still give the same rowid, in this world and in a new one.
    let text = "INSERT INTO counters (rowid, name, value) VALUES (9223372036854775807, 'top', 0);
INSERT INTO counters (name, value) VALUES ('next', 0) RETURNING rowid AS id;
-- @return id";
    let rowid_in = |world: &mut World| {
        world.reset().unwrap();
        let process = world.start_process("worker-a").unwrap();
        match world.run_call(process, "p", Values::new()).unwrap() {
            Outcome::Ok { values } => values["id"].clone(),
            other => panic!("expected ok, got {other:?}"),
        }
    };
    let mut world = world_with(&[("p", text)]);
    let first = rowid_in(&mut world);
    assert_ne!(first, fencelab_core::Value::Integer(i64::MAX));
    assert_eq!(rowid_in(&mut world), first);
    assert_eq!(rowid_in(&mut world), first);
    assert_eq!(rowid_in(&mut world_with(&[("p", text)])), first);
}
