//! A counterexample to take home: a [`Plan`] written as a standalone
//! Python 3 script that uses the standard library only.
//!
//! The script makes a temporary database file with the exercise's schema,
//! opens one `sqlite3` connection per process (`isolation_level=None`, so
//! the transactions are the procedures' own; `timeout=0`, so a lock is
//! reported at once, as the engine does), runs the schedule's statements in
//! order with their parameters, prints one line per step in the timeline's
//! words ("waits for the lock" where SQLite said busy), and deletes its
//! file. Each statement carries what fencelab saw it do: the script counts
//! every step where the file did otherwise, and prints both. When every
//! step agreed it says the run was reproduced and ends on fencelab's
//! verdict, the broken guarantee in the page's sentence (exit 1) or that
//! none broke (exit 0); when one differed,
//! fencelab's verdict does not carry over, and it says so (exit 2).
//!
//! A run on a PostgreSQL server is written by [`postgres_script`] instead:
//! psycopg 3, a scratch database of its own on the server its command line
//! names, one autocommit connection per process, each statement sent on a
//! thread and seen waiting as the engine sees it; a statement that waited
//! finishes at the step fencelab saw it finish. It ends as the SQLite
//! script does (the printing and the verdict are one shared runtime), and
//! exits 3 when it cannot run ([`EXIT_NOT_RUN`]).
//!
//! Pure text: the caller writes the file.

use crate::exercise::Isolation;
use crate::history::{ResultRows, Values};
use crate::replay::{Action, Expected, Plan, PlanStep};
use crate::report::Verdict;
use crate::value::Value;
use std::fmt::Write;

/// What the script exits with when a step differed from fencelab's run.
pub const EXIT_DIFFERED: i32 = 2;

/// A file name for `plan`'s script: `EXERCISE-SCENARIO.py`, in letters,
/// digits and dashes only.
pub fn file_name(plan: &Plan) -> String {
    let name: String = format!("{}-{}", plan.exercise, plan.scenario)
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect();
    let name: Vec<&str> = name.split('-').filter(|part| !part.is_empty()).collect();
    format!("{}.py", name.join("-"))
}

/// Lines 1 and 2 of every script, always exactly these. Python reads an
/// encoding declaration (PEP 263) from a comment on either line, so neither
/// may hold a character of exercise text: the declaration is the script's
/// own, and [`py_str`] writes only ASCII, so no codec reads the file
/// otherwise.
pub const FIRST_LINES: &str = "#!/usr/bin/env python3\n# -*- coding: utf-8 -*-\n";

/// The script for `plan`. `made_by` names the program and version that
/// wrote it (`fencelab 0.1.0`).
///
/// Untrusted text (the exercise's id, scenario and process names, schema,
/// statements, values, the problem's sentence, and `made_by`) reaches the
/// script only as a string literal written by [`py_str`]: never in a
/// comment, never on lines 1-2, never as code.
pub fn python_script(plan: &Plan, made_by: &str) -> String {
    let mut out = String::from(FIRST_LINES);
    out.push_str(HEADER);
    let journal = [
        ("JOURNAL", py_str(plan.journal.pragma_name())),
        ("JOURNAL_NAME", py_str(&plan.journal.to_string())),
    ];
    write_constants(&mut out, plan, made_by, "file", &journal);
    out.push_str(RUNTIME);
    out.push_str(SHARED_RUNTIME);
    write_schedule(&mut out, &plan.steps, &Flavour::Sqlite);
    out.push_str(FOOTER);
    out
}

/// The statement as a PostgreSQL driver sends it: `sql` with each `:name`
/// numbered `$n`, and the names in their numbers' order (the PostgreSQL
/// engine's own rewrite, which the model does not link).
pub type Numbered<'a> = &'a dyn Fn(&str) -> (String, Vec<String>);

