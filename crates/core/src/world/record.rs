//! Recording history: the events a world appends while it records, and
//! the row changes each step made.
//!
//! A step's row changes are the rows whose values differ, as the stepping
//! process sees them, between just before the step and just after it, in
//! table and key order. [`Recorder::Changes`] finds them from what SQLite's
//! preupdate hook reports (changes.rs), and for a ROLLBACK (or ROLLBACK TO)
//! statement or a call's end also from the rows the process's open
//! transaction wrote earlier, which a rollback puts back without the hook
//! seeing it; it reads only those rows after the step, so a step costs what
//! it touched. [`Recorder::Snapshots`] reads every table before and after
//! and diffs them: the plain definition, kept as the reference the
//! hook-based recorder is tested against event by event.
//!
//! Recording must never change what a run does: the recorder takes no lock
//! a process would not have taken (see `snapshot_unlocked`), so a schedule
//! found with recording off replays into the same steps with it on.

use super::World;
use super::changes::{RowKey, Watch};
use super::seed::diff_tables;
use crate::history::{Event, RowChange, TableRows, What};
use crate::procedure::Step;
use crate::value::Value;
use crate::world::{Call, ProcessId, index};
use rusqlite::Connection;
use std::collections::BTreeMap;

/// How a world finds the rows each recorded step changed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Recorder {
    /// From SQLite's preupdate hook, reading back only the rows a step
    /// touched: costs what the step changed. The default. A schema with
    /// generated columns is recorded by snapshots instead (the hook numbers
    /// their columns differently).
    #[default]
    Changes,
    /// By reading every table before and after each step and diffing:
    /// costs what the database holds. The reference for tests.
    Snapshots,
}

/// Rows as a process saw them, by table and key; `None` for no row.
pub(super) type Rows = BTreeMap<RowKey, Option<Vec<Value>>>;

/// What the recorder noted before a step, to tell what it changed after.
pub(super) enum Before {
    /// Not recording.
    Off,
    /// Every table, for [`Recorder::Snapshots`].
    Snapshot(Vec<TableRows>),
    /// The hook watches the step; the process's earlier writes in its open
    /// transaction are in its `written` rows, which only a statement that
    /// rolls back (ROLLBACK, ROLLBACK TO) can change without the hook.
    Watching { watch: Watch, rollback: bool },
    /// The rows the process's transaction wrote, as it saw them just before
    /// its call's end rolled them back.
    Rows(Rows),
}

impl World {
    pub(super) fn record(&mut self, event: Event) {
        if self.recording {
            self.history_bytes += encoded_bytes(&event);
            self.history.push(event);
        }
    }

    /// The bytes the history recorded since the last reset takes, counted
    /// as its JSON: what a report carries to the page.
    pub fn history_bytes(&self) -> u64 {
        self.history_bytes
    }

    pub(super) fn world_event(&self) -> Event {
        Event {
            clock_seconds: self.clock_seconds,
            process: None,
            actor: None,
            procedure: None,
            step: None,
            position: None,
            what: What::ProcessStarted,
            row_changes: Vec::new(),
        }
    }

    pub(super) fn process_event(&self, id: ProcessId, what: What) -> Event {
        let actor = self.processes.get(index(id)).map(|p| p.actor.clone());
        Event {
            process: Some(id.to_string()),
            actor,
            what,
            ..self.world_event()
        }
    }

    pub(super) fn step_event(&self, id: ProcessId, call: &Call, step: &Step, what: What) -> Event {
        Event {
            procedure: Some(call.procedure.name.clone()),
            step: Some(call.next_step),
            position: Some(step.position),
            ..self.process_event(id, what)
        }
    }

    /// Which rows each recorded step changed is found as `recorder` says.
    pub fn set_recorder(&mut self, recorder: Recorder) {
        self.recorder = recorder;
    }

    fn hook_records(&self) -> bool {
        self.recorder == Recorder::Changes && self.seed.hook_columns_match()
    }

