//! The fence around learner SQL.
//!
//! Procedures, scenario SQL and exercise schemas are untrusted text. Every
//! connection the engine opens runs them under:
//!
//! - SQLite's defensive configuration and an untrusted schema;
//! - an authorizer that allows only what exercises need: queries, ordinary
//!   DML on the exercise's own tables, transactions and savepoints, a few
//!   read-only pragmas. It denies ATTACH, every other pragma (`journal_mode =
//!   OFF` would silently defeat rollback), schema changes outside setup, and
//!   the functions that read the wall clock or real randomness, which would
//!   make a run unrepeatable (procedures get time from `:now`);
//! - a budget of SQLite steps per statement, so a runaway `WITH RECURSIVE`
//!   ends with a clear "step budget exceeded", and a budget per check shared
//!   by every connection of a world (the [`Meter`]): a step is one VM
//!   instruction, or a slice of the work of a text-matching function, which
//!   the sandbox replaces with metered versions (see `metered.rs`), because
//!   one LIKE can take seconds while SQLite counts it as one instruction;
//! - limits on the size of text, blobs and SQL, and on SQLite's heap.
//!
//! The denial reasons are kept so the engine can report them in words
//! instead of SQLite's bare "not authorized". The authorizer also notes
//! what each statement reads and writes ([`Access`]), which the explorer
//! uses to tell independent steps apart.

use crate::metered::Budget;
use rusqlite::Connection;
use rusqlite::config::DbConfig;
use rusqlite::hooks::{AuthAction, AuthContext, Authorization};
use rusqlite::limits::Limit;
use rustc_hash::FxBuildHasher;
use std::collections::{BTreeSet, HashMap};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// SQLite steps one statement may take: VM instructions, plus the work of
/// the metered text functions in the same unit.
pub const STATEMENT_VM_STEPS_MAX: u64 = 1_000_000;
/// How often, in VM instructions, SQLite calls the budget check. Each call
/// charges this many; what a statement ran past its last whole interval is
/// charged when it ends ([`Sandbox::settle_vm_steps`]), so the count is
/// exact.
const VM_STEPS_PER_CHECK: u64 = 1_000;
/// The largest string or blob a statement may build, in bytes.
pub const VALUE_BYTES_MAX: i32 = 4 * 1024;
/// The longest LIKE or GLOB pattern, in bytes. One LIKE counts as one VM
/// step however long it runs, and matching a long pattern against a long
/// text takes seconds: the step budget alone would not bound it.
pub const LIKE_PATTERN_BYTES_MAX: i32 = 256;
/// The longest SQL statement accepted, in bytes.
pub const SQL_BYTES_MAX: i32 = 32 * 1024;
/// The longest name (of a table, a column, a parameter; a word or a quoted
/// identifier) a statement may hold, in bytes. SQLite quotes names in its
/// errors and stores a CREATE statement's text as a value, both within
/// [`VALUE_BYTES_MAX`]: past it, a long unknown column was reported as a
/// bare "SQL logic error" (the message itself was too long to write) and
/// a long column name as an oversized value.
pub const NAME_BYTES_MAX: usize = 1024;

/// Read-only pragmas a learner may use to look at the schema.
const PRAGMAS_ALLOWED: &[&str] = &[
    "table_info",
    "table_xinfo",
    "table_list",
    "index_list",
    "index_info",
    "foreign_key_list",
];

