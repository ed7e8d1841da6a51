//! The `command` cases: a program of fencelab's run as a user runs it, in a
//! scratch folder of its own, judged by how it ended, what it said and what
//! it left behind.
//!
//! Each case gets a fresh folder (its working directory, `{dir}` in its
//! arguments), with the files, folders, links and FIFOs it names made
//! first. The program is the one cargo built for the test that calls
//! [`check_every`]: crates/cli/tests/hostile_commands.rs for `fencelab`,
//! crates/mdbook/tests/hostile_commands.rs for `mdbook-fencelab` (only an
//! integration test of the crate that builds a binary knows its path).
//!
//! Three things a hostile local world does are played here, each without
//! unsafe code:
//! - a folder planted at a path only the child's process id names
//!   ([`crate::Plant`]): the child is started as `sh -c '...; exec "$@"'`,
//!   whose `$$` is the id the program keeps after `exec`;
//! - a FIFO whose other end an attacker holds: a thread reads to the end
//!   what the program writes into it, then gives the next reader its text;
//! - a signal (`kill -s`) sent at a moment the case names by a path that
//!   appears in the scratch folder, waited for at most
//!   [`SIGNAL_WAIT_SECONDS_MAX`].
//!
//! Must never: touch a path outside the case's scratch folder (a case's
//! paths are relative and never climb out), wait without a bound, or pass a
//! case whose signal was never sent.

use crate::{After, Case, CommandSpec, Kind, Outcome, Program, SignalSpec};
use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::os::unix::process::ExitStatusExt;
use std::path::{Component, Path, PathBuf};
use std::process::{Child, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How long a program may run when its case does not say.
pub const SECONDS_MAX_DEFAULT: u64 = 120;
/// How long a case's signal waits for its moment before the case fails.
pub const SIGNAL_WAIT_SECONDS_MAX: u64 = 60;
/// How often the runner looks at the program and the scratch folder.
const POLL_MS: u64 = 2;
/// How long the runner waits for a helper thread (a FIFO's other end, a
/// reader of the program's output) once the program has ended; one still
/// blocked then is left behind, and ends with the test process.
const THREAD_WAIT_MS_MAX: u64 = 2_000;

/// How one case's run went.
#[derive(Debug, Default)]
pub struct Checked {
    /// How the program ended, as a shell reports it.
    pub ended: String,
    /// The first line it wrote to standard error (else standard output).
    pub said: String,
    /// Every way the case went wrong.
    pub wrong: Vec<String>,
}

/// Runs every `command` case of `program` (at `path`) and panics with each
/// wrong one, named by its file and its `about`; panics too when there is
/// no such case, so the test calling it cannot pass by running nothing.
///
/// The variable [`program_override`] names runs the cases against another
/// build of the program instead, such as one of the commit before a fix,
/// to see its cases fail there.
pub fn check_every(program: Program, path: &Path) {
    let overridden = std::env::var_os(program_override(program)).map(PathBuf::from);
    let path = match &overridden {
        Some(other) => {
            println!(
                "running the cases against {} ({} is set)",
                other.display(),
                program_override(program)
            );
            other.as_path()
        }
        None => path,
    };
    let mut failures = Vec::new();
    let mut ran = 0;
    let mut wrong_cases = 0usize;
    for (name, text) in crate::CASES {
        let case = match crate::parse(name, text) {
            Ok(case) => case,
            // Other kinds' files are the corpus test's to report.
            Err(error) if name.starts_with("commands/") => {
                failures.push(error);
                continue;
            }
            Err(_) => continue,
        };
        let Some(spec) = case.command.as_ref().filter(|_| case.kind == Kind::Command) else {
            continue;
        };
        if spec.program != program {
            continue;
        }
        ran += 1;
        let checked = check(&case, path);
        println!("{name:<64} {}", checked.ended);
        println!("    {}", fencelab_model::text::visible_lines(&checked.said));
        wrong_cases += usize::from(!checked.wrong.is_empty());
        for reason in checked.wrong {
            failures.push(format!("{name} ({}): {reason}", case.about));
        }
    }
    assert!(
        ran > 0,
        "no command case runs {program:?}: cases/commands/ holds none with `program = \"{}\"`",
        program_name(program)
    );
    assert!(
        failures.is_empty(),
        "{wrong_cases} of {ran} command cases of {} are wrong:\n{}",
        program_name(program),
        failures.join("\n")
    );
}

/// The environment variable that runs `program`'s cases against another
/// build of it: `FENCELAB_HOSTILE_FENCELAB`, `FENCELAB_HOSTILE_MDBOOK_FENCELAB`.
pub fn program_override(program: Program) -> &'static str {
    match program {
        Program::Fencelab => "FENCELAB_HOSTILE_FENCELAB",
        Program::MdbookFencelab => "FENCELAB_HOSTILE_MDBOOK_FENCELAB",
    }
}

