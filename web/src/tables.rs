//! The exercise's tables after a chosen step: the report's initial tables
//! with every event's row changes applied in order, and which cells the
//! chosen step itself changed.

use fencelab_model::history::{Event, RowChange, TableRows};
use fencelab_model::value::Value;

/// One table as shown: column names, rows (without their key) and, per
/// row, which cells the selected step changed (`None`: the row is new).
#[derive(Clone, Debug, PartialEq)]
pub struct ShownTable {
    pub table: String,
    pub columns: Vec<String>,
    pub rows: Vec<ShownRow>,
    /// Rows the selected step deleted, as they were.
    pub deleted: Vec<Vec<Value>>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ShownRow {
    pub cells: Vec<Value>,
    pub changed: Vec<bool>,
    pub inserted: bool,
}

/// The tables after event `selected` (all events up to and including it).
pub fn after_event(initial: &[TableRows], history: &[Event], selected: usize) -> Vec<ShownTable> {
    let mut tables: Vec<TableRows> = initial.to_vec();
    let upto = history.len().min(selected.saturating_add(1));
    for change in history[..upto].iter().flat_map(|e| &e.row_changes) {
        if let Some(table) = tables.iter_mut().find(|t| t.table == change.table) {
            apply(table, change);
        }
    }
    let selected_changes = history
        .get(selected)
        .map(|e| e.row_changes.as_slice())
        .unwrap_or_default();
    tables
        .into_iter()
        .map(|table| shown(table, selected_changes))
        .collect()
}

/// `table` with one row change made: a row updated, inserted in key order,
/// or deleted.
fn apply(table: &mut TableRows, change: &RowChange) {
    let key_len = table.key_len;
    let position = table
        .rows
        .iter()
        .position(|row| row.get(..key_len) == Some(&change.key[..]));
    match (&change.after, position) {
        (Some(after), Some(i)) => {
            table.rows[i] = change.key.iter().chain(after).cloned().collect();
        }
        (Some(after), None) => {
            let row: Vec<Value> = change.key.iter().chain(after).cloned().collect();
            let at = table
                .rows
                .iter()
                .position(|r| r.get(..key_len) > Some(&change.key[..]))
                .unwrap_or(table.rows.len());
            table.rows.insert(at, row);
        }
        (None, Some(i)) => {
            table.rows.remove(i);
        }
        (None, None) => {}
    }
}

/// `table` as shown at the selected event, whose `changes` mark its cells
/// changed, its rows inserted and the rows it deleted.
fn shown(table: TableRows, changes: &[RowChange]) -> ShownTable {
    let key_len = table.key_len;
    let mine: Vec<&RowChange> = changes.iter().filter(|c| c.table == table.table).collect();
    let rows = table
        .rows
        .iter()
        .map(|row| {
            let key = row.get(..key_len).unwrap_or_default();
            let cells: Vec<Value> = row.get(key_len..).unwrap_or_default().to_vec();
            let change = mine.iter().find(|c| c.key == key);
            let (changed, inserted) = match change.map(|c| &c.before) {
                Some(Some(before)) => (
                    cells
                        .iter()
                        .enumerate()
                        .map(|(i, v)| before.get(i) != Some(v))
                        .collect(),
                    false,
                ),
                Some(None) => (vec![true; cells.len()], true),
                None => (vec![false; cells.len()], false),
            };
            ShownRow {
                cells,
                changed,
                inserted,
            }
        })
        .collect();
    let deleted = mine
        .iter()
        .filter(|c| c.after.is_none())
        .filter_map(|c| c.before.clone())
        .collect();
    ShownTable {
        table: table.table,
        columns: table.columns,
        rows,
        deleted,
    }
}
