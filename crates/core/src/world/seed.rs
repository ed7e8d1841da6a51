//! The exercise's tables and its seed image: discovering the tables and a
//! stable way to read each, taking snapshots, diffing them into row
//! changes, and putting the seed rows back on reset.
//!
//! A reset writes through a connection of its own (the *restorer*), with
//! foreign keys and triggers off for good, so the seed is put back as it
//! was, not re-derived. Switching them off and on around each reset on the
//! anchor, as before, made SQLite expire every statement the anchor had
//! prepared (invariants, snapshots, the reset's own), so every run parsed
//! them all again.

use super::changes::HookTable;
use crate::history::{RowChange, TableRows};
use crate::sql_value::{Bind, value_from_ref};
use crate::sqlite::open_shared;
use crate::value::Value;
use rusqlite::Connection;
use rusqlite::config::DbConfig;
use std::collections::BTreeMap;
use std::sync::Arc;

/// One exercise table, and how to read it in a stable order.
pub(super) struct Table {
    name: String,
    columns: Vec<String>,
    key_len: usize,
    /// The primary key's column indexes, in key order, for a WITHOUT ROWID
    /// table; empty for a table keyed by its rowid.
    key_columns: Vec<usize>,
    select_sql: String,
    /// Reads the one row with a given key (bound as ?1, ?2, ...), in the
    /// same shape as `select_sql`'s rows.
    select_one_sql: String,
    /// Puts a row back on reset: the rowid too, unless a column already
    /// carries it (an INTEGER PRIMARY KEY) or the table has none.
    insert_sql: String,
    insert_with_key: bool,
    delete_sql: String,
}

/// What a reset puts back: the rows the schema seeded, by table, and the
/// AUTOINCREMENT counters, and the connection that puts them back.
pub(super) struct SeedImage {
    tables: Vec<Table>,
    rows: Vec<Arc<TableRows>>,
    /// What each table held when the restorer last put rows back (the
    /// seed, at first): what it still holds unless a connection has
    /// changed it since (`ChangeLog::changed_tables`).
    placed: Vec<Arc<TableRows>>,
    /// `None` when no table uses AUTOINCREMENT.
    sequences: Option<Vec<(String, i64)>>,
    /// The engine's own connection to the shared database, never given
    /// learner SQL: foreign keys and triggers off.
    restorer: Connection,
    /// Some table has generated columns, whose values SQLite's preupdate
    /// hook numbers differently from `PRAGMA table_info`.
    has_generated_columns: bool,
}

impl SeedImage {
    /// Reads the tables and their rows as the schema left them on `anchor`,
    /// and opens the restorer on the shared database `name`.
    pub(super) fn capture(
        anchor: &Connection,
        name: &str,
    ) -> Result<SeedImage, (&'static str, rusqlite::Error)> {
        let (tables, has_generated_columns) =
            discover_tables(anchor).map_err(|e| ("read the exercise's tables", e))?;
        let rows: Vec<Arc<TableRows>> = snapshot_tables(anchor, &tables)
            .map_err(|e| ("read the seed rows", e))?
            .into_iter()
            .map(Arc::new)
            .collect();
        let sequences =
            read_sequences(anchor).map_err(|e| ("read the AUTOINCREMENT counters", e))?;
        let restorer = open_restorer(name).map_err(|e| ("open the connection resets use", e))?;
        Ok(SeedImage {
            tables,
            placed: rows.clone(),
            rows,
            sequences,
            restorer,
            has_generated_columns,
        })
    }

    /// The name of table number `table`, in table order.
    pub(super) fn table_name(&self, table: usize) -> &str {
        &self.tables[table].name
    }

    /// What the preupdate hook needs to know of each table, in table order.
    pub(super) fn hook_tables(&self) -> Vec<HookTable> {
        self.tables
            .iter()
            .map(|t| HookTable {
                name: t.name.clone(),
                key_columns: t.key_columns.clone(),
            })
            .collect()
    }