fn program_name(program: Program) -> &'static str {
    match program {
        Program::Fencelab => "fencelab",
        Program::MdbookFencelab => "mdbook-fencelab",
    }
}

/// Runs one `command` case with the program at `program`, in a scratch
/// folder removed after, and judges it.
pub fn check(case: &Case, program: &Path) -> Checked {
    let Some(spec) = &case.command else {
        return Checked {
            wrong: vec!["a command case says what it runs in its `command` table".into()],
            ..Checked::default()
        };
    };
    let scratch = match tempfile::Builder::new()
        .prefix("fencelab-hostile-command-")
        .tempdir()
    {
        Ok(scratch) => scratch,
        Err(e) => {
            return Checked {
                wrong: vec![format!("cannot make a scratch folder: {e}")],
                ..Checked::default()
            };
        }
    };
    // The folder's own path, links resolved, so what the program reports
    // of its paths and what the case expects agree.
    let dir = scratch
        .path()
        .canonicalize()
        .unwrap_or_else(|_| scratch.path().to_path_buf());
    let mut checked = Checked::default();
    if let Err(why) = prepare(case, spec, &dir) {
        checked.wrong.push(why);
        return checked;
    }
    let after = case.expect.after.as_ref();
    let before: Vec<(String, Held)> = after
        .map(|a| {
            a.same
                .iter()
                .map(|p| (p.clone(), held(&dir.join(p))))
                .collect()
        })
        .unwrap_or_default();
    let run = match execute(spec, program, &dir) {
        Ok(run) => run,
        Err(why) => {
            checked.wrong.push(why);
            return checked;
        }
    };
    checked.ended = match run.exit {
        Some(code) => format!("exit {code}"),
        None => "did not end in time".into(),
    };
    checked.said = run
        .stderr
        .lines()
        .chain(run.stdout.lines())
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .to_string();
    checked.wrong.extend(run.wrong.iter().cloned());
    judge_run(case, &run, &mut checked.wrong);
    if let Some(after) = after {
        judge_after(after, &before, &dir, &mut checked.wrong);
    }
    checked
}

/// A path a case names, checked to stay in the scratch folder.
fn inside(dir: &Path, path: &str) -> Result<PathBuf, String> {
    let relative = Path::new(path);
    let climbs = relative
        .components()
        .any(|c| !matches!(c, Component::Normal(_) | Component::CurDir));
    if path.is_empty() || climbs {
        return Err(format!(
            "`{path}` is not a path inside the scratch folder (relative, without `..`)"
        ));
    }
    Ok(dir.join(relative))
}

fn expand(text: &str, dir: &Path) -> String {
    text.replace("{dir}", &dir.display().to_string())
}

