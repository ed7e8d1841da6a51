//! `fencelab replay` and `fencelab export --python`: a run of the engine
//! done again on a real database file, step by step, and compared.
//!
//! The core gives the run and the model reads it as a [`Plan`]; this module
//! owns what the core must never touch: the file (deleted and made afresh
//! for each replay, with its `-journal`, `-wal` and `-shm`), one SQLite
//! connection per scenario process, and with `--processes` one operating
//! system process per scenario process. Such a child is this same program
//! started as `fencelab replay-child --file PATH`, driven one request per
//! line over its standard input, answering one JSON line per request.

use crate::BadInput;
use fencelab_core::history::{ResultRows, Values};
use fencelab_core::replay::{Action, Observed, Plan};
use fencelab_core::sql_value::{Bind, value_from_ref};
use fencelab_core::sqlite::{is_busy, is_stale_snapshot};
use rusqlite::{Connection, OpenFlags};
use serde::{Deserialize, Serialize};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::OnceLock;

/// One step where the file did otherwise than the engine.
pub struct Difference {
    pub event: usize,
    pub who: String,
    pub line: String,
    pub what: String,
}

/// What one replay did.
#[derive(Default)]
pub struct Replayed {
    pub statements: usize,
    pub waits: usize,
    pub differences: Vec<Difference>,
}

/// A request to a child process, one JSON line.
#[derive(Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
enum Request {
    Run { sql: String, parameters: Values },
    Rollback,
}

/// Opens a connection to the database file as the replay's processes do:
/// no waiting for a lock, foreign keys on, as the engine's connections.
fn connect(file: &Path) -> rusqlite::Result<Connection> {
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
        | OpenFlags::SQLITE_OPEN_CREATE
        | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let connection = Connection::open_with_flags(file, flags)?;
    connection.busy_timeout(std::time::Duration::ZERO)?;
    connection.execute_batch("PRAGMA foreign_keys = ON; PRAGMA recursive_triggers = OFF;")?;
    Ok(connection)
}

/// Runs one statement as a process of the replay and says what it did, by
/// the same rules as the exported script: rows changed only when the
/// statement changed any (`changes()` otherwise keeps an earlier count).
fn observe(connection: &Connection, sql: &str, parameters: &Values) -> Observed {
    let before = connection.total_changes();
    let ran = (|| -> rusqlite::Result<ResultRows> {
        let mut statement = connection.prepare(sql)?;
        for (name, value) in parameters {
            if let Some(index) = statement.parameter_index(&format!(":{name}"))? {
                statement.raw_bind_parameter(index, Bind(value))?;
            }
        }
        let columns: Vec<String> = statement.column_names().map(str::to_string).collect();
        let count = columns.len();
        let mut rows = Vec::new();
        let mut cursor = statement.raw_query();
        while let Some(row) = cursor.next()? {
            rows.push(
                (0..count)
                    .map(|i| row.get_ref(i).map(value_from_ref))
                    .collect::<rusqlite::Result<Vec<_>>>()?,
            );
        }
        Ok(ResultRows { columns, rows })
    })();
    match ran {
        Ok(returned) => Observed::Ran {
            changed: if connection.total_changes() == before {
                0
            } else {
                connection.changes()
            },
            returned,
        },
        Err(error) if is_stale_snapshot(&error) => Observed::Fails {
            stale_snapshot: true,
            message: error.to_string(),
        },
        Err(error) if is_busy(&error) => Observed::Waits,
        Err(error) => Observed::Fails {
            stale_snapshot: false,
            message: error.to_string(),
        },
    }
}

/// A scenario process of the replay: a connection here, or a child.
enum Lane {
    Here(Connection),
    Child {
        child: Child,
        input: ChildStdin,
        output: BufReader<ChildStdout>,
    },
}