    /// Notes what telling the row changes of a statement will need, before
    /// process `id` (or the anchor, for direct SQL) runs it; `rolls_back`
    /// says whether it is a ROLLBACK, asked only where that matters (a
    /// procedure's step knows from its class, read when it was parsed).
    pub(super) fn before_step(
        &self,
        id: Option<ProcessId>,
        rolls_back: impl FnOnce() -> bool,
    ) -> Before {
        // A server's steps are told by their statements and the mirror,
        // not row by row: its rows change on the server, unseen here.
        if !self.recording || self.server.is_some() {
            Before::Off
        } else if self.hook_records() {
            let wrote = id
                .and_then(|id| self.processes.get(index(id)))
                .is_some_and(|p| !p.written.is_empty());
            Before::Watching {
                watch: self.changes.watch(),
                rollback: wrote && rolls_back(),
            }
        } else {
            self.snapshot_unlocked(id)
                .map_or(Before::Off, Before::Snapshot)
        }
    }

    /// The tables as process `id` sees them, read without taking a lock it
    /// does not already hold: a read inside its deferred transaction would
    /// keep a shared lock to the end of it, and a writer could then never
    /// commit (a recorded run would deadlock where the unrecorded one did
    /// not). A process that holds no lock sees the committed rows, which
    /// the anchor reads and lets go of at once. When another process holds
    /// the write lock they cannot be read: the step cannot change a row
    /// then either (it would need the lock), so it records none.
    fn snapshot_unlocked(&self, id: Option<ProcessId>) -> rusqlite::Result<Vec<TableRows>> {
        let (connection, _) = self.connection_and_sandbox(id);
        let unlocked = connection.transaction_state(Some(rusqlite::MAIN_DB))?
            == rusqlite::TransactionState::None;
        self.snapshot(if unlocked { None } else { id })
    }

    /// Notes what telling the row changes of rolling back process `id`'s
    /// transaction will need: the rows it wrote, read now (a failed
    /// statement may have left some of them half-changed, as `OR FAIL` does).
    pub(super) fn before_rollback(&self, id: ProcessId) -> Before {
        if !self.recording || self.server.is_some() {
            return Before::Off;
        }
        if !self.hook_records() {
            return self
                .snapshot_unlocked(Some(id))
                .map_or(Before::Off, Before::Snapshot);
        }
        let written = &self.processes[index(id)].written;
        let (connection, sandbox) = self.connection_and_sandbox(Some(id));
        let _trusted = sandbox.trusted();
        match self.read_rows(connection, written.keys().cloned()) {
            Ok(rows) => Before::Rows(rows),
            Err(_) => Before::Off,
        }
    }

    /// The rows that differ between `before` and now, as `id` (or the anchor)
    /// sees them.
    pub(super) fn row_changes_since(
        &mut self,
        before: Before,
        id: Option<ProcessId>,
    ) -> Vec<RowChange> {
        // `before` holds the rows to read back; `unread`, the rows of the
        // open transaction this step cannot have changed.
        let (before, unread) = match before {
            Before::Off => {
                self.keep_written(id, Rows::new());
                return Vec::new();
            }
            Before::Snapshot(before) => {
                return match self.snapshot_unlocked(id) {
                    Ok(after) => diff_tables(&before, &after),
                    Err(_) => Vec::new(),
                };
            }
            Before::Watching { watch, rollback } => {
                let mut written = self.take_written(id);
                let Some(touched) = watch.take() else {
                    // The hook lost a row: what the step changed is unknown,
                    // as when a snapshot cannot be read.
                    self.keep_written(id, written);
                    return Vec::new();
                };
                let mut rows = if rollback {
                    std::mem::take(&mut written)
                } else {
                    Rows::new()
                };
                // The first time a step touches a row, the hook sees it as
                // it was before the step; a row the transaction wrote before
                // is as the last step left it.
                for touched in touched {
                    if let std::collections::btree_map::Entry::Vacant(entry) =
                        rows.entry(touched.row)
                    {
                        let before = written.remove(entry.key()).unwrap_or(touched.before);
                        entry.insert(before);
                    }
                }
                (rows, written)
            }
            Before::Rows(rows) => (rows, Rows::new()),
        };
        let (connection, sandbox) = self.connection_and_sandbox(id);
        let trusted = sandbox.trusted();
        let after = self.read_rows(connection, before.keys().cloned());
        drop(trusted);
        let Ok(mut after) = after else {
            let mut rows = unread;
            rows.extend(before);
            self.keep_written(id, rows);
            return Vec::new();
        };
        let changes = before
            .into_iter()
            .zip(&after)
            .filter(|((_, old), (_, new))| old != *new)
            .map(|(((table, key), old), (_, new))| RowChange {
                table: self.seed.table_name(table).to_string(),
                key,
                before: old,
                after: new.clone(),
            })
            .collect();
        after.extend(unread);
        self.keep_written(id, after);
        changes
    }