/// Makes the folders, files, links and FIFOs the case names.
fn prepare(case: &Case, spec: &CommandSpec, dir: &Path) -> Result<(), String> {
    let make_parent = |path: &Path| {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| format!("cannot make {}: {e}", parent.display()))?;
        }
        Ok::<(), String>(())
    };
    for folder in &spec.dirs {
        let path = inside(dir, folder)?;
        std::fs::create_dir_all(&path).map_err(|e| format!("cannot make `{folder}`: {e}"))?;
    }
    for (file, text) in &spec.files {
        let path = inside(dir, file)?;
        make_parent(&path)?;
        let text = if text == "@input" {
            case.whole_input()
        } else {
            text.clone()
        };
        std::fs::write(&path, text).map_err(|e| format!("cannot write `{file}`: {e}"))?;
    }
    for (link, target) in &spec.symlinks {
        let path = inside(dir, link)?;
        make_parent(&path)?;
        std::os::unix::fs::symlink(target, &path)
            .map_err(|e| format!("cannot make the link `{link}`: {e}"))?;
    }
    for fifo in spec.fifos.keys() {
        let path = inside(dir, fifo)?;
        make_parent(&path)?;
        crate::files::mkfifo(&path)?;
    }
    if let Some(plant) = &spec.plant {
        for path in plant.dirs.iter().chain(plant.fifos.keys()) {
            inside(dir, path)?;
            if !path.contains("{pid}") {
                return Err(format!(
                    "the planted `{path}` holds no `{{pid}}`: make it with `dirs` or `fifos`"
                ));
            }
        }
    }
    if let Some(signal) = &spec.signal {
        inside(dir, &signal.once)?;
    }
    let after = case.expect.after.as_ref();
    for path in after
        .iter()
        .flat_map(|a| a.same.iter().chain(&a.absent).chain(&a.empty))
    {
        inside(dir, path)?;
    }
    Ok(())
}

/// What running the program gave.
struct Run {
    /// The exit status as a shell reports it (128 + N for a death by
    /// signal N); `None` when it was killed for running too long.
    exit: Option<i32>,
    stdout: String,
    stderr: String,
    /// What went wrong while it ran (a signal never sent).
    wrong: Vec<String>,
}