/// Functions refused because they read the wall clock or real randomness.
const FUNCTIONS_DENIED: &[(&str, &str)] = &[
    (
        "random",
        "random() is not available: runs must replay exactly",
    ),
    (
        "randomblob",
        "randomblob() is not available: runs must replay exactly",
    ),
    (
        "date",
        "date() is not available: use :now, the fake clock, in integer seconds",
    ),
    (
        "time",
        "time() is not available: use :now, the fake clock, in integer seconds",
    ),
    (
        "datetime",
        "datetime() is not available: use :now, the fake clock, in integer seconds",
    ),
    (
        "julianday",
        "julianday() is not available: use :now, the fake clock, in integer seconds",
    ),
    (
        "unixepoch",
        "unixepoch() is not available: use :now, the fake clock, in integer seconds",
    ),
    (
        "strftime",
        "strftime() is not available: use :now, the fake clock, in integer seconds",
    ),
    (
        "timediff",
        "timediff() is not available: use :now, the fake clock, in integer seconds",
    ),
    (
        "current_date",
        "CURRENT_DATE reads the wall clock: use :now, the fake clock",
    ),
    (
        "current_time",
        "CURRENT_TIME reads the wall clock: use :now, the fake clock",
    ),
    (
        "current_timestamp",
        "CURRENT_TIMESTAMP reads the wall clock: use :now, the fake clock",
    ),
    ("load_extension", "load_extension() is not available"),
    // Per-connection counters would leak between processes and runs; a
    // statement's own results come back through RETURNING.
    (
        "changes",
        "changes() is not available: use RETURNING to see what a statement did",
    ),
    (
        "total_changes",
        "total_changes() is not available: use RETURNING to see what a statement did",
    ),
    (
        "last_insert_rowid",
        "last_insert_rowid() is not available: use RETURNING to get a new row's id",
    ),
];

/// Why the sandbox stopped a statement: a value of the model's, which says
/// it where it is shown.
pub use fencelab_model::report::Denial;

/// Restores the sandbox's trust when dropped.
pub struct Trusted<'a> {
    sandbox: &'a Sandbox,
    before: bool,
}

impl Drop for Trusted<'_> {
    fn drop(&mut self) {
        self.sandbox.trusted.store(self.before, Ordering::Relaxed);
    }
}

/// The budget of SQLite steps of one check, shared by every connection of
/// a world: the checker starts it with its limit before a check and reads
/// what the check spent afterwards. Between checks (a world driven by hand)
/// it has no limit.
#[derive(Debug)]
pub struct Meter {
    spent: AtomicU64,
    limit: AtomicU64,
}

impl Default for Meter {
    fn default() -> Self {
        Meter {
            spent: AtomicU64::new(0),
            limit: AtomicU64::new(u64::MAX),
        }
    }
}

impl Meter {
    /// Starts counting afresh, with `steps_max` to spend.
    pub fn start(&self, steps_max: u64) {
        self.spent.store(0, Ordering::Relaxed);
        self.limit.store(steps_max, Ordering::Relaxed);
    }

    /// Goes on counting from `spent`, with `steps_max` to spend: a check
    /// explored in slices keeps one budget across them.
    pub fn resume(&self, spent: u64, steps_max: u64) {
        self.spent.store(spent, Ordering::Relaxed);
        self.limit.store(steps_max, Ordering::Relaxed);
    }

    /// Counts `steps` as spent without running them: what a run resumed
    /// from an image charges for the steps that led there.
    pub fn charge(&self, steps: u64) {
        self.spent.fetch_add(steps, Ordering::Relaxed);
    }

    /// SQLite steps spent since [`start`](Meter::start).
    pub fn spent(&self) -> u64 {
        self.spent.load(Ordering::Relaxed)
    }

    pub fn limit(&self) -> u64 {
        self.limit.load(Ordering::Relaxed)
    }

    /// The check's budget, once it has spent more than its limit.
    pub fn exceeded(&self) -> Option<Denial> {
        (self.spent() > self.limit()).then(|| Denial::CheckBudget {
            steps_max: self.limit(),
        })
    }
}

/// What one statement touches, as SQLite's authorizer saw it when the
/// statement was prepared: the tables it reads (`SQLITE_READ`, in
/// subqueries, triggers and RETURNING too) and writes (`SQLITE_INSERT`,
/// `UPDATE`, `DELETE`), lower-cased, and whether it is transaction control
/// (BEGIN, COMMIT, ROLLBACK, SAVEPOINT, RELEASE).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Access {
    pub reads: BTreeSet<String>,
    pub writes: BTreeSet<String>,
    pub transaction: bool,
}