    /// Whether the preupdate hook's column numbers are the snapshot's, so a
    /// change the hook reports reads as a snapshot would.
    pub(super) fn hook_columns_match(&self) -> bool {
        !self.has_generated_columns
    }

    /// The row of table `table` with exactly `key`, as `connection` sees it:
    /// its columns without the key, or `None` when there is none.
    pub(super) fn read_row(
        &self,
        connection: &Connection,
        table: usize,
        key: &[Value],
    ) -> rusqlite::Result<Option<Vec<Value>>> {
        let table = &self.tables[table];
        let mut statement = connection.prepare_cached(&table.select_one_sql)?;
        let mut rows = statement.query(rusqlite::params_from_iter(key.iter().map(Bind)))?;
        let Some(row) = rows.next()? else {
            return Ok(None);
        };
        let values = (0..table.key_len + table.columns.len())
            .map(|i| row.get_ref(i).map(value_from_ref))
            .collect::<Result<Vec<_>, _>>()?;
        // A key that only compares equal under a collation (NOCASE) names
        // another row in a snapshot, so only the exact key counts.
        let (found, rest) = values.split_at(table.key_len);
        Ok((found == key).then(|| rest.to_vec()))
    }

    /// The AUTOINCREMENT counters as `connection` sees them; `None` when
    /// the schema has none.
    pub(super) fn sequences_now(
        &self,
        connection: &Connection,
    ) -> rusqlite::Result<Option<Vec<(String, i64)>>> {
        if self.sequences.is_none() {
            return Ok(None);
        }
        sequence_rows(connection).map(Some)
    }

    /// Every exercise table as the committed state has it, read through
    /// `connection` (which has no transaction open) where a connection has
    /// `changed` it since the last put-back, and the rows put back then
    /// where none has.
    pub(super) fn committed(
        &self,
        connection: &Connection,
        changed: &[bool],
    ) -> rusqlite::Result<Vec<Arc<TableRows>>> {
        self.tables
            .iter()
            .zip(&self.placed)
            .zip(changed)
            .map(|((table, placed), &changed)| {
                if changed {
                    read_table(connection, table).map(Arc::new)
                } else {
                    Ok(Arc::clone(placed))
                }
            })
            .collect()
    }

    /// Every exercise table as `connection` sees it.
    pub(super) fn snapshot(&self, connection: &Connection) -> rusqlite::Result<Vec<TableRows>> {
        snapshot_tables(connection, &self.tables)
    }

    /// Puts the seed rows back with plain DML, as one transaction of the
    /// restorer. The schema is never touched, so no connection has to
    /// reload it or re-prepare its statements (a byte-for-byte copy of the
    /// image would make every connection do both, and that cost more than
    /// the run).
    /// `changed` says which tables a connection has written since the last
    /// put-back (`ChangeLog::take_changed_tables`).
    pub(super) fn restore(&mut self, changed: &[bool]) -> rusqlite::Result<()> {
        let seed = self.rows.clone();
        self.put_back(&seed, self.sequences.clone().as_deref(), changed)
    }

    /// Puts `rows` (one entry per table, as [`SeedImage::committed`] reads
    /// them) and the AUTOINCREMENT counters `sequences` in place of what
    /// the tables hold, as [`SeedImage::restore`] puts back the seed. Only
    /// the tables that differ are written: those changed since the last
    /// put-back (`changed`), or put back then with other rows. When none
    /// differs, nothing is written, so no connection's page cache goes
    /// stale.
    pub(super) fn put_back(
        &mut self,
        rows: &[Arc<TableRows>],
        sequences: Option<&[(String, i64)]>,
        changed: &[bool],
    ) -> rusqlite::Result<()> {
        let rewrite: Vec<bool> = rows
            .iter()
            .zip(&self.placed)
            .zip(changed)
            .map(|((wanted, placed), &changed)| {
                changed || !(Arc::ptr_eq(wanted, placed) || wanted == placed)
            })
            .collect();
        // sqlite_sequence is SQLite's own table, which the preupdate hook
        // does not report: it is read instead (a few rows). Rows put back
        // into an AUTOINCREMENT table move its counter, so it is written
        // after them whenever a table is.
        let tables = rewrite.iter().any(|&r| r);
        let sequences = match sequences {
            Some(wanted) if tables => Some(wanted),
            Some(wanted) => {
                let now = self.sequences_now(&self.restorer)?;
                (now.as_deref() != Some(wanted)).then_some(wanted)
            }
            None => None,
        };
        if tables || sequences.is_some() {
            self.write(rows, &rewrite, sequences)?;
        }
        self.placed = rows.to_vec();
        #[cfg(debug_assertions)]
        self.assert_placed();
        Ok(())
    }