/// Quotes `text` for sh, as one word.
fn sh_word(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// A path holding `{pid}` as a word of sh, the shell's own id (`$$`) in
/// its place.
fn sh_path_at_pid(dir: &Path, path: &str) -> String {
    let whole = dir.join(path).display().to_string();
    whole
        .split("{pid}")
        .map(sh_word)
        .collect::<Vec<_>>()
        .join("\"$$\"")
}

/// The shell text that plants `plant` and then becomes the program: made
/// world-writable (umask 0), as another user would leave them, with the
/// umask restored for the program.
fn plant_script(plant: &crate::Plant, dir: &Path) -> String {
    let mut script = String::from("set -e\nold=$(umask)\numask 000\n");
    for folder in &plant.dirs {
        script.push_str(&format!("mkdir -p {}\n", sh_path_at_pid(dir, folder)));
    }
    for fifo in plant.fifos.keys() {
        script.push_str(&format!("mkfifo {}\n", sh_path_at_pid(dir, fifo)));
    }
    script.push_str("umask \"$old\"\nexec \"$@\"\n");
    script
}

/// Starts the program, plays its FIFOs, sends its signal, and waits for
/// it within its bound.
fn execute(spec: &CommandSpec, program: &Path, dir: &Path) -> Result<Run, String> {
    let mut command = match &spec.plant {
        Some(plant) => {
            let mut shell = std::process::Command::new("sh");
            shell
                .arg("-c")
                .arg(plant_script(plant, dir))
                .arg("fencelab-hostile-plant")
                .arg(program);
            shell
        }
        None => std::process::Command::new(program),
    };
    command
        .args(spec.args.iter().map(|a| expand(a, dir)))
        .envs(spec.env.iter().map(|(k, v)| (k, expand(v, dir))))
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let stop = Arc::new(AtomicBool::new(false));
    let mut fifos: Vec<(PathBuf, JoinHandle<()>)> = spec
        .fifos
        .iter()
        .map(|(path, text)| {
            let path = dir.join(path);
            let served = serve_fifo(path.clone(), expand(text, dir), Arc::clone(&stop));
            (path, served)
        })
        .collect();
    let mut child = command
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", program.display()))?;
    if let Some(plant) = &spec.plant {
        let pid = child.id().to_string();
        for (path, text) in &plant.fifos {
            let path = dir.join(path.replace("{pid}", &pid));
            let served = serve_fifo(path.clone(), expand(text, dir), Arc::clone(&stop));
            fifos.push((path, served));
        }
    }
    let input = child.stdin.take().map(|mut stdin| {
        let text = spec
            .stdin
            .as_deref()
            .map(|t| expand(t, dir))
            .unwrap_or_default();
        // A program that never reads its input must not keep the runner
        // waiting: the writer is a thread of its own.
        std::thread::spawn(move || {
            let _ = stdin.write_all(text.as_bytes());
        })
    });
    let stdout = read_all(child.stdout.take());
    let stderr = read_all(child.stderr.take());
    let seconds_max = spec.seconds_max.unwrap_or(SECONDS_MAX_DEFAULT);
    let mut wrong = Vec::new();
    let exit = wait(
        &mut child,
        spec.signal.as_ref(),
        dir,
        seconds_max,
        &mut wrong,
    );
    stop.store(true, Ordering::SeqCst);
    for (path, served) in fifos {
        end_fifo(&path, &served);
    }
    drop(input);
    if exit.is_none() {
        wrong.push(format!(
            "it did not end within {seconds_max} s, and was killed"
        ));
    }
    Ok(Run {
        exit,
        stdout: joined(stdout),
        stderr: joined(stderr),
        wrong,
    })
}

/// Waits for the child to end, within `seconds_max`, sending `signal` at its
/// moment; its exit status as a shell reports it, `None` if it was killed
/// for running too long.
fn wait(
    child: &mut Child,
    signal: Option<&SignalSpec>,
    dir: &Path,
    seconds_max: u64,
    wrong: &mut Vec<String>,
) -> Option<i32> {
    let started = Instant::now();
    let mut to_send = signal;
    loop {
        match child.try_wait() {
            Ok(Some(status)) => {
                if let Some(signal) = to_send {
                    wrong.push(format!(
                        "it ended before anything matched `{}`, so SIG{} was never sent",
                        signal.once,
                        signal.send.name()
                    ));
                }
                return status.code().or_else(|| status.signal().map(|s| 128 + s));
            }
            Ok(None) => {}
            Err(e) => {
                wrong.push(format!("cannot wait for it: {e}"));
                return None;
            }
        }
        if let Some(signal) = to_send {
            if matches_any(dir, &signal.once) {
                send(child.id(), signal, wrong);
                to_send = None;
            } else if started.elapsed() > Duration::from_secs(SIGNAL_WAIT_SECONDS_MAX) {
                wrong.push(format!(
                    "nothing matched `{}` within {SIGNAL_WAIT_SECONDS_MAX} s, so SIG{} was never sent",
                    signal.once,
                    signal.send.name()
                ));
                to_send = None;
            }
        }
        if started.elapsed() > Duration::from_secs(seconds_max) {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(Duration::from_millis(POLL_MS));
    }
}

fn send(pid: u32, signal: &SignalSpec, wrong: &mut Vec<String>) {
    let sent = std::process::Command::new("kill")
        .args(["-s", signal.send.name(), &pid.to_string()])
        .status();
    if !sent.is_ok_and(|s| s.success()) {
        wrong.push(format!("`kill -s {} {pid}` failed", signal.send.name()));
    }
}

/// Whether anything in `dir` matches the glob `pattern`.
fn matches_any(dir: &Path, pattern: &str) -> bool {
    let whole = format!(
        "{}/{pattern}",
        glob::Pattern::escape(&dir.display().to_string())
    );
    glob::glob(&whole).is_ok_and(|mut paths| paths.next().is_some())
}

fn read_all(pipe: Option<impl Read + Send + 'static>) -> Option<JoinHandle<Vec<u8>>> {
    pipe.map(|mut pipe| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = pipe.read_to_end(&mut bytes);
            bytes
        })
    })
}

