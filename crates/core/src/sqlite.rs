//! Opening connections to a shared in-memory database.
//!
//! Several connections in one process share one database through the
//! engine's own VFS (`vfs.rs`) when they open the same
//! `file:/NAME?vfs=fencelab-file` URI. That is how fencelab gives each
//! simulated process its own connection, and so its own transactions and
//! its own view of the locks, while everything stays in memory; the locks
//! are those of a database file, in the journal mode the world chose.
//!
//! This module must never wait on a lock: in single-threaded wasm nothing could
//! release it while we wait, so every connection has a busy timeout of zero and
//! a locked database is reported at once as `SQLITE_BUSY`.

// Unsafe: what rusqlite has no safe call for (the program-wide heap limit
// and its figures, the random generator's seed) goes through SQLite's C API.
#![allow(unsafe_code)]

use fencelab_model::exercise::Journal;
use rusqlite::{Connection, OpenFlags};
use std::time::Duration;

/// Bytes per database page. Every connection re-reads the pages another
/// connection changed, and small pages make that copy cheap: with 1 KiB pages a
/// check runs in about three quarters of the instructions it needs with 4 KiB
/// (callgrind, the bundled claim exercise). Takes effect for a new database.
pub const PAGE_BYTES: u32 = 1024;

/// The most memory SQLite may hold, in all, for every world of this
/// program: a statement that would need more (a GROUP BY or DISTINCT over
/// millions of generated rows) fails with "out of memory" instead of taking
/// the program, or the browser tab's worker, down.
pub const HEAP_BYTES_MAX: i64 = 256 * 1024 * 1024;

/// Sets SQLite's hard heap limit, once per program.
fn limit_heap() {
    static LIMITED: std::sync::Once = std::sync::Once::new();
    LIMITED.call_once(|| {
        // SAFETY: sqlite3_hard_heap_limit64 only stores the limit (SQLite
        // initializes itself first if it must).
        unsafe {
            rusqlite::ffi::sqlite3_hard_heap_limit64(HEAP_BYTES_MAX);
        }
    });
}

/// SQLite's memory in use now, and the most it has used since the last
/// [`reset_heap_peak`], in bytes, for the whole program.
pub fn heap_bytes() -> (i64, i64) {
    // SAFETY: plain reads of SQLite's memory statistics.
    unsafe {
        (
            rusqlite::ffi::sqlite3_memory_used(),
            rusqlite::ffi::sqlite3_memory_highwater(0),
        )
    }
}

/// Starts SQLite's memory peak afresh from what it uses now.
pub fn reset_heap_peak() {
    // SAFETY: resets SQLite's high-water mark; nothing else.
    unsafe {
        rusqlite::ffi::sqlite3_memory_highwater(1);
    }
}

/// The URI under which connections share the in-memory database `name`.
pub fn shared_uri(name: &str) -> String {
    format!("file:/{name}?vfs={}", crate::vfs::VFS_NAME)
}

/// The names the VFS keeps the shared database `name` under: its file and
/// its write-ahead log (SQLite names the log after the file).
pub fn shared_paths(name: &str) -> (String, String) {
    (format!("/{name}"), format!("/{name}-wal"))
}

/// Opens one more connection to the shared in-memory database `name`,
/// creating the database if this is the first connection. The database is
/// in rollback-journal mode unless its first connection switched it to WAL
/// ([`set_journal`]), which every later connection then reads from it.
///
/// The connection never waits for a lock (busy timeout zero), and the pragmas
/// whose defaults differ between the native and wasm builds of SQLite are set
/// explicitly so both behave alike.
pub fn open_shared(name: &str) -> rusqlite::Result<Connection> {
    limit_heap();
    crate::vfs::register();
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
        | OpenFlags::SQLITE_OPEN_CREATE
        | OpenFlags::SQLITE_OPEN_URI
        | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = Connection::open_with_flags(shared_uri(name), flags)?;
    conn.busy_timeout(Duration::ZERO)?;
    conn.execute_batch(&format!(
        "PRAGMA page_size = {PAGE_BYTES}; PRAGMA foreign_keys = ON; PRAGMA recursive_triggers = OFF;"
    ))?;
    Ok(conn)
}