/// The script for `plan`, a run on a PostgreSQL server whose sessions ran
/// at `isolation`: psycopg 3, a scratch database of its own on the server
/// its command line names, one connection per process, a wait detected as
/// the engine detects it. Untrusted text reaches it as [`python_script`]'s
/// does: only through [`py_str`].
pub fn postgres_script(
    plan: &Plan,
    isolation: Isolation,
    numbered: Numbered<'_>,
    made_by: &str,
) -> String {
    let mut out = String::from(FIRST_LINES);
    out.push_str(POSTGRES_HEADER);
    let level = [("ISOLATION", py_str(isolation.word()))];
    write_constants(&mut out, plan, made_by, "server", &level);
    out.push_str(POSTGRES_RUNTIME);
    out.push_str(SHARED_RUNTIME);
    write_schedule(&mut out, &plan.steps, &Flavour::Postgres(numbered));
    out.push_str(POSTGRES_FOOTER);
    out
}

/// The script's constants: what it replays and what it ends on, `place`
/// naming what it runs on (`file`, `server`), with the engine's own
/// constants after the schedule's.
fn write_constants(
    out: &mut String,
    plan: &Plan,
    made_by: &str,
    place: &str,
    engine: &[(&str, String)],
) {
    let problem = match (&plan.problem, plan.verdict) {
        (Some(problem), Verdict::Failed | Verdict::Error) => py_str(problem),
        _ => "None".into(),
    };
    let verdict = match plan.verdict {
        Verdict::Passed => "every guarantee held",
        Verdict::LimitShown => "the scenario shows where the protection ends, as intended",
        Verdict::Failed => "a guarantee broke",
        Verdict::Error => "fencelab could not judge this run",
    };
    // Said before the verdict, once every step agreed: the run was
    // reproduced on a real database, which the verdict alone does not say.
    let reproduced = match plan.verdict {
        Verdict::Failed => format!(
            "Reproduced on this {place}: every step did what fencelab's run did, and this guarantee broke:"
        ),
        Verdict::Error => format!(
            "Every step on this {place} did what fencelab's run did, and fencelab could not judge it:"
        ),
        Verdict::Passed | Verdict::LimitShown => {
            format!("Reproduced on this {place}: every step did what fencelab's run did:")
        }
    };
    let first = [
        ("MADE_BY", py_str(made_by)),
        ("EXERCISE", py_str(&plan.exercise)),
        ("SCENARIO", py_str(&plan.scenario)),
        ("SCHEDULE", py_str(&plan.schedule.to_string())),
    ];
    let last = [
        ("SCHEMA", py_str(&plan.schema)),
        ("PROBLEM", problem),
        ("VERDICT", py_str(verdict)),
        ("REPRODUCED", py_str(&reproduced)),
    ];
    for (name, literal) in first.iter().chain(engine).chain(&last) {
        let _ = writeln!(out, "{name} = {literal}");
    }
}

/// How a script's statement steps are written.
enum Flavour<'a> {
    /// `run(who, process, procedure, sql, parameters, expect=...)`.
    Sqlite,
    /// As SQLite's, with the statement numbered for the driver between the
    /// text and its parameters: `run(..., sql, numbered, names, ...)`.
    Postgres(Numbered<'a>),
}

/// The script's `schedule()` function: one call into the runtime a step,
/// every string in it a literal that [`py_str`] wrote.
fn write_schedule(out: &mut String, steps: &[PlanStep], flavour: &Flavour<'_>) {
    out.push_str("\n\ndef schedule():\n");
    if steps.is_empty() {
        out.push_str("    pass\n");
    }
    for step in steps {
        let who = py_str(&step.who);
        let line = py_str(&step.line);
        let _ = match &step.action {
            Action::Open { process } => {
                writeln!(out, "    start({who}, {}, {line})", py_str(process))
            }
            Action::Close { process } => {
                writeln!(out, "    crash({who}, {}, {line})", py_str(process))
            }
            Action::Rollback { process } => {
                writeln!(out, "    rollback({who}, {}, {line})", py_str(process))
            }
            Action::Note => writeln!(out, "    note({who}, {line})"),
            Action::Direct { sql, changed } => {
                writeln!(out, "    direct({}, changed={changed})", py_str(sql))
            }
            Action::Run {
                process,
                sql,
                parameters,
                expected,
            } => {
                let procedure = step.line.split(':').next().unwrap_or_default();
                let numbered = match flavour {
                    Flavour::Sqlite => String::new(),
                    Flavour::Postgres(numbered) => {
                        let (text, names) = numbered(sql);
                        let names: Vec<String> = names.iter().map(|n| py_str(n)).collect();
                        format!("\n        {}, [{}],", py_str(&text), names.join(", "))
                    }
                };
                writeln!(
                    out,
                    "    run({who}, {}, {}, {},{numbered}\n        {},\n        expect={})",
                    py_str(process),
                    py_str(procedure),
                    py_str(sql),
                    py_parameters(parameters),
                    py_expected(expected)
                )
            }
        };
    }
}