/// Distinct statement texts whose [`Access`] one connection remembers; past
/// it the memory starts afresh (a statement prepared again is seen again).
const ACCESSES_REMEMBERED_MAX: usize = 256;

/// The accesses of one connection's statements. The authorizer runs only
/// when SQLite prepares a statement, and a cached statement is not prepared
/// again, so what it saw is kept by statement text.
#[derive(Default)]
struct Accesses {
    /// What the authorizer has seen since the current statement began.
    capturing: Access,
    /// Whether it has been called at all since then (it is, for every
    /// statement SQLite prepares).
    called: bool,
    /// Shared, not copied: a statement's access is asked for after every
    /// step it runs, and copying its sets of names cost an allocation per
    /// name each time.
    by_sql: HashMap<String, Arc<Access>, FxBuildHasher>,
    /// The current statement's, once [`Sandbox::note_prepared`] has run.
    last: Option<Arc<Access>>,
}

/// The live state of one connection's fence, shared with SQLite's callbacks.
pub struct Sandbox {
    allow_schema_changes: AtomicBool,
    /// The engine's own maintenance (a reset), never learner text.
    trusted: AtomicBool,
    /// SQLite steps the current statement has taken.
    statement_steps: AtomicU64,
    /// Of those, the VM instructions the progress handler has charged.
    vm_steps_charged: AtomicU64,
    meter: Arc<Meter>,
    /// The budget that stopped the current statement, if one did.
    exceeded: Mutex<Option<Denial>>,
    denial: Mutex<Option<String>>,
    accesses: Mutex<Accesses>,
}