impl Lane {
    fn open(file: &Path, processes: bool) -> Result<Lane, String> {
        if !processes {
            return connect(file).map(Lane::Here).map_err(|e| e.to_string());
        }
        let program = std::env::current_exe().map_err(|e| format!("cannot find fencelab: {e}"))?;
        let mut child = Command::new(program)
            .arg("replay-child")
            .arg("--file")
            .arg(file)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|e| format!("cannot start a child process: {e}"))?;
        let input = child.stdin.take().ok_or("the child has no input")?;
        let output = BufReader::new(child.stdout.take().ok_or("the child has no output")?);
        Ok(Lane::Child {
            child,
            input,
            output,
        })
    }

    fn ask(&mut self, request: &Request) -> Result<Observed, String> {
        match self {
            Lane::Here(connection) => Ok(answer(connection, request)),
            Lane::Child { input, output, .. } => {
                let mut line = serde_json::to_string(request).map_err(|e| e.to_string())?;
                line.push('\n');
                input
                    .write_all(line.as_bytes())
                    .and_then(|()| input.flush())
                    .map_err(|e| format!("cannot write to the child: {e}"))?;
                let mut answer = String::new();
                output
                    .read_line(&mut answer)
                    .map_err(|e| format!("cannot read the child's answer: {e}"))?;
                serde_json::from_str(&answer)
                    .map_err(|e| format!("the child answered `{}`: {e}", answer.trim()))
            }
        }
    }

    /// Closes the connection (an open transaction rolls back), and waits
    /// for a child to end.
    fn close(self) -> Result<(), String> {
        match self {
            Lane::Here(connection) => connection.close().map_err(|(_, e)| e.to_string()),
            Lane::Child {
                mut child, input, ..
            } => {
                drop(input);
                let status = child.wait().map_err(|e| e.to_string())?;
                if status.success() {
                    Ok(())
                } else {
                    Err(format!("a child process ended with {status}"))
                }
            }
        }
    }
}

fn answer(connection: &Connection, request: &Request) -> Observed {
    match request {
        Request::Run { sql, parameters } => observe(connection, sql, parameters),
        Request::Rollback => observe(connection, "ROLLBACK", &Values::new()),
    }
}

/// `fencelab replay-child --file PATH`: one scenario process of a replay
/// with `--processes`. Answers each request line until its input ends.
pub fn child(file: &Path) -> Result<(), BadInput> {
    let connection =
        connect(file).map_err(|e| BadInput(format!("{}: cannot open: {e}", file.display())))?;
    let stdin = std::io::stdin();
    let mut stdout = std::io::stdout().lock();
    for line in stdin.lock().lines() {
        let line = line.map_err(|e| BadInput(format!("cannot read a request: {e}")))?;
        let request: Request = serde_json::from_str(&line)
            .map_err(|e| BadInput(format!("not a replay request: {e}")))?;
        let observed = answer(&connection, &request);
        let mut text = serde_json::to_string(&observed)
            .map_err(|e| BadInput(format!("cannot write an answer: {e}")))?;
        text.push('\n');
        stdout
            .write_all(text.as_bytes())
            .and_then(|()| stdout.flush())
            .map_err(|e| BadInput(format!("cannot write an answer: {e}")))?;
    }
    Ok(())
}

/// The file and the files SQLite keeps beside it.
fn remove_database(file: &Path) -> Result<(), String> {
    for suffix in ["", "-journal", "-wal", "-shm"] {
        let mut name = file.as_os_str().to_owned();
        name.push(suffix);
        match std::fs::remove_file(PathBuf::from(name)) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(format!("{}{suffix}: cannot remove: {e}", file.display())),
        }
    }
    Ok(())
}

/// Replays `plan` on `file` (made afresh, removed after), each scenario
/// process on a connection of its own, in a child process of its own with
/// `processes`.
pub fn replay(plan: &Plan, file: &Path, processes: bool) -> Result<Replayed, String> {
    remove_database(file)?;
    let result = replay_on(plan, file, processes);
    remove_database(file)?;
    result
}

