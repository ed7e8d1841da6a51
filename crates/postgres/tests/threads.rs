//! Each session's thread ends with its connection: a world and its
//! sessions, one dropped while it waits on a lock, leave no thread behind.
//! (A binary of its own: other tests' threads would blur the count.)

mod common;

use common::*;
use fencelab_postgres::{Isolation, Settled};

#[cfg(target_os = "linux")]
fn threads() -> usize {
    std::fs::read_dir("/proc/self/task").map_or(0, |tasks| tasks.count())
}

#[cfg(target_os = "linux")]
#[test]
fn a_dropped_world_leaves_no_thread_behind() {
    let before = threads();
    let Some(mut world) = world("CREATE TABLE t (id int PRIMARY KEY); INSERT INTO t VALUES (1);")
    else {
        return;
    };
    let observer = world.observer().unwrap();
    let mut a = world.session(Isolation::ReadCommitted).unwrap();
    let mut b = world.session(Isolation::Serializable).unwrap();
    let pooled = world.session(Isolation::RepeatableRead).unwrap();
    drop(pooled);
    run(&mut a, &observer, "BEGIN");
    run(&mut a, &observer, "UPDATE t SET id = 2");
    b.send("UPDATE t SET id = 3", &[]).unwrap();
    assert_eq!(b.settle(&observer).unwrap(), Settled::Waiting);
    assert_eq!(threads(), before + 3, "one thread a connection");
    drop((b, a, observer));
    drop(world);
    assert_eq!(threads(), before);
}