/// The script of a plan with no exercise text at all: every string empty,
/// no step. What every script must keep around its literals (the tests
/// compare each script's structure with it, as Python parses both).
pub fn template_script() -> String {
    python_script(&empty_plan(), "")
}

/// [`template_script`] for PostgreSQL: [`postgres_script`]'s template.
pub fn postgres_template_script() -> String {
    let numbered = |sql: &str| (sql.to_string(), Vec::new());
    postgres_script(&empty_plan(), Isolation::default(), &numbered, "")
}

fn empty_plan() -> Plan {
    Plan {
        exercise: String::new(),
        scenario: String::new(),
        schedule: crate::schedule::Schedule::default(),
        journal: crate::exercise::Journal::default(),
        schema: String::new(),
        steps: Vec::new(),
        verdict: Verdict::Passed,
        problem: None,
    }
}

const HEADER: &str = r#"#
# A counterexample written by fencelab: the exercise, scenario and schedule it
# replays are named below (EXERCISE, SCENARIO, SCHEDULE) and printed first.
#
# Run it with:   python3 THIS_FILE.py      (Python 3.11 or later tells a stale
#                                          WAL snapshot from a lock by its code)
#
# It makes a temporary database file with the exercise's schema and seed rows,
# opens one sqlite3 connection per process (isolation_level=None: the
# transactions are the procedures' own; timeout=0: a lock is reported at once,
# never waited for), runs the schedule's statements in fencelab's order with
# their parameters, prints one line per step, and deletes the file.
#
# Each statement carries what fencelab saw it do. A step where this file does
# otherwise is printed with both results, and the script then exits 2: from
# there on, fencelab's verdict says nothing about this run. When every step
# agrees, the script ends on fencelab's verdict: the broken guarantee in the
# sentence the page shows (exit 1), or that every guarantee held (exit 0).
# Edit the statements, their order or their parameters and run it again.
#
# What it cannot show: a crash. Closing a connection rolls its transaction
# back as a crash would, but the file is never torn mid-write.

import os
import shutil
import sqlite3
import sys
import tempfile
import unicodedata

"#;

const RUNTIME: &str = r#"
SQLITE_BUSY_SNAPSHOT = 517  # SQLite's extended result code for a stale snapshot

folder = tempfile.mkdtemp(prefix="fencelab-")
path = os.path.join(folder, "counterexample.db")
PLACE = "file"
connections = {}


def connect():
    connection = sqlite3.connect(path, isolation_level=None, timeout=0)
    connection.execute("PRAGMA foreign_keys = ON")
    connection.execute("PRAGMA recursive_triggers = OFF")
    return connection


def start(who, process, line):
    connections[process] = connect()
    say(who, line)


def crash(who, process, line):
    connections.pop(process).close()
    say(who, line)


def rollback(who, process, line):
    connections[process].execute("ROLLBACK")
    say(who, line)


def run(who, process, procedure, sql, parameters, expect):
    connection = connections[process]
    before = connection.total_changes
    try:
        cursor = connection.execute(sql, parameters)
        rows = [list(row) for row in cursor.fetchall()]
        columns = [d[0] for d in cursor.description] if cursor.description else []
        changed = 0
        if connection.total_changes != before:
            changed = connection.execute("SELECT changes()").fetchone()[0]
        seen = ("ran", changed, columns, rows)
    except sqlite3.Error as error:
        code = getattr(error, "sqlite_errorcode", None)
        if code == SQLITE_BUSY_SNAPSHOT:
            seen = ("fails", True, str(error))
        elif (code is not None and (code & 0xFF) in (5, 6)) or (code is None and "locked" in str(error)):
            seen = ("waits",)
        else:
            seen = ("fails", False, str(error))
    compare(who, procedure, sql, parameters, expect, seen)