impl Sandbox {
    /// Installs the fence on `conn`, charging its work to `meter`, and
    /// returns its handle.
    pub fn install(conn: &mut Connection, meter: Arc<Meter>) -> rusqlite::Result<Arc<Sandbox>> {
        let sandbox = Arc::new(Sandbox {
            allow_schema_changes: AtomicBool::new(false),
            trusted: AtomicBool::new(false),
            statement_steps: AtomicU64::new(0),
            vm_steps_charged: AtomicU64::new(0),
            meter,
            exceeded: Mutex::new(None),
            denial: Mutex::new(None),
            accesses: Mutex::new(Accesses::default()),
        });
        conn.set_db_config(DbConfig::SQLITE_DBCONFIG_DEFENSIVE, true)?;
        conn.set_db_config(DbConfig::SQLITE_DBCONFIG_TRUSTED_SCHEMA, false)?;
        // The query planner's stability guarantee: a statement's plan
        // depends on its text and the schema, never on the values bound to
        // it. Without it SQLite re-prepares a cached statement whenever a
        // parameter it peeked at is bound again (`fencing_token = :token`
        // with a token of 1, then 2), which was most of the cost of some
        // exercises' runs.
        conn.set_db_config(DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG, true)?;
        conn.set_limit(Limit::SQLITE_LIMIT_LENGTH, VALUE_BYTES_MAX)?;
        conn.set_limit(
            Limit::SQLITE_LIMIT_LIKE_PATTERN_LENGTH,
            LIKE_PATTERN_BYTES_MAX,
        )?;
        conn.set_limit(Limit::SQLITE_LIMIT_SQL_LENGTH, SQL_BYTES_MAX)?;
        conn.set_limit(Limit::SQLITE_LIMIT_ATTACHED, 0)?;
        let budget: Arc<dyn Budget> = Arc::clone(&sandbox) as _;
        crate::metered::install(conn, &budget)?;
        // A transaction's changes stay in its own page cache until COMMIT
        // instead of spilling into the shared database mid-transaction,
        // which would take the exclusive lock early: the locks a process
        // holds between steps then follow from its transaction state alone
        // (what the explorer's independence judgement relies on).
        conn.pragma_update(None, "cache_spill", false)?;

        let budget = Arc::clone(&sandbox);
        conn.progress_handler(
            VM_STEPS_PER_CHECK as i32,
            Some(move || !budget.spend_vm_interval()),
        )?;

        let policy = Arc::clone(&sandbox);
        conn.authorizer(Some(move |context: AuthContext<'_>| {
            match policy.judge(&context) {
                Ok(()) => Authorization::Allow,
                Err(reason) => {
                    if let Ok(mut denial) = policy.denial.lock() {
                        denial.get_or_insert(reason);
                    }
                    Authorization::Deny
                }
            }
        }))?;
        Ok(sandbox)
    }

    /// The progress handler's charge: one interval of VM instructions.
    fn spend_vm_interval(&self) -> bool {
        if !self.trusted.load(Ordering::Relaxed) {
            self.vm_steps_charged
                .fetch_add(VM_STEPS_PER_CHECK, Ordering::Relaxed);
        }
        self.spend(VM_STEPS_PER_CHECK)
    }

    /// Call when a statement has run (or failed): `vm_steps` is the VM
    /// instructions SQLite counted for this run of it. Charges what the
    /// progress handler did not, the part past its last whole interval, so
    /// a run's count does not depend on what ran before it. It never stops
    /// the statement, which has ended; a check it takes past its budget
    /// stops at the next step ([`Meter::exceeded`]).
    pub(crate) fn settle_vm_steps(&self, vm_steps: u64) {
        let charged = self.vm_steps_charged.swap(0, Ordering::Relaxed);
        if self.trusted.load(Ordering::Relaxed) {
            return;
        }
        let rest = vm_steps.saturating_sub(charged);
        self.statement_steps.fetch_add(rest, Ordering::Relaxed);
        self.meter.spent.fetch_add(rest, Ordering::Relaxed);
    }

    /// Allows schema changes while an exercise's schema is being built.
    pub fn set_schema_changes_allowed(&self, allowed: bool) {
        self.allow_schema_changes.store(allowed, Ordering::Relaxed);
    }

    /// Trusts the engine's own statements until the guard is dropped: no
    /// authorizer and no step budget, which are for learner SQL.
    pub fn trusted(&self) -> Trusted<'_> {
        let before = self.trusted.swap(true, Ordering::Relaxed);
        Trusted {
            sandbox: self,
            before,
        }
    }

    /// Call before running a statement: starts its VM budget afresh and
    /// forgets earlier denials.
    pub fn begin_statement(&self) {
        self.statement_steps.store(0, Ordering::Relaxed);
        self.vm_steps_charged.store(0, Ordering::Relaxed);
        if let Ok(mut exceeded) = self.exceeded.lock() {
            *exceeded = None;
        }
        if let Ok(mut denial) = self.denial.lock() {
            *denial = None;
        }
        if let Ok(mut accesses) = self.accesses.lock() {
            accesses.capturing = Access::default();
            accesses.called = false;
            accesses.last = None;
        }
    }

    /// Call once the current statement (`sql`) is prepared: what the
    /// authorizer saw of it, or, for a statement SQLite had cached, what it
    /// saw when that text was prepared before. False when neither is known
    /// ([`Sandbox::last_access`] is `None`): the cache kept a statement
    /// whose text this memory has since dropped.
    pub fn note_prepared(&self, sql: &str) -> bool {
        let Ok(mut accesses) = self.accesses.lock() else {
            return false;
        };
        let accesses = &mut *accesses;
        let access = if accesses.called {
            let seen = Arc::new(std::mem::take(&mut accesses.capturing));
            if accesses.by_sql.len() >= ACCESSES_REMEMBERED_MAX {
                accesses.by_sql.clear();
            }
            accesses.by_sql.insert(sql.to_string(), Arc::clone(&seen));
            Some(seen)
        } else {
            accesses.by_sql.get(sql).cloned()
        };
        let known = access.is_some();
        accesses.last = access;
        known
    }

    /// What the current statement touches; `None` when it is unknown (not
    /// prepared, or its text not remembered).
    pub fn last_access(&self) -> Option<Arc<Access>> {
        self.accesses.lock().ok().and_then(|a| a.last.clone())
    }

    /// Notes what an authorized action of learner SQL touches.
    fn note_access(&self, action: &AuthAction<'_>) {
        let Ok(mut accesses) = self.accesses.lock() else {
            return;
        };
        accesses.called = true;
        let capturing = &mut accesses.capturing;
        match action {
            AuthAction::Read { table_name, .. } => {
                capturing.reads.insert(table_name.to_ascii_lowercase());
            }
            AuthAction::Insert { table_name }
            | AuthAction::Update { table_name, .. }
            | AuthAction::Delete { table_name } => {
                capturing.writes.insert(table_name.to_ascii_lowercase());
            }
            AuthAction::Transaction { .. } | AuthAction::Savepoint { .. } => {
                capturing.transaction = true;
            }
            _ => {}
        }
    }

    /// Why the last statement failed, in the sandbox's words, if the sandbox
    /// stopped it.
    pub fn explain_failure(&self) -> Option<Denial> {
        if let Some(exceeded) = self.exceeded.lock().ok().and_then(|e| e.clone()) {
            return Some(exceeded);
        }
        self.denial
            .lock()
            .ok()
            .and_then(|denial| denial.clone())
            .map(Denial::Refused)
    }

    fn judge(&self, context: &AuthContext<'_>) -> Result<(), String> {
        if self.trusted.load(Ordering::Relaxed) {
            return Ok(());
        }
        self.note_access(&context.action);
        if let Some(database) = context.database_name
            && database != "main"
            && database != "temp"
        {
            return Err(format!(
                "only the exercise's own database is available, not `{database}`"
            ));
        }
        let schema_changes = self.allow_schema_changes.load(Ordering::Relaxed);
        match context.action {
            AuthAction::Select | AuthAction::Recursive | AuthAction::Read { .. } => Ok(()),
            AuthAction::Transaction { .. } | AuthAction::Savepoint { .. } => Ok(()),
            // Writes to SQLite's own tables are left to defensive mode, which
            // refuses direct edits of the schema table but lets AUTOINCREMENT
            // maintain sqlite_sequence; schema changes are judged below.
            AuthAction::Insert { .. } | AuthAction::Update { .. } | AuthAction::Delete { .. } => {
                Ok(())
            }
            AuthAction::Function { function_name } => match denied_function_reason(function_name) {
                Some(reason) => Err(reason.to_string()),
                None => Ok(()),
            },
            AuthAction::Pragma { pragma_name, .. } => {
                if PRAGMAS_ALLOWED.contains(&pragma_name.to_ascii_lowercase().as_str()) {
                    Ok(())
                } else {
                    Err(format!(
                        "PRAGMA {pragma_name} is not allowed (allowed: {})",
                        PRAGMAS_ALLOWED.join(", ")
                    ))
                }
            }
            AuthAction::Attach { .. } | AuthAction::Detach { .. } => {
                Err("ATTACH and DETACH are not allowed: a world is one in-memory database".into())
            }
            // ANALYZE first creates its statistics table.
            AuthAction::CreateTable { table_name } if table_name.starts_with("sqlite_stat") => {
                Err("ANALYZE is not allowed here: it would change query plans between runs".into())
            }
            AuthAction::CreateTable { .. }
            | AuthAction::CreateTempTable { .. }
            | AuthAction::CreateIndex { .. }
            | AuthAction::CreateTrigger { .. }
            | AuthAction::CreateView { .. }
            | AuthAction::DropTable { .. }
            | AuthAction::DropIndex { .. }
            | AuthAction::DropTrigger { .. }
            | AuthAction::DropView { .. }
            | AuthAction::AlterTable { .. }
                if schema_changes =>
            {
                Ok(())
            }
            other => Err(format!(
                "{} is not allowed here: procedures query and change the exercise's tables",
                describe(&other)
            )),
        }
    }
}