    /// After a step that failed or met a lock, and so records no row
    /// changes: the rows it touched stay noted while the transaction is
    /// open, for a later rollback to be told (the call's end reads them).
    pub(super) fn abandon_step(&mut self, before: Before, id: ProcessId) {
        let Before::Watching { watch, .. } = before else {
            return;
        };
        let mut rows = self.take_written(Some(id));
        for touched in watch.take().unwrap_or_default() {
            rows.entry(touched.row).or_insert(touched.before);
        }
        self.keep_written(Some(id), rows);
    }

    /// The rows with `keys`, as `connection` sees them.
    fn read_rows(
        &self,
        connection: &Connection,
        keys: impl Iterator<Item = RowKey>,
    ) -> rusqlite::Result<Rows> {
        keys.map(|(table, key)| {
            let row = self.seed.read_row(connection, table, &key)?;
            Ok(((table, key), row))
        })
        .collect()
    }

    fn take_written(&mut self, id: Option<ProcessId>) -> Rows {
        id.and_then(|id| self.processes.get_mut(index(id)))
            .map(|p| std::mem::take(&mut p.written))
            .unwrap_or_default()
    }

    /// Keeps `rows` as what process `id`'s open transaction wrote, with the
    /// values it now sees; nothing once the transaction has ended (or for
    /// the anchor, whose direct SQL never leaves one open).
    fn keep_written(&mut self, id: Option<ProcessId>, rows: Rows) {
        let Some(process) = id.and_then(|id| self.processes.get_mut(index(id))) else {
            return;
        };
        let open = process
            .connection
            .as_ref()
            .is_some_and(|c| !c.is_autocommit());
        process.written = if open { rows } else { Rows::new() };
    }
}

/// The length of `event`'s JSON, counted without building it.
fn encoded_bytes(event: &Event) -> u64 {
    struct Count(u64);
    impl std::io::Write for Count {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0 += bytes.len() as u64;
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    // Serializing plain data into a counter cannot fail.
    let _ = serde_json::to_writer(&mut count, event);
    count.0
}

/// Whether `sql` is a ROLLBACK (of the transaction, or TO a savepoint): the
/// one kind of statement that changes rows without the hook seeing it.
pub(super) fn rolls_back(sql: &str) -> bool {
    crate::procedure::lexer::tokens(sql).is_ok_and(|tokens| {
        tokens
            .iter()
            .find(|token| !token.is_comment())
            .is_some_and(|first| first.is_word(sql, "ROLLBACK"))
    })
}

#[cfg(test)]
mod tests {
    use super::rolls_back;
    use crate::procedure::{Procedure, StatementClass, StepKind};

    /// A step's class, read when its procedure was parsed, says ROLLBACK
    /// exactly when `rolls_back` would: the engine asks the class on every
    /// step, and lexes only direct SQL.
    #[test]
    fn a_steps_class_says_rollback_exactly_when_its_text_does() {
        let mut texts: Vec<(String, String)> = vec![(
            "p".into(),
            "BEGIN;\nSAVEPOINT s;\nrollback to s;\n/* a comment */ ROLLBACK TO SAVEPOINT s;\n\
             -- a line\nRollBack;\nSELECT 'ROLLBACK';\nWITH x AS (SELECT 1) SELECT * FROM x;\n\
             INSERT INTO rollback_log VALUES (1);\nEND;\n"
                .into(),
        )];
        for exercise in crate::bundled::exercises().expect("the bundled exercises load") {
            texts.extend(exercise.texts_with(&Default::default()));
            texts.extend(exercise.texts_with(&exercise.start_edits()));
        }
        let (mut rollbacks, mut others) = (0, 0);
        for (name, text) in texts {
            let Ok(procedure) = Procedure::parse(&name, &text) else {
                continue;
            };
            for step in &procedure.steps {
                if let StepKind::Sql { sql, class } = &step.kind {
                    let said = *class == StatementClass::Rollback;
                    assert_eq!(said, rolls_back(sql), "{sql}");
                    if said { rollbacks += 1 } else { others += 1 }
                }
            }
        }
        assert!(
            rollbacks >= 3 && others > 100,
            "{rollbacks} rollbacks, {others} others"
        );
    }
}