/// What a reader thread read, once it is done or its wait is over (a
/// grandchild of the program may hold the pipe open past the program).
fn joined(reader: Option<JoinHandle<Vec<u8>>>) -> String {
    let Some(reader) = reader else {
        return String::new();
    };
    let started = Instant::now();
    while !reader.is_finished() && started.elapsed() < Duration::from_millis(THREAD_WAIT_MS_MAX) {
        std::thread::sleep(Duration::from_millis(POLL_MS));
    }
    if !reader.is_finished() {
        return "(the output was still open when the program had ended)".into();
    }
    reader
        .join()
        .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
        .unwrap_or_default()
}

/// Plays the other end of the FIFO at `path` as an attacker would: once it
/// exists, reads to the end whatever a writer sends, then gives `text` to
/// the next reader. Each open waits for the other side, as a FIFO's does;
/// `stop` and [`end_fifo`] end the wait once the program has ended.
fn serve_fifo(path: PathBuf, text: String, stop: Arc<AtomicBool>) -> JoinHandle<()> {
    std::thread::spawn(move || {
        let stopped = || stop.load(Ordering::SeqCst);
        while std::fs::symlink_metadata(&path).is_err() {
            if stopped() {
                return;
            }
            std::thread::sleep(Duration::from_millis(POLL_MS));
        }
        let Ok(mut from_writer) = std::fs::File::open(&path) else {
            return;
        };
        if stopped() {
            return;
        }
        let mut sink = Vec::new();
        let _ = from_writer.read_to_end(&mut sink);
        drop(from_writer);
        if stopped() {
            return;
        }
        let Ok(mut to_reader) = std::fs::OpenOptions::new().write(true).open(&path) else {
            return;
        };
        if !stopped() {
            let _ = to_reader.write_all(text.as_bytes());
        }
    })
}