impl Budget for Sandbox {
    /// Charges `steps` SQLite steps to the current statement and to the
    /// check; false once either budget has run out (the statement must
    /// stop). The engine's own statements are free.
    fn spend(&self, steps: u64) -> bool {
        if self.trusted.load(Ordering::Relaxed) {
            return true;
        }
        let statement = self.statement_steps.fetch_add(steps, Ordering::Relaxed) + steps;
        let check = self.meter.spent.fetch_add(steps, Ordering::Relaxed) + steps;
        let exceeded = if statement > STATEMENT_VM_STEPS_MAX {
            Denial::StepBudget {
                steps_max: STATEMENT_VM_STEPS_MAX,
            }
        } else if check > self.meter.limit() {
            Denial::CheckBudget {
                steps_max: self.meter.limit(),
            }
        } else {
            return true;
        };
        if let Ok(mut slot) = self.exceeded.lock() {
            slot.get_or_insert(exceeded);
        }
        false
    }
}

/// The sandbox's reason for refusing function `name`, if it refuses it.
/// Also for a function a build of SQLite leaves out (wasm has no
/// load_extension), so the learner reads the same sentence everywhere.
pub fn denied_function_reason(name: &str) -> Option<&'static str> {
    let lower = name.to_ascii_lowercase();
    FUNCTIONS_DENIED
        .iter()
        .find(|(denied, _)| *denied == lower)
        .map(|(_, reason)| *reason)
}