fn replay_on(plan: &Plan, file: &Path, processes: bool) -> Result<Replayed, String> {
    let sqlite = |e: rusqlite::Error| format!("{}: {e}", file.display());
    let world = connect(file).map_err(sqlite)?;
    world
        .execute_batch("PRAGMA page_size = 1024")
        .map_err(sqlite)?;
    let mode: String = world
        .query_row(
            &format!("PRAGMA journal_mode = {}", plan.journal.pragma_name()),
            [],
            |row| row.get(0),
        )
        .map_err(sqlite)?;
    if !mode.eq_ignore_ascii_case(plan.journal.pragma_name()) {
        return Err(format!(
            "{}: SQLite kept journal mode {mode} where {} was asked",
            file.display(),
            plan.journal.pragma_name()
        ));
    }
    world.execute_batch(&plan.schema).map_err(sqlite)?;
    let mut lanes: Vec<(String, Lane)> = Vec::new();
    let mut replayed = Replayed::default();
    let lane = |lanes: &mut Vec<(String, Lane)>, process: &str| -> Result<usize, String> {
        lanes
            .iter()
            .position(|(id, _)| id == process)
            .ok_or_else(|| format!("{process} acts before it starts"))
    };
    for step in &plan.steps {
        let mut found: Option<String> = None;
        let mut differ = |what: String| found = Some(what);
        match &step.action {
            Action::Open { process } => {
                lanes.push((process.clone(), Lane::open(file, processes)?));
            }
            Action::Close { process } => {
                let at = lane(&mut lanes, process.as_str())?;
                lanes.remove(at).1.close()?;
            }
            Action::Rollback { process } => {
                let at = lane(&mut lanes, process.as_str())?;
                let observed = lanes[at].1.ask(&Request::Rollback)?;
                if !matches!(observed, Observed::Ran { .. }) {
                    differ(format!(
                        "the engine rolled the call's transaction back; on the file ROLLBACK {observed}"
                    ));
                }
            }
            Action::Run {
                process,
                sql,
                parameters,
                expected,
            } => {
                let at = lane(&mut lanes, process.as_str())?;
                let observed = lanes[at].1.ask(&Request::Run {
                    sql: sql.clone(),
                    parameters: parameters.clone(),
                })?;
                replayed.statements += 1;
                if observed == Observed::Waits {
                    replayed.waits += 1;
                }
                if let Some(what) = expected.differs(&observed) {
                    differ(what);
                }
            }
            Action::Direct { sql, changed } => {
                replayed.statements += 1;
                let before = world.total_changes();
                match world.execute_batch(sql) {
                    Ok(()) => {
                        let seen = world.total_changes() - before;
                        if seen != *changed {
                            differ(format!("changed {changed} in fencelab, {seen} on the file"));
                        }
                    }
                    Err(e) => differ(format!("ran in fencelab, fails on the file ({e})")),
                }
            }
            Action::Note => {}
        }
        if let Some(what) = found {
            replayed.differences.push(Difference {
                event: step.event,
                who: step.who.clone(),
                line: step.line.clone(),
                what,
            });
        }
    }
    for (_, lane) in lanes {
        lane.close()?;
    }
    world.close().map_err(|(_, e)| sqlite(e))?;
    Ok(replayed)
}

/// Runs an exported script with python3 and gives its exit code and output.
/// Isolated (`-I`: no environment variables, no user site) and without
/// the site module (`-S`): a script needs only Python's standard library,
/// so this proves it, and a start costs a quarter of one with site's
/// imports.
pub fn run_python(script: &Path) -> Result<(i32, String), String> {
    let output = Command::new(python())
        .args(["-I", "-S"])
        .arg(script)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run python3: {e}"))?;
    let mut text = String::from_utf8_lossy(&output.stdout).into_owned();
    text.push_str(&String::from_utf8_lossy(&output.stderr));
    Ok((output.status.code().unwrap_or(-1), text))
}

/// The interpreter `python3` starts, asked once: a version manager's
/// `python3` is often a shim script that finds the interpreter again on
/// every start (pyenv's took about 0.15 s a run here, against 0.02 s for
/// the interpreter itself), and `replay --bundled --python` starts
/// python3 over a thousand times. Falls back to `python3` itself when the
/// question cannot be answered.
fn python() -> &'static Path {
    static PYTHON: OnceLock<PathBuf> = OnceLock::new();
    PYTHON.get_or_init(|| {
        Command::new("python3")
            .args(["-c", "import sys; print(sys.executable)"])
            .stdin(Stdio::null())
            .output()
            .ok()
            .filter(|output| output.status.success())
            .map(|output| String::from_utf8_lossy(&output.stdout).trim().to_string())
            .filter(|path| !path.is_empty() && Path::new(path).is_file())
            .map_or_else(|| PathBuf::from("python3"), PathBuf::from)
    })
}