/// Puts a new database in `journal` mode, through its first connection,
/// before anything is written to it. A database file remembers WAL mode
/// (its header says so), and so does this one: every connection opened
/// after this one reads it from there.
pub fn set_journal(first: &Connection, journal: Journal) -> rusqlite::Result<()> {
    let wanted = journal.pragma_name();
    let mode: String = first.query_row(&format!("PRAGMA journal_mode = {wanted}"), [], |row| {
        row.get(0)
    })?;
    if mode != wanted {
        return Err(rusqlite::Error::SqliteFailure(
            rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_ERROR),
            Some(format!(
                "SQLite kept journal mode {mode} where {wanted} was asked"
            )),
        ));
    }
    Ok(())
}

/// The seed SQLite's own random source is pinned to (see [`pin_randomness`]).
const SQLITE_PRNG_SEED: std::ffi::c_int = 0x5eed;

/// Restarts SQLite's pseudo-random generator from a fixed seed.
///
/// SQLite draws on randomness the sandbox cannot refuse: once a table's
/// largest rowid is i64::MAX, the next INSERT picks a rowid at random, from
/// a generator SQLite seeds from the operating system (and other work, such
/// as opening a connection, also draws on it). Restarting that generator
/// from a fixed seed before every learner statement makes what a statement
/// draws depend on nothing but the statement and the database: it replays
/// exactly. It is pinned before every statement the engine runs, of any
/// origin: the schema, a learner's statement, scenario SQL and queries, the
/// engine's own reads and the reset of the seed rows. The generator is one
/// per program, so runs on several threads at once (`fencelab mutate`)
/// share it; a run on one thread, as in the browser or `fencelab run`,
/// replays exactly.
pub fn pin_randomness() {
    // SAFETY: SQLITE_TESTCTRL_PRNG_SEED takes an int seed and a database
    // handle, which may be null; it only sets SQLite's configured seed and
    // clears its generator's state.
    unsafe {
        rusqlite::ffi::sqlite3_test_control(
            rusqlite::ffi::SQLITE_TESTCTRL_PRNG_SEED,
            SQLITE_PRNG_SEED,
            std::ptr::null_mut::<rusqlite::ffi::sqlite3>(),
        );
    }
}

/// Puts SQLite's generator in another state (one of 256, by `salt`), as a
/// fresh process or earlier work would leave it. For tests only: the hostile
/// corpus replays a case from three such states, so a draw the engine did
/// not pin shows as three different reports. The engine itself only pins.
pub fn disturb_randomness(salt: u8) {
    // SAFETY: as in `pin_randomness`: an int seed and a null handle.
    unsafe {
        rusqlite::ffi::sqlite3_test_control(
            rusqlite::ffi::SQLITE_TESTCTRL_PRNG_SEED,
            SQLITE_PRNG_SEED + 1 + std::ffi::c_int::from(salt),
            std::ptr::null_mut::<rusqlite::ffi::sqlite3>(),
        );
    }
}

/// Whether an error is SQLite reporting that another connection holds the
/// lock, so the same statement may succeed once that lock is released.
/// A stale WAL snapshot is not that: see [`is_stale_snapshot`].
pub fn is_busy(error: &rusqlite::Error) -> bool {
    matches!(
        error.sqlite_error_code(),
        Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked)
    ) && !is_stale_snapshot(error)
}