def direct(sql, changed):
    world = connections["(world)"]
    before = world.total_changes
    world.executescript(sql)
    seen = world.total_changes - before
    say("", f"direct SQL: {' '.join(sql.split())}  changed {seen}")
    if seen != changed:
        differ(f"changed {changed}", f"changed {seen}")
"#;

/// The runtime both engines' scripts end with: how a step is printed and
/// compared with what fencelab saw.
const SHARED_RUNTIME: &str = r#"
differences = 0


def visible(text):
    # Names and statements come from the exercise: a control character or a
    # bidirectional override in them is written out, never sent to the terminal.
    return "".join(f"\\u{{{ord(c):04x}}}" if c not in "\n\t"
                   and unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp") else c for c in text)


def say(who, line):
    print(visible(f"{who:<6} {line}"))


def shown(value):
    if value is None:
        return "NULL"
    if isinstance(value, str):
        return "'" + value.replace("'", "''") + "'"
    if isinstance(value, bytes):
        return "x'" + value.hex() + "'"
    return str(value)


def typed(rows):
    return [[(type(value).__name__, value) for value in row] for row in rows]


def note(who, line):
    say(who, line)


def differ(expected, seen):
    global differences
    differences += 1
    print(f"       ^ DIFFERS: fencelab {expected}; this {PLACE} {seen}")


def compare(who, procedure, sql, parameters, expect, seen):
    one_line = " ".join(sql.split())
    if seen[0] == "waits":
        say(who, f"{procedure}: waits for the lock at {one_line}")
    elif seen[0] == "fails":
        say(who, f"{procedure}: {one_line}  fails: {seen[2]}")
    else:
        line = f"{procedure}: {one_line}"
        if parameters:
            line += "  [" + ", ".join(f"{k} = {shown(v)}" for k, v in parameters.items()) + "]"
        if seen[1] > 0:
            line += f"  changed {seen[1]}"
        if seen[2]:
            line += f"  returned {len(seen[3])} row{'' if len(seen[3]) == 1 else 's'}"
        say(who, line)
        for row in seen[3]:
            say("", "    (" + ", ".join(shown(value) for value in row) + ")")
    if expect[0] != seen[0]:
        differ(describe(expect), describe(seen))
    elif expect[0] == "ran" and (expect[1] != seen[1] or expect[2] != seen[2]
                                 or typed(expect[3]) != typed(seen[3])):
        differ(describe(expect), describe(seen))
    elif expect[0] == "fails" and expect[1] != seen[1]:
        differ(describe(expect), describe(seen))


def ending():
    # The verdict, once every step ran: fencelab's when every one agreed.
    print()
    if differences:
        print(f"{differences} step(s) differ from fencelab's run, so its verdict does not "
              f"carry over to this {PLACE}.")
        return 2
    print(visible(REPRODUCED))
    print()
    if PROBLEM is not None:
        print(visible(PROBLEM))
        return 1
    print(visible(VERDICT))
    return 0


def describe(result):
    if result[0] == "waits":
        return "waits for the lock"
    if result[0] == "fails":
        return "fails on its stale snapshot" if result[1] else "fails"
    rows = ", ".join("(" + ", ".join(shown(v) for v in row) + ")" for row in result[3])
    return f"ran (changed {result[1]}, returned [{rows}])"
"#;

const FOOTER: &str = r#"

def main():
    print(visible(f"{MADE_BY}: exercise {EXERCISE}, scenario {SCENARIO}, schedule \"{SCHEDULE}\","))
    print(visible(f"on a database file in journal mode {JOURNAL} ({JOURNAL_NAME})."))
    print()
    try:
        world = connect()
        world.execute("PRAGMA page_size = 1024")
        mode = world.execute(f"PRAGMA journal_mode = {JOURNAL}").fetchone()[0]
        if mode != JOURNAL:
            print(f"SQLite kept journal mode {mode} where {JOURNAL} was asked")
            return 2
        world.executescript(SCHEMA)
        connections["(world)"] = world
        schedule()
    finally:
        for connection in connections.values():
            connection.close()
        shutil.rmtree(folder, ignore_errors=True)
    return ending()


if __name__ == "__main__":
    sys.exit(main())
"#;

/// What the PostgreSQL script exits with when it could not run at all: no
/// server named on its command line, no psycopg, no server reached.
pub const EXIT_NOT_RUN: i32 = 3;

const POSTGRES_HEADER: &str = r#"#
# A counterexample written by fencelab, for PostgreSQL: the exercise, scenario
# and schedule it replays are named below (EXERCISE, SCENARIO, SCHEDULE) and
# printed first.
#
# Run it with:   python3 THIS_FILE.py 'host=/run/postgresql dbname=postgres'
#           or:  python3 THIS_FILE.py postgres://me@localhost/postgres
# It needs psycopg 3 (pip install 'psycopg[binary]') and a role that may
# create a database.
#
# It makes a scratch database of its own on that server (CREATE DATABASE, so
# nothing it runs touches your own tables, and the exercise's names resolve as
# they did in fencelab's run), applies the exercise's schema and seed rows,
# opens one connection per process (autocommit: the transactions are the
# procedures' own, at the isolation level ISOLATION names), runs the
# schedule's statements in fencelab's order with their parameters bound, prints
# one line per step, and drops the database, also when a step fails.
#
# Each statement is sent on a thread of its own connection; the script then
# asks the server, as PostgreSQL's isolationtester does, whether that session
# waits on another's lock (pg_isolation_test_session_is_blocked). A statement
# that waits stays in flight, and finishes at the step where fencelab saw it
# finish.
#
# Each statement carries what fencelab saw it do. A step where this server
# does otherwise is printed with both results, and the script then exits 2:
# from there on, fencelab's verdict says nothing about this run. When every
# step agrees, the script ends on fencelab's verdict: the broken guarantee in
# the sentence the page shows (exit 1), or that every guarantee held (exit 0).
# It exits 3 when it cannot run: no server given, no psycopg, no server.
#
# What it cannot show: a crash. Closing a connection rolls its transaction
# back as a crash would, but the server itself never fails.

import secrets
import sys
import threading
import time
import unicodedata

try:
    import psycopg
    from psycopg import sql as pgsql
    from psycopg.adapt import Dumper
except ImportError:
    psycopg = None
    Dumper = object

"#;

const POSTGRES_RUNTIME: &str = r#"
PLACE = "server"
STATEMENT_TIMEOUT_MS = 10000  # the engine's hard stop behind its budgets
DEADLOCK_TIMEOUT_MS = 20  # as the engine sets it, where the role may
PATIENCE = 12.0  # seconds a statement fencelab saw finish may take here
VOID = 2278  # the oid of PostgreSQL's void type
URL = None  # the server, from the command line
sessions = {}
world = {}


class Unknown:
    # A parameter sent as text of no type: the server infers its type from
    # the statement, as it does for fencelab's engine.
    def __init__(self, text):
        self.text = text


class UnknownDumper(Dumper):
    oid = 0

    def dump(self, obj):
        return obj.text.encode()


def bound(value):
    if value is None:
        return None
    if isinstance(value, bytes):
        return Unknown("\\x" + value.hex())
    if isinstance(value, float):
        return Unknown(repr(value))
    return Unknown(str(value))


def value_of(value, type_code):
    # A column's value as fencelab reads it: booleans are 1 and 0, a numeric
    # is its decimal text, a void is NULL.
    if type_code == VOID or value is None:
        return None
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value)
    if isinstance(value, (int, float, str)):
        return value
    return format(value, "f")