/// Why `sql` is refused before SQLite sees it: a statement starting with
/// VACUUM, which the authorizer would only see as the ATTACH it performs
/// first, and so explain in the wrong words; or a name past
/// [`NAME_BYTES_MAX`], which SQLite would explain in the wrong words or not
/// at all.
pub fn refuse_before_sqlite(sql: &str) -> Option<Denial> {
    // Every statement passes here before it runs, and lexing the whole
    // text cost more than a cached statement's run: a text without the
    // word anywhere cannot start with it, and a text no longer than the
    // longest name cannot hold a longer one.
    let vacuum = contains_ignoring_case(sql, "vacuum");
    if !vacuum && sql.len() <= NAME_BYTES_MAX {
        return None;
    }
    let tokens = crate::procedure::lexer::tokens(sql).ok()?;
    if let Some(long) = tokens.iter().find(|token| {
        matches!(
            token.kind,
            crate::procedure::lexer::TokenKind::Word
                | crate::procedure::lexer::TokenKind::QuotedName
                | crate::procedure::lexer::TokenKind::Parameter
        ) && token.end - token.start > NAME_BYTES_MAX
    }) {
        let name = long.text(sql);
        let shown: String = name.chars().take(40).collect();
        return Some(Denial::Refused(format!(
            "the name `{}...` is {} bytes long; a name may have at most {NAME_BYTES_MAX}",
            crate::text::visible(&shown),
            name.len()
        )));
    }
    let first = tokens.iter().find(|token| !token.is_comment())?;
    (vacuum && first.is_word(sql, "VACUUM")).then(|| {
        Denial::Refused(
            "VACUUM is not allowed: the engine manages the world's in-memory database".into(),
        )
    })
}

/// Whether `text` contains `word` (ASCII, compared without case). Every
/// statement run and every invariant query passes here: its first letter
/// is searched for (memchr's vector search), and the rest compared only
/// there.
fn contains_ignoring_case(text: &str, word: &str) -> bool {
    let (text, word) = (text.as_bytes(), word.as_bytes());
    let Some((first, rest)) = word.split_first() else {
        return true;
    };
    memchr::memchr2_iter(first.to_ascii_lowercase(), first.to_ascii_uppercase(), text).any(|at| {
        text.get(at + 1..at + word.len())
            .is_some_and(|after| after.eq_ignore_ascii_case(rest))
    })
}