/// Ends a FIFO's player: opening the other side without blocking lets an
/// open that waits for it return, and the player then sees `stop`.
fn end_fifo(path: &Path, served: &JoinHandle<()>) {
    use std::os::unix::fs::OpenOptionsExt;
    let started = Instant::now();
    while !served.is_finished() && started.elapsed() < Duration::from_millis(THREAD_WAIT_MS_MAX) {
        let _ = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(path);
        let _ = std::fs::OpenOptions::new()
            .write(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(path);
        std::thread::sleep(Duration::from_millis(10 * POLL_MS));
    }
}

/// The exit statuses a case's outcome allows, unless it names its own.
fn allowed_exits(case: &Case) -> Result<Vec<i32>, String> {
    if let Some(exit) = case.expect.exit {
        return Ok(vec![exit]);
    }
    match case.expect.outcome {
        Outcome::Rejected => Ok(vec![2]),
        Outcome::Accepted => Ok(vec![0, 1]),
        Outcome::Passed => Ok(vec![0]),
        Outcome::Failed => Ok(vec![1]),
        Outcome::Error => Err(
            "a command case's outcome is rejected (exit 2), accepted (0 or 1), passed (0) or \
             failed (1)"
                .into(),
        ),
    }
}

fn judge_run(case: &Case, run: &Run, wrong: &mut Vec<String>) {
    match (allowed_exits(case), run.exit) {
        (Err(why), _) => wrong.push(why),
        (Ok(_), None) => {}
        (Ok(allowed), Some(exit)) if !allowed.contains(&exit) => wrong.push(format!(
            "it exited {exit}, not {}",
            allowed
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(" or "),
        )),
        (Ok(_), Some(_)) => {}
    }
    if let Some(wanted) = &case.expect.message
        && !run.stderr.contains(wanted.as_str())
        && !run.stdout.contains(wanted.as_str())
    {
        wrong.push(format!(
            "it did not say `{wanted}`; standard error: `{}`; standard output: `{}`",
            excerpt(&run.stderr),
            excerpt(&run.stdout)
        ));
    }
    if case.expect.outcome == Outcome::Rejected && run.stderr.trim().is_empty() {
        wrong.push("it was refused without a word on standard error".into());
    }
    for rust in ["panicked at", "RUST_BACKTRACE", "Some(", "Err(", "unwrap()"] {
        if run.stderr.contains(rust) {
            wrong.push(format!(
                "its standard error shows Rust's `{rust}`: {}",
                run.stderr.trim()
            ));
        }
    }
}

/// The start and end of a long output, for a failure's message.
fn excerpt(text: &str) -> String {
    let text = text.trim();
    let chars: Vec<char> = text.chars().collect();
    if chars.len() <= 400 {
        return text.to_string();
    }
    let head: String = chars[..200].iter().collect();
    let tail: String = chars[chars.len() - 200..].iter().collect();
    format!("{head} [...] {tail}")
}

/// What a path holds, to compare before and after a run.
#[derive(Debug, PartialEq, Eq)]
enum Held {
    Nothing,
    File(Vec<u8>),
    Link(PathBuf),
    Fifo,
    Folder(BTreeMap<String, Held>),
    Other,
}

fn held(path: &Path) -> Held {
    use std::os::unix::fs::FileTypeExt;
    let Ok(metadata) = std::fs::symlink_metadata(path) else {
        return Held::Nothing;
    };
    let kind = metadata.file_type();
    if kind.is_symlink() {
        std::fs::read_link(path).map_or(Held::Other, Held::Link)
    } else if kind.is_file() {
        std::fs::read(path).map_or(Held::Other, Held::File)
    } else if kind.is_fifo() {
        Held::Fifo
    } else if kind.is_dir() {
        let entries = std::fs::read_dir(path)
            .map(|entries| {
                entries
                    .flatten()
                    .map(|e| {
                        (
                            e.file_name().to_string_lossy().into_owned(),
                            held(&e.path()),
                        )
                    })
                    .collect()
            })
            .unwrap_or_default();
        Held::Folder(entries)
    } else {
        Held::Other
    }
}

fn described(held: &Held) -> String {
    match held {
        Held::Nothing => "nothing".into(),
        Held::File(bytes) => format!(
            "a file of {} bytes beginning `{}`",
            bytes.len(),
            String::from_utf8_lossy(&bytes[..bytes.len().min(60)])
        ),
        Held::Link(target) => format!("a symbolic link to {}", target.display()),
        Held::Fifo => "a FIFO".into(),
        Held::Folder(entries) => format!(
            "a folder holding [{}]",
            entries.keys().cloned().collect::<Vec<_>>().join(", ")
        ),
        Held::Other => "something else".into(),
    }
}

fn judge_after(after: &After, before: &[(String, Held)], dir: &Path, wrong: &mut Vec<String>) {
    for (path, was) in before {
        let now = held(&dir.join(path));
        if &now != was {
            wrong.push(format!(
                "`{path}` held {} before the run and {} after",
                described(was),
                described(&now)
            ));
        }
    }
    for pattern in &after.absent {
        let whole = format!(
            "{}/{pattern}",
            glob::Pattern::escape(&dir.display().to_string())
        );
        let found: Vec<String> = glob::glob(&whole)
            .map(|paths| {
                paths
                    .flatten()
                    .map(|p| p.strip_prefix(dir).unwrap_or(&p).display().to_string())
                    .collect()
            })
            .unwrap_or_default();
        if !found.is_empty() {
            wrong.push(format!(
                "`{pattern}` must match nothing after the run; it left {}",
                found.join(", ")
            ));
        }
    }
    for folder in &after.empty {
        match held(&dir.join(folder)) {
            Held::Folder(entries) if entries.is_empty() => {}
            other => wrong.push(format!(
                "`{folder}` must be an empty folder after the run; it is {}",
                described(&other)
            )),
        }
    }
}