    /// Checks, in debug builds (the tests), that every table holds what
    /// was put back: that the preupdate hook missed no change.
    #[cfg(debug_assertions)]
    fn assert_placed(&self) {
        let held = snapshot_tables(&self.restorer, &self.tables).expect("the tables read back");
        for (held, placed) in held.iter().zip(&self.placed) {
            assert_eq!(held, placed.as_ref(), "a put-back left other rows");
        }
    }

    /// One transaction of the restorer: the tables marked in `rewrite`
    /// emptied and filled with their `rows`, and `sequences` in place.
    fn write(
        &self,
        rows: &[Arc<TableRows>],
        rewrite: &[bool],
        sequences: Option<&[(String, i64)]>,
    ) -> rusqlite::Result<()> {
        let restorer = &self.restorer;
        // The seed rows carry their keys, so nothing here should draw on
        // SQLite's generator; pinned all the same, as before every statement.
        crate::sqlite::pin_randomness();
        let result = (|| {
            restorer.prepare_cached("BEGIN IMMEDIATE")?.execute([])?;
            for ((table, seed), _) in self
                .tables
                .iter()
                .zip(rows)
                .zip(rewrite)
                .filter(|(_, rewrite)| **rewrite)
            {
                restorer.prepare_cached(&table.delete_sql)?.execute([])?;
                let mut insert = restorer.prepare_cached(&table.insert_sql)?;
                for row in &seed.rows {
                    let values = if table.insert_with_key {
                        &row[..]
                    } else {
                        &row[table.key_len.min(row.len())..]
                    };
                    insert.execute(rusqlite::params_from_iter(values.iter().map(Bind)))?;
                }
            }
            if let Some(sequences) = sequences {
                restorer
                    .prepare_cached("DELETE FROM sqlite_sequence")?
                    .execute([])?;
                let mut insert = restorer
                    .prepare_cached("INSERT INTO sqlite_sequence (name, seq) VALUES (?1, ?2)")?;
                for (name, seq) in sequences {
                    insert.execute(rusqlite::params![name, seq])?;
                }
            }
            restorer.prepare_cached("COMMIT")?.execute([]).map(|_| ())
        })();
        if !restorer.is_autocommit() {
            let _ = restorer.execute_batch("ROLLBACK");
        }
        result
    }
}

/// Opens the restorer: a plain connection to the shared database `name`
/// (no sandbox: it only ever runs the statements above, built from the
/// schema's own names), with foreign keys, triggers and CHECK constraints
/// off. Every row it puts back was read from these tables, where its
/// checks passed when it was written; checked again, a CHECK such as
/// `state IN ('A', 'B', 'C')` builds and drops a table of its list on every
/// INSERT (callgrind: 2.5 % of a renewed check of execution-attempts, 4 %
/// of claim-compare-and-set's).
fn open_restorer(name: &str) -> rusqlite::Result<Connection> {
    let restorer = open_shared(name)?;
    restorer.execute_batch("PRAGMA foreign_keys = OFF; PRAGMA ignore_check_constraints = ON")?;
    restorer.set_db_config(DbConfig::SQLITE_DBCONFIG_ENABLE_TRIGGER, false)?;
    Ok(restorer)
}