/// The statement an authorizer action stands for, in SQL's words (never a
/// Rust name such as `CreateTrigger`).
fn describe(action: &AuthAction<'_>) -> String {
    match action {
        AuthAction::CreateTable { table_name } | AuthAction::CreateTempTable { table_name } => {
            format!("CREATE TABLE {table_name}")
        }
        AuthAction::DropTable { table_name } | AuthAction::DropTempTable { table_name } => {
            format!("DROP TABLE {table_name}")
        }
        AuthAction::AlterTable { table_name, .. } => format!("ALTER TABLE {table_name}"),
        AuthAction::CreateVtable { table_name, .. } => format!("CREATE VIRTUAL TABLE {table_name}"),
        AuthAction::DropVtable { table_name, .. } => format!("DROP TABLE {table_name}"),
        AuthAction::CreateIndex { index_name, .. }
        | AuthAction::CreateTempIndex { index_name, .. } => format!("CREATE INDEX {index_name}"),
        AuthAction::DropIndex { index_name, .. } | AuthAction::DropTempIndex { index_name, .. } => {
            format!("DROP INDEX {index_name}")
        }
        AuthAction::CreateTrigger { trigger_name, .. }
        | AuthAction::CreateTempTrigger { trigger_name, .. } => {
            format!("CREATE TRIGGER {trigger_name}")
        }
        AuthAction::DropTrigger { trigger_name, .. }
        | AuthAction::DropTempTrigger { trigger_name, .. } => {
            format!("DROP TRIGGER {trigger_name}")
        }
        AuthAction::CreateView { view_name } | AuthAction::CreateTempView { view_name } => {
            format!("CREATE VIEW {view_name}")
        }
        AuthAction::DropView { view_name } | AuthAction::DropTempView { view_name } => {
            format!("DROP VIEW {view_name}")
        }
        AuthAction::Reindex { .. } => "REINDEX".into(),
        AuthAction::Analyze { .. } => "ANALYZE".into(),
        AuthAction::Attach { .. } => "ATTACH".into(),
        AuthAction::Detach { .. } => "DETACH".into(),
        _ => "this kind of statement".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn a_word_is_found_in_any_case_anywhere_and_only_whole() {
        for (text, found) in [
            ("vacuum", true),
            ("VACUUM", true),
            ("x VaCuUm", true),
            ("vvacuum", true),
            ("vacuu", false),
            ("é vacuum é", true),
            ("vacuéum", false),
            ("", false),
        ] {
            assert_eq!(contains_ignoring_case(text, "vacuum"), found, "{text}");
        }
        assert!(contains_ignoring_case("anything", ""));
    }

    #[test]
    fn vacuum_is_refused_by_its_own_name_after_comments() {
        for sql in [
            "VACUUM",
            "  -- tidy up\n vacuum INTO '/tmp/x'",
            "/* a */ Vacuum;",
        ] {
            assert!(refuse_before_sqlite(sql).is_some(), "{sql}");
        }
        for sql in ["SELECT 1", "-- VACUUM\nSELECT 1", "", "   "] {
            assert!(refuse_before_sqlite(sql).is_none(), "{sql}");
        }
    }

    #[test]
    fn a_name_past_its_limit_is_refused_by_its_length_and_a_long_string_is_not() {
        let long = "c".repeat(NAME_BYTES_MAX + 1);
        for sql in [
            format!("SELECT {long} FROM t"),
            format!("SELECT \"{long}\" FROM t"),
            format!("SELECT :{long}"),
        ] {
            let refused = refuse_before_sqlite(&sql).map(|d| d.to_string());
            assert!(
                refused
                    .as_deref()
                    .is_some_and(|r| r.contains("a name may have at most 1024")),
                "{refused:?}"
            );
        }
        let fits = "c".repeat(NAME_BYTES_MAX);
        assert!(refuse_before_sqlite(&format!("SELECT {fits} FROM t")).is_none());
        let text = format!("SELECT '{long}'");
        assert!(
            refuse_before_sqlite(&text).is_none(),
            "a string is a value, not a name"
        );
    }

    // The metered text functions (metered.rs), as a sandboxed connection
    // runs them: tested here, where they are installed, so that metered.rs
    // needs nothing of the sandbox.

    fn metered() -> (Connection, Arc<Meter>) {
        let mut connection = Connection::open_in_memory().unwrap();
        let meter = Arc::new(Meter::default());
        let sandbox = Sandbox::install(&mut connection, Arc::clone(&meter)).unwrap();
        sandbox.begin_statement();
        (connection, meter)
    }

    fn one(connection: &Connection, sql: &str) -> rusqlite::types::Value {
        connection
            .query_row(sql, [], |row| row.get(0))
            .unwrap_or_else(|e| panic!("{sql}: {e}"))
    }

    /// Every answer equals SQLite's own: each expression is run on a plain
    /// connection (SQLite's versions) and on a sandboxed one (these).
    #[test]
    fn the_metered_functions_answer_as_sqlites_own() {
        let plain = Connection::open_in_memory().unwrap();
        let (sandboxed, _) = metered();
        let expressions = [
            "'abc' LIKE 'A%'",
            "'abc' LIKE 'a_c'",
            "'abc' LIKE 'b%'",
            "'a%c' LIKE 'a!%c' ESCAPE '!'",
            "'abc' LIKE 'a!%c' ESCAPE '!'",
            "'ÄbC' LIKE 'äbc'",
            "NULL LIKE 'a'",
            "'a' LIKE NULL",
            "'a' LIKE 'a' ESCAPE NULL",
            "12 LIKE '1%'",
            "1.5 LIKE '1.5'",
            "x'6162' LIKE 'ab'",
            "'abc' GLOB 'a*'",
            "'abc' GLOB 'A*'",
            "'abc' GLOB '[a-b]?c'",
            "instr('hello', 'l')",
            "instr('héllo', 'l')",
            "instr('hello', '')",
            "instr('hello', 'z')",
            "instr(NULL, 'a')",
            "instr('a', NULL)",
            "instr(12345, 34)",
            "instr(x'00010203', x'0203')",
            "instr(x'616263', 'c')",
            "instr('€€a', 'a')",
            "replace('banana', 'an', 'AN')",
            "replace('aaaa', 'aa', 'b')",
            "replace('abc', '', 'x')",
            "replace(123, 2, 9)",
            "replace('abc', 'b', NULL)",
            "replace(NULL, 'b', 'c')",
            "replace('abc', NULL, 'c')",
            "replace('a€b', '€', 'e')",
            "trim('xxhixx', 'x')",
            "ltrim('xxhixx', 'x')",
            "rtrim('xxhixx', 'x')",
            "trim('abhiba', 'ab')",
            "trim('hi', '')",
            "trim(NULL, 'x')",
            "trim('x', NULL)",
            "trim('€€h€', '€')",
            "trim(1200, '0')",
            "typeof(replace(5, '', 'a'))",
            "typeof(trim(5, 'x'))",
        ];
        for sql in expressions {
            let sql = format!("SELECT {sql}");
            assert_eq!(one(&sandboxed, &sql), one(&plain, &sql), "{sql}");
        }
    }

    #[test]
    fn errors_are_sqlites_own() {
        let (sandboxed, _) = metered();
        for (sql, message) in [
            (
                "SELECT 'a' LIKE 'a' ESCAPE 'xy'",
                "ESCAPE expression must be a single character",
            ),
            (
                "SELECT 'a' LIKE printf('%.*c', 300, 'a')",
                "LIKE or GLOB pattern too complex",
            ),
        ] {
            let error = sandboxed.query_row(sql, [], |_| Ok(())).unwrap_err();
            assert!(error.to_string().contains(message), "{sql}: {error}");
        }
    }

    /// The reproduction of issue 14: a quadratic LIKE in every row of a
    /// recursive query stops at the statement's budget, its work charged.
    #[test]
    fn a_long_like_in_every_row_stops_at_the_budget() {
        let (sandboxed, meter) = metered();
        let error = sandboxed
            .query_row(
                "WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r WHERE i < 100000) \
                 SELECT count(*) FROM r WHERE (printf('%.*c', 4000, 'a') || i) \
                 LIKE '%' || printf('%.*c', 250, 'a') || 'b%'",
                [],
                |_| Ok(()),
            )
            .unwrap_err();
        assert!(
            error.to_string().contains("step budget exceeded"),
            "{error}"
        );
        assert!(meter.spent() > STATEMENT_VM_STEPS_MAX);
        assert!(meter.spent() < 2 * STATEMENT_VM_STEPS_MAX);
    }
}