def connect(**extra):
    connection = psycopg.connect(URL, autocommit=True, **extra)
    connection.adapters.register_dumper(Unknown, UnknownDumper)
    return connection


def is_blocked(pid):
    others = [session.pid for session in sessions.values() if session.pid != pid]
    if not others:
        return False
    cursor = world["observer"].execute(
        "SELECT pg_catalog.pg_isolation_test_session_is_blocked(%s::int4, %s::int4[])",
        [pid, others])
    return cursor.fetchone()[0]


class Session:
    def __init__(self, isolation):
        self.connection = connect(dbname=world["name"], cursor_factory=psycopg.RawCursor)
        self.connection.execute(f"SET statement_timeout = '{STATEMENT_TIMEOUT_MS}ms'")
        self.connection.execute(
            pgsql.SQL("SET default_transaction_isolation = {}").format(pgsql.Literal(isolation)))
        try:
            self.connection.execute(f"SET deadlock_timeout = '{DEADLOCK_TIMEOUT_MS}ms'")
        except psycopg.Error:
            pass
        self.pid = self.connection.info.backend_pid
        self.flight = None

    def send(self, numbered, values):
        box = {}

        def work():
            try:
                cursor = self.connection.execute(numbered, values, binary=True)
                columns, codes, rows = [], [], []
                if cursor.description is not None:
                    columns = [d.name for d in cursor.description]
                    codes = [d.type_code for d in cursor.description]
                    rows = [[value_of(v, c) for v, c in zip(row, codes)] for row in cursor.fetchall()]
                changed = 0 if cursor.statusmessage.startswith("SELECT") else max(cursor.rowcount, 0)
                box["seen"] = ("ran", changed, columns, rows)
            except psycopg.Error as error:
                box["seen"] = ("fails", False, error.diag.message_primary or str(error))

        thread = threading.Thread(target=work, daemon=True)
        thread.start()
        self.flight = (thread, box)

    def settle(self, patience):
        # Until the statement finishes, or (patience None) the server says it
        # waits on another session's lock; with a patience, until it finishes
        # or that many seconds have passed.
        thread, box = self.flight
        started, pause = time.monotonic(), 0.0002
        while True:
            thread.join(pause)
            if not thread.is_alive():
                self.flight = None
                return box["seen"]
            if patience is None and is_blocked(self.pid):
                thread.join(0)
                if not thread.is_alive():
                    continue
                return ("waits",)
            if time.monotonic() - started > (patience or PATIENCE):
                return ("waits",)
            pause = min(pause * 2, 0.004)

    def close(self):
        if self.flight is not None:
            self.connection.cancel_safe()
            self.flight[0].join(PATIENCE)
            self.flight = None
        self.connection.execute("ROLLBACK")
        self.connection.execute("SELECT pg_catalog.pg_advisory_unlock_all()")
        self.connection.close()