/// `name` as a SQLite identifier, quoted.
pub(super) fn quote_identifier(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// The exercise's tables, and whether any has generated columns.
fn discover_tables(connection: &Connection) -> rusqlite::Result<(Vec<Table>, bool)> {
    let names: Vec<(String, bool)> = connection
        .prepare(
            "SELECT name, wr FROM pragma_table_list \
             WHERE schema = 'main' AND type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' \
             ORDER BY name",
        )?
        .query_map([], |row| Ok((row.get(0)?, row.get::<_, i64>(1)? != 0)))?
        .collect::<Result<_, _>>()?;
    let mut tables = Vec::new();
    let mut has_generated_columns = false;
    // One statement for every table's columns: a new checker prepares it
    // once, not once a table.
    let mut info = connection.prepare(
        "SELECT name, pk, upper(type) = 'INTEGER', hidden FROM pragma_table_xinfo(?1) \
         ORDER BY cid",
    )?;
    for (name, without_rowid) in names {
        let columns = read_columns(&mut info, &name)?;
        has_generated_columns |= columns.generated;
        tables.push(Table::new(name, without_rowid, columns));
    }
    Ok((tables, has_generated_columns))
}

/// One table's columns, as `pragma_table_xinfo` lists them.
struct Columns {
    /// The columns a reset writes back, in order (hidden and generated
    /// ones left out).
    names: Vec<String>,
    /// The primary key's columns: their place in the key, their index in
    /// `names` and their name, in key order.
    primary_key: Vec<(i64, usize, String)>,
    /// Whether the key's column is declared INTEGER (read for a key of one
    /// column, which is then the rowid's alias).
    integer_key: bool,
    /// Whether the table has a generated column.
    generated: bool,
}

/// The columns of the table `name`, read with `info` (the prepared
/// `pragma_table_xinfo` query).
fn read_columns(info: &mut rusqlite::Statement<'_>, name: &str) -> rusqlite::Result<Columns> {
    let mut columns = Columns {
        names: Vec::new(),
        primary_key: Vec::new(),
        integer_key: false,
        generated: false,
    };
    let mut rows = info.query([name])?;
    while let Some(row) = rows.next()? {
        if row.get::<_, i64>(3)? != 0 {
            columns.generated = true;
            continue;
        }
        let column: String = row.get(0)?;
        let pk: i64 = row.get(1)?;
        if pk > 0 {
            columns
                .primary_key
                .push((pk, columns.names.len(), column.clone()));
            columns.integer_key = row.get(2)?;
        }
        columns.names.push(column);
    }
    columns.primary_key.sort();
    Ok(columns)
}

impl Table {
    /// The table `name` with its `columns`, and the statements that read
    /// it in key order and put its rows back.
    fn new(name: String, without_rowid: bool, columns: Columns) -> Table {
        let Columns {
            names: columns,
            primary_key,
            integer_key,
            ..
        } = columns;
        let key_columns = if without_rowid {
            primary_key.iter().map(|(_, index, _)| *index).collect()
        } else {
            Vec::new()
        };
        // An INTEGER PRIMARY KEY column is the rowid under another name.
        let rowid_alias = !without_rowid && primary_key.len() == 1 && integer_key;
        let key: Vec<String> = if without_rowid {
            primary_key
                .into_iter()
                .map(|(_, _, c)| quote_identifier(&c))
                .collect()
        } else {
            vec!["rowid".to_string()]
        };
        let quoted: Vec<String> = columns.iter().map(|c| quote_identifier(c)).collect();
        let table = quote_identifier(&name);
        let select_sql = format!(
            "SELECT {keys}, {columns} FROM {table} ORDER BY {keys}",
            keys = key.join(", "),
            columns = quoted.join(", "),
        );
        let select_one_sql = format!(
            "SELECT {keys}, {columns} FROM {table} WHERE {matches}",
            keys = key.join(", "),
            columns = quoted.join(", "),
            matches = key
                .iter()
                .enumerate()
                .map(|(i, k)| format!("{k} = ?{}", i + 1))
                .collect::<Vec<_>>()
                .join(" AND "),
        );
        let insert_with_key = !without_rowid && !rowid_alias;
        let targets: Vec<String> = if insert_with_key {
            std::iter::once("rowid".to_string()).chain(quoted).collect()
        } else {
            quoted
        };
        let insert_sql = format!(
            "INSERT INTO {table} ({}) VALUES ({})",
            targets.join(", "),
            (1..=targets.len())
                .map(|i| format!("?{i}"))
                .collect::<Vec<_>>()
                .join(", ")
        );
        Table {
            name,
            columns,
            key_len: key.len(),
            key_columns,
            select_sql,
            select_one_sql,
            insert_sql,
            insert_with_key,
            delete_sql: format!("DELETE FROM {table}"),
        }
    }
}

/// The AUTOINCREMENT counters, if the schema has any.
fn read_sequences(connection: &Connection) -> rusqlite::Result<Option<Vec<(String, i64)>>> {
    let exists: bool = connection.query_row(
        "SELECT count(*) > 0 FROM sqlite_schema WHERE name = 'sqlite_sequence'",
        [],
        |row| row.get(0),
    )?;
    if !exists {
        return Ok(None);
    }
    sequence_rows(connection).map(Some)
}

/// The rows of sqlite_sequence, which must exist, in rowid order: the
/// order an AUTOINCREMENT insert scans them for its table's row, so a world
/// put back with them in this order spends on its next insert the SQLite
/// steps the path it stands for spent (in name order, a resumed run and
/// its replay disagreed on the steps of an insert that a trigger made).
fn sequence_rows(connection: &Connection) -> rusqlite::Result<Vec<(String, i64)>> {
    connection
        .prepare_cached("SELECT name, seq FROM sqlite_sequence ORDER BY rowid")?
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))?
        .collect()
}