/// Whether an error is SQLITE_BUSY_SNAPSHOT: in WAL mode, a transaction
/// that read an older snapshot tried to write after another connection
/// committed. Waiting cannot help it; only ending its transaction can.
pub fn is_stale_snapshot(error: &rusqlite::Error) -> bool {
    matches!(
        error,
        rusqlite::Error::SqliteFailure(failure, _)
            if failure.extended_code == rusqlite::ffi::SQLITE_BUSY_SNAPSHOT
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    /// Two connections to one shared database contend for `BEGIN IMMEDIATE`:
    /// the second is refused at once, not after rusqlite's default five-second
    /// busy timeout, and succeeds once the first has committed.
    #[test]
    fn second_connection_is_refused_begin_immediate_until_the_first_commits() {
        let name = "contention-test";
        let first = open_shared(name).unwrap();
        let second = open_shared(name).unwrap();
        first
            .execute_batch("CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1);")
            .unwrap();
        // The second connection sees the first one's table: the database is shared.
        let rows: i64 = second
            .query_row("SELECT count(*) FROM t", [], |row| row.get(0))
            .unwrap();
        assert_eq!(rows, 1);

        first.execute_batch("BEGIN IMMEDIATE").unwrap();
        let refused = second.execute_batch("BEGIN IMMEDIATE").unwrap_err();
        assert!(is_busy(&refused), "expected SQLITE_BUSY, got {refused}");
        assert!(
            second.is_autocommit(),
            "the refused BEGIN left no transaction open"
        );

        first
            .execute_batch("INSERT INTO t VALUES (2); COMMIT")
            .unwrap();
        second.execute_batch("BEGIN IMMEDIATE").unwrap();
        let rows: i64 = second
            .query_row("SELECT count(*) FROM t", [], |row| row.get(0))
            .unwrap();
        assert_eq!(rows, 2, "the second connection sees the first one's commit");
        second.execute_batch("COMMIT").unwrap();
    }

    fn count(connection: &Connection) -> rusqlite::Result<i64> {
        connection.query_row("SELECT count(*) FROM t", [], |row| row.get(0))
    }

    /// Three connections to a new database `name` in `journal` mode, with a
    /// table `t` of one row.
    fn three(name: &str, journal: Journal) -> (Connection, Connection, Connection) {
        let first = open_shared(name).unwrap();
        set_journal(&first, journal).unwrap();
        first
            .execute_batch("CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1);")
            .unwrap();
        (
            first,
            open_shared(name).unwrap(),
            open_shared(name).unwrap(),
        )
    }

    /// What the VFS says of the committed rows changes with every commit,
    /// in both journal modes, and with nothing else: not a read, not a
    /// write still inside its transaction, not a rollback. While a writer
    /// holds PENDING (no new reader gets in) it says nothing.
    #[test]
    fn the_stored_stamp_moves_with_commits_alone() {
        for journal in [Journal::Delete, Journal::Wal] {
            let name = format!("stored-stamp-test-{}", journal.pragma_name());
            let (writer, reader, _third) = three(&name, journal);
            let (path, wal) = shared_paths(&name);
            let stored = || crate::vfs::stored(&path, &wal);
            let start = stored().expect("the database is stored");
            assert_eq!(count(&reader).unwrap(), 1);
            writer
                .execute_batch("BEGIN IMMEDIATE; INSERT INTO t VALUES (2);")
                .unwrap();
            assert_eq!(stored(), Some(start), "{journal:?}: nothing committed yet");
            writer.execute_batch("ROLLBACK").unwrap();
            assert_eq!(
                stored(),
                Some(start),
                "{journal:?}: a rollback commits nothing"
            );
            writer.execute_batch("INSERT INTO t VALUES (3)").unwrap();
            let after = stored().expect("the database is stored");
            assert_ne!(after, start, "{journal:?}: a commit moves the stamp");
            assert_eq!(count(&reader).unwrap(), 2);
            assert_eq!(stored(), Some(after), "{journal:?}: a read does not");
            if journal == Journal::Delete {
                reader.execute_batch("BEGIN; SELECT * FROM t;").unwrap();
                writer
                    .execute_batch("BEGIN IMMEDIATE; INSERT INTO t VALUES (4);")
                    .unwrap();
                assert!(
                    writer.execute_batch("COMMIT").is_err(),
                    "the reader is inside"
                );
                assert_eq!(stored(), None, "a pending writer turns new readers away");
                reader.execute_batch("COMMIT").unwrap();
                writer.execute_batch("COMMIT").unwrap();
                assert_ne!(stored(), Some(after));
            }
        }
    }

    /// A database file's rollback-journal locks, where memdb's are
    /// stricter: a writer's RESERVED lock lets readers in; its COMMIT waits
    /// while one is inside, and from then on (PENDING) turns new ones away.
    #[test]
    fn a_rollback_journal_lets_readers_in_until_the_writer_commits() {
        let (writer, reader, late) = three("rollback-locks-test", Journal::Delete);
        writer
            .execute_batch("BEGIN IMMEDIATE; INSERT INTO t VALUES (2);")
            .unwrap();
        assert_eq!(
            count(&reader).unwrap(),
            1,
            "the reader reads the committed row"
        );
        reader.execute_batch("BEGIN; SELECT * FROM t;").unwrap();
        let commit = writer.execute_batch("COMMIT").unwrap_err();
        assert!(
            is_busy(&commit),
            "the commit waits for the reader: {commit}"
        );
        assert!(
            !writer.is_autocommit(),
            "a refused COMMIT keeps its transaction"
        );
        assert_eq!(
            crate::vfs::main_file_lock(&writer),
            Some(crate::vfs::FileLock::Pending)
        );
        let refused = count(&late).unwrap_err();
        assert!(
            is_busy(&refused),
            "a pending writer turns new readers away: {refused}"
        );
        reader.execute_batch("COMMIT").unwrap();
        writer.execute_batch("COMMIT").unwrap();
        assert_eq!(count(&late).unwrap(), 2);
        assert_eq!(
            crate::vfs::main_file_lock(&writer),
            Some(crate::vfs::FileLock::None)
        );
    }

    /// WAL: a reader never waits and keeps its snapshot while a writer
    /// commits under it; its own write then fails as SQLITE_BUSY_SNAPSHOT,
    /// which is no lock to wait for.
    #[test]
    fn in_wal_mode_readers_never_wait_and_a_stale_snapshot_cannot_write() {
        let (writer, reader, other) = three("wal-locks-test", Journal::Wal);
        let mode: String = other
            .query_row("PRAGMA journal_mode", [], |row| row.get(0))
            .unwrap();
        assert_eq!(
            mode, "wal",
            "a later connection reads WAL mode from the database"
        );
        reader.execute_batch("BEGIN; SELECT * FROM t;").unwrap();
        writer
            .execute_batch("BEGIN IMMEDIATE; INSERT INTO t VALUES (2);")
            .unwrap();
        assert_eq!(
            count(&other).unwrap(),
            1,
            "a reader does not wait for the writer"
        );
        let second_writer = other.execute_batch("BEGIN IMMEDIATE").unwrap_err();
        assert!(
            is_busy(&second_writer),
            "one writer at a time: {second_writer}"
        );
        writer.execute_batch("COMMIT").unwrap();
        assert_eq!(count(&reader).unwrap(), 1, "the reader keeps its snapshot");
        assert_eq!(count(&other).unwrap(), 2, "a new reader sees the commit");
        let stale = reader
            .execute_batch("INSERT INTO t VALUES (3)")
            .unwrap_err();
        assert!(
            is_stale_snapshot(&stale),
            "expected SQLITE_BUSY_SNAPSHOT, got {stale}"
        );
        assert!(
            !is_busy(&stale),
            "a stale snapshot is not a lock to wait for"
        );
        reader.execute_batch("ROLLBACK").unwrap();
        reader.execute_batch("INSERT INTO t VALUES (3)").unwrap();
        assert_eq!(count(&writer).unwrap(), 3);
    }

    /// A database lives as long as a connection holds it, as memdb's did.
    #[test]
    fn a_database_is_gone_with_its_last_connection() {
        let name = "lifetime-test";
        let first = open_shared(name).unwrap();
        first.execute_batch("CREATE TABLE t (x INTEGER);").unwrap();
        drop(first);
        let again = open_shared(name).unwrap();
        let tables: i64 = again
            .query_row("SELECT count(*) FROM sqlite_schema", [], |row| row.get(0))
            .unwrap();
        assert_eq!(tables, 0);
    }

    #[test]
    fn reports_the_linked_sqlite_version() {
        assert!(crate::sqlite_version().starts_with("3."));
    }
}