def start(who, process, line):
    sessions[process] = Session(ISOLATION)
    say(who, line)


def crash(who, process, line):
    sessions.pop(process).close()
    say(who, line)


def rollback(who, process, line):
    sessions[process].connection.execute("ROLLBACK")
    say(who, line)


def run(who, process, procedure, sql, numbered, names, parameters, expect):
    session = sessions[process]
    if session.flight is None:
        session.send(numbered, [bound(parameters.get(name)) for name in names])
        seen = session.settle(None)
    else:
        seen = session.settle(PATIENCE)
    compare(who, procedure, sql, parameters, expect, seen)


def direct(sql, changed):
    connection = world["connection"]
    connection.execute("SET lock_timeout = '100ms'")
    cursor = connection.execute(sql)
    seen = max(cursor.rowcount, 0)
    while cursor.nextset():
        seen += max(cursor.rowcount, 0)
    connection.execute("ROLLBACK")
    connection.execute("SET lock_timeout = 0")
    say("", f"direct SQL: {' '.join(sql.split())}  changed {seen}")
    if seen != changed:
        differ(f"changed {changed}", f"changed {seen}")
"#;

const POSTGRES_FOOTER: &str = r#"

def open_world():
    admin = connect()
    world["admin"] = admin
    name = "fencelab_" + secrets.token_hex(8)
    admin.execute(pgsql.SQL("CREATE DATABASE {} TEMPLATE template0").format(pgsql.Identifier(name)))
    world["name"] = name
    world["connection"] = connect(dbname=name)
    world["observer"] = connect(dbname=name)
    world["connection"].execute(SCHEMA)


def close_world():
    for session in list(sessions.values()):
        try:
            session.close()
        except psycopg.Error:
            pass
    sessions.clear()
    for key in ("connection", "observer"):
        if key in world:
            world.pop(key).close()
    admin = world.pop("admin", None)
    if admin is not None and not admin.closed:
        if "name" in world:
            admin.execute(pgsql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(
                pgsql.Identifier(world.pop("name"))))
        admin.close()