fn snapshot_tables(connection: &Connection, tables: &[Table]) -> rusqlite::Result<Vec<TableRows>> {
    tables
        .iter()
        .map(|table| read_table(connection, table))
        .collect()
}

fn read_table(connection: &Connection, table: &Table) -> rusqlite::Result<TableRows> {
    let mut statement = connection.prepare_cached(&table.select_sql)?;
    let width = table.key_len + table.columns.len();
    let rows = statement
        .query_map([], |row| {
            (0..width)
                .map(|i| row.get_ref(i).map(value_from_ref))
                .collect::<Result<Vec<_>, _>>()
        })?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(TableRows {
        table: table.name.clone(),
        columns: table.columns.clone(),
        rows,
        key_len: table.key_len,
    })
}

/// The rows that differ between two snapshots of the same tables, in table
/// and key order.
pub fn diff_tables(before: &[TableRows], after: &[TableRows]) -> Vec<RowChange> {
    let mut changes = Vec::new();
    for (old, new) in before.iter().zip(after) {
        let split = |rows: &[Vec<Value>]| -> BTreeMap<Vec<Value>, Vec<Value>> {
            rows.iter()
                .map(|row| {
                    let (key, rest) = row.split_at(old.key_len.min(row.len()));
                    (key.to_vec(), rest.to_vec())
                })
                .collect()
        };
        let old_rows = split(&old.rows);
        let new_rows = split(&new.rows);
        let mut keys: Vec<&Vec<Value>> = old_rows.keys().chain(new_rows.keys()).collect();
        keys.sort();
        keys.dedup();
        for key in keys {
            let (b, a) = (old_rows.get(key), new_rows.get(key));
            if b != a {
                changes.push(RowChange {
                    table: old.table.clone(),
                    key: key.clone(),
                    before: b.cloned(),
                    after: a.cloned(),
                });
            }
        }
    }
    changes
}
