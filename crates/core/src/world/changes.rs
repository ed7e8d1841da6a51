//! The rows a step touched, as SQLite itself reports them: a preupdate hook
//! on every connection of the world notes the key of each exercise-table
//! row an insert, update or delete is about to change, and the row as it
//! was, while a step is being watched.
//!
//! This is what lets a recorded step cost what it changed rather than what
//! the database holds (a snapshot of every table before and after each
//! step cost 870 us per step with 300 messages and 600 tokens). The hook
//! fires for every row SQLite changes, whatever caused it: the statement,
//! its triggers, foreign-key actions, UPSERT, and the rows a REPLACE
//! conflict deletes. It does not fire when a ROLLBACK (of a transaction, a
//! savepoint or a failed statement) puts rows back, which is why the
//! recorder (record.rs) also remembers the keys an open transaction wrote.
//!
//! It must never note anything outside the exercise's own tables in `main`:
//! the checker's temp tables (beliefs, effects) and SQLite's own tables are
//! ignored, and no row is noted while no step is watched (a reset's seed
//! rows, the checker's bookkeeping).
//!
//! Watched or not, the log also keeps which exercise tables any connection
//! of the world has changed since the restorer last put rows back (see
//! seed.rs): a table no one has written since holds exactly what was put
//! back, so it need not be read, nor written again. A change a ROLLBACK
//! undoes still counts: the table may differ, so it is read.

use crate::sql_value::value_from_ref;
use crate::value::Value;
use rusqlite::Connection;
use rusqlite::hooks::PreUpdateCase;
use std::sync::{Arc, Mutex, MutexGuard};

/// A row of one exercise table: the table's index (in the order of the
/// world's tables, which is name order) and its key.
pub(super) type RowKey = (usize, Vec<Value>);

/// One row a watched step touched, and its values (without the key) as the
/// step found it: `None` for a row the step inserted.
pub(super) struct Touched {
    pub(super) row: RowKey,
    pub(super) before: Option<Vec<Value>>,
}

/// How the hook finds a row's key and values.
pub(super) struct HookTable {
    pub(super) name: String,
    /// The primary key's column indexes for a WITHOUT ROWID table; empty
    /// for a table keyed by its rowid.
    pub(super) key_columns: Vec<usize>,
}

/// Shared by the world and the hook of every one of its connections.
pub(super) struct ChangeLog {
    tables: Vec<HookTable>,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    /// Per exercise table, in table order: changed since the last
    /// [`ChangeLog::take_changed_tables`].
    changed: Vec<bool>,
    watching: bool,
    touched: Vec<Touched>,
    /// SQLite could not hand the hook a row (out of memory): what the step
    /// changed is unknown.
    lost: bool,
}

/// A step being watched: the hook notes what it touches until the watch is
/// taken or dropped.
pub(super) struct Watch {
    log: Arc<ChangeLog>,
}

impl ChangeLog {
    pub(super) fn new(tables: Vec<HookTable>) -> Arc<ChangeLog> {
        let changed = vec![false; tables.len()];
        Arc::new(ChangeLog {
            tables,
            state: Mutex::new(State {
                changed,
                ..State::default()
            }),
        })
    }

    /// Installs the hook that reports `connection`'s row changes here.
    pub(super) fn install(self: &Arc<Self>, connection: &mut Connection) -> rusqlite::Result<()> {
        let log = Arc::clone(self);
        connection.preupdate_hook(Some(
            move |_: rusqlite::hooks::Action, database: &str, table: &str, case: &PreUpdateCase| {
                if database == "main" {
                    log.note(table, case);
                }
            },
        ))
    }

    /// Starts noting the rows the next statements touch.
    pub(super) fn watch(self: &Arc<Self>) -> Watch {
        let mut state = self.state();
        state.watching = true;
        state.lost = false;
        state.touched.clear();
        Watch {
            log: Arc::clone(self),
        }
    }

    /// Which exercise tables a connection changed since the last call (in
    /// table order), and starts counting afresh: called when the restorer
    /// puts rows back.
    pub(super) fn take_changed_tables(&self) -> Vec<bool> {
        let mut state = self.state();
        let fresh = vec![false; state.changed.len()];
        std::mem::replace(&mut state.changed, fresh)
    }

    /// Which exercise tables a connection changed since the last
    /// [`ChangeLog::take_changed_tables`], in table order.
    pub(super) fn changed_tables(&self) -> Vec<bool> {
        self.state().changed.clone()
    }

    /// Counts every table as changed: what a put-back that failed half-way
    /// leaves.
    pub(super) fn all_changed(&self) {
        self.state().changed.fill(true);
    }

    /// A panic inside the hook cannot leave the state half-written in a way
    /// that matters (it is a list), so a poisoned lock is used as it is.
    fn state(&self) -> MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn note(&self, table: &str, case: &PreUpdateCase) {
        let Some(index) = self.tables.iter().position(|t| t.name == table) else {
            return;
        };
        let mut state = self.state();
        if let Some(changed) = state.changed.get_mut(index) {
            *changed = true;
        }
        if !state.watching {
            return;
        }
        match touched_rows(index, &self.tables[index].key_columns, case) {
            Ok(rows) => state.touched.extend(rows),
            Err(_) => state.lost = true,
        }
    }
}

/// The rows one change touches. A row is noted by its key before the
/// change and, when the change moves it (an UPDATE of its rowid or primary
/// key), by its new key too: the old key's row is gone, and the new key's
/// row is new unless a REPLACE deleted one there first, which the hook
/// reported already.
fn touched_rows(
    index: usize,
    key_columns: &[usize],
    case: &PreUpdateCase,
) -> rusqlite::Result<Vec<Touched>> {
    let mut rows = Vec::with_capacity(2);
    let mut old_key = None;
    if let PreUpdateCase::Delete(old)
    | PreUpdateCase::Update {
        old_value_accessor: old,
        ..
    } = case
    {
        let values = (0..old.get_column_count())
            .map(|i| old.get_old_column_value(i).map(value_from_ref))
            .collect::<Result<Vec<_>, _>>()?;
        let key = if key_columns.is_empty() {
            vec![Value::Integer(old.get_old_row_id())]
        } else {
            key_columns.iter().map(|&i| values[i].clone()).collect()
        };
        old_key = Some(key.clone());
        rows.push(Touched {
            row: (index, key),
            before: Some(values),
        });
    }
    if let PreUpdateCase::Insert(new)
    | PreUpdateCase::Update {
        new_value_accessor: new,
        ..
    } = case
    {
        let key = if key_columns.is_empty() {
            vec![Value::Integer(new.get_new_row_id())]
        } else {
            key_columns
                .iter()
                .map(|&i| new.get_new_column_value(column(i)).map(value_from_ref))
                .collect::<Result<Vec<_>, _>>()?
        };
        if old_key.as_ref() != Some(&key) {
            rows.push(Touched {
                row: (index, key),
                before: None,
            });
        }
    }
    Ok(rows)
}

/// A column index as SQLite's C interface takes it (a table has at most
/// 32,767 columns).
fn column(index: usize) -> i32 {
    i32::try_from(index).unwrap_or(i32::MAX)
}

impl Watch {
    /// Stops watching and hands over what the hook noted, in the order the
    /// changes happened, or `None` if it lost one.
    pub(super) fn take(self) -> Option<Vec<Touched>> {
        let (touched, lost) = {
            let mut state = self.log.state();
            (std::mem::take(&mut state.touched), state.lost)
        };
        (!lost).then_some(touched)
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        let mut state = self.log.state();
        state.watching = false;
        state.lost = false;
        state.touched.clear();
    }
}