def main():
    global URL
    if len(sys.argv) != 2:
        print(f"usage: python3 {sys.argv[0]} SERVER   (a postgres:// URL or libpq's "
              "'host=... user=... dbname=...'; the role must be allowed to create a database)")
        return 3
    if psycopg is None:
        print("this script needs psycopg 3: pip install 'psycopg[binary]'")
        return 3
    URL = sys.argv[1]
    print(visible(f"{MADE_BY}: exercise {EXERCISE}, scenario {SCENARIO}, schedule \"{SCHEDULE}\","))
    print(visible(f"on a PostgreSQL server, at isolation level {ISOLATION}."))
    print()
    try:
        open_world()
        schedule()
    except psycopg.Error as error:
        print(visible(f"the server stopped the replay: {error}"))
        return 3
    finally:
        close_world()
    return ending()


if __name__ == "__main__":
    sys.exit(main())
"#;

/// A Python string literal holding `text` exactly: the one way exercise
/// text enters a script.
///
/// The literal is ASCII whatever `text` holds: quotes, backslashes and
/// every character outside printable ASCII are escapes (`\n`, `\x1b`,
/// `\u2028`, `\U0001f600`), so the literal cannot end early, cannot span
/// a line, and reads the same under any codec that keeps ASCII, whatever
/// declaration a reader honours. Python decodes the escapes when it runs,
/// so what the script prints is `text` itself.
pub fn py_str(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            ' '..='~' => out.push(c),
            c if u32::from(c) <= 0xff => {
                let _ = write!(out, "\\x{:02x}", u32::from(c));
            }
            c if u32::from(c) <= 0xffff => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => {
                let _ = write!(out, "\\U{:08x}", u32::from(c));
            }
        }
    }
    out.push('"');
    out
}

/// A Python literal of the same type and value as SQLite returns it.
fn py_value(value: &Value) -> String {
    match value {
        Value::Null => "None".into(),
        Value::Integer(i) => i.to_string(),
        Value::Real(real) => {
            let real = real.get();
            if real.is_nan() {
                "float('nan')".into()
            } else if real.is_infinite() {
                if real > 0.0 {
                    "float('inf')"
                } else {
                    "float('-inf')"
                }
                .into()
            } else {
                // Rust's shortest round-trip form, which Python reads back
                // to the same double; always with a point or an exponent.
                let text = format!("{real:?}");
                if text.contains(['.', 'e', 'E']) {
                    text
                } else {
                    format!("{text}.0")
                }
            }
        }
        Value::Text(text) => py_str(text),
        Value::Blob(blob) => format!("bytes.fromhex({})", py_str(&blob.blob)),
    }
}

fn py_parameters(parameters: &Values) -> String {
    let items: Vec<String> = parameters
        .iter()
        .map(|(name, value)| format!("{}: {}", py_str(name), py_value(value)))
        .collect();
    format!("{{{}}}", items.join(", "))
}

fn py_rows(rows: &ResultRows) -> String {
    let rows: Vec<String> = rows
        .rows
        .iter()
        .map(|row| {
            let values: Vec<String> = row.iter().map(py_value).collect();
            format!("[{}]", values.join(", "))
        })
        .collect();
    format!("[{}]", rows.join(", "))
}

fn py_expected(expected: &Expected) -> String {
    match expected {
        Expected::Ran { changed, returned } => {
            let columns: Vec<String> = returned.columns.iter().map(|c| py_str(c)).collect();
            format!(
                "(\"ran\", {changed}, [{}], {})",
                columns.join(", "),
                py_rows(returned)
            )
        }
        Expected::Waits => "(\"waits\",)".into(),
        Expected::Fails { stale_snapshot } => format!(
            "(\"fails\", {})",
            if *stale_snapshot { "True" } else { "False" }
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_strings_keep_every_character() {
        assert_eq!(py_str("a\"b\\c\nd"), r#""a\"b\\c\nd""#);
        assert_eq!(
            py_str("\u{0}\u{7f}é\u{2028}\u{feff}\u{1f600}"),
            "\"\\x00\\x7f\\xe9\\u2028\\ufeff\\U0001f600\""
        );
    }

    #[test]
    fn reals_stay_reals_in_python() {
        assert_eq!(
            py_value(&Value::Real(crate::value::RealBits::new(1.0))),
            "1.0"
        );
        assert_eq!(
            py_value(&Value::Real(crate::value::RealBits::new(0.1))),
            "0.1"
        );
        assert_eq!(
            py_value(&Value::Real(crate::value::RealBits::new(1e300))),
            "1e300"
        );
        assert_eq!(py_value(&Value::Integer(-3)), "-3");
    }
}
