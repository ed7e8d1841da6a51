//! Small helpers for running other programs.

use std::path::Path;
use std::process::{Command, Stdio};

/// The first line a program prints for `args` (stdout, else stderr), or
/// `None` when it cannot be run or exits with an error. Used to ask tools for
/// their versions.
pub fn first_line(program: &str, args: &[&str]) -> Option<String> {
    let output = Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .ok()?;
    if !output.status.success() {
        return None;
    }
    let text = if output.stdout.is_empty() {
        output.stderr
    } else {
        output.stdout
    };
    String::from_utf8_lossy(&text)
        .lines()
        .next()
        .map(|line| line.trim().to_string())
}

/// Whether this process runs as root.
pub fn is_root() -> bool {
    first_line("id", &["-u"]).is_some_and(|uid| uid == "0")
}

/// Runs `command` with its output going to the terminal, and says whether it
/// succeeded.
pub fn status(command: &mut Command) -> Result<(), String> {
    let shown = describe(command);
    let status = command
        .stdin(Stdio::null())
        .status()
        .map_err(|e| format!("cannot run `{shown}`: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("`{shown}` failed ({status})"))
    }
}

/// Runs `command` with its output written to `log`, so that a long install
/// stays one line on the terminal; on failure, the last lines of the log are
/// shown.
pub fn logged(command: &mut Command, log: &Path) -> Result<(), String> {
    let Err(failed) = status_into(command, log) else {
        return Ok(());
    };
    let text = std::fs::read_to_string(log).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    let tail = lines[lines.len().saturating_sub(30)..].join("\n");
    Err(format!(
        "{failed}; last lines of {}:\n{tail}",
        log.display()
    ))
}

/// Runs `command` with its output, both streams in the order written,
/// going to the file `log` (made anew), and says whether it succeeded.
pub fn status_into(command: &mut Command, log: &Path) -> Result<(), String> {
    let shown = describe(command);
    if let Some(dir) = log.parent() {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    let file =
        std::fs::File::create(log).map_err(|e| format!("cannot create {}: {e}", log.display()))?;
    let file_err = file
        .try_clone()
        .map_err(|e| format!("cannot write {}: {e}", log.display()))?;
    let status = command
        .stdin(Stdio::null())
        .stdout(file)
        .stderr(file_err)
        .status()
        .map_err(|e| format!("cannot run `{shown}`: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("`{shown}` failed ({status})"))
    }
}

/// A command as a person would type it, for messages.
pub fn describe(command: &Command) -> String {
    let mut words = vec![command.get_program().to_string_lossy().into_owned()];
    words.extend(command.get_args().map(|a| a.to_string_lossy().into_owned()));
    words.join(" ")
}

/// The `fencelab` CLI run with `args`, in the test profile: the engine,
/// the model and every dependency are optimised there (the workspace's
/// Cargo.toml), so its checks explore every schedule at nearly release
/// speed, and the build is the one `cargo test` already made. A release
/// build (fat LTO, one codegen unit, optimised for size for the page's
/// wasm) would compile the whole tree a second time for one stage.
///
/// Inside `cargo xtask test`, once its native tests have built the CLI,
/// [`BUILT_ENV`] names the folder of that build's binaries and the CLI runs
/// from there as it is: `cargo run` would build it a second time, since
/// `cargo test --workspace` unifies the dependencies' features over the
/// whole workspace and `-p fencelab-cli` does not (about 90 s of a CI run).
pub fn fencelab(args: &[&str]) -> Command {
    if let Some(built) = std::env::var_os(BUILT_ENV) {
        let mut command = Command::new(cli_in(Path::new(&built)));
        command.args(args);
        return command;
    }
    cargo_run_cli(args)
}

/// The CLI built and run by `cargo run`, with `args`.
pub fn cargo_run_cli(args: &[&str]) -> Command {
    let mut command = Command::new("cargo");
    command
        .args(["run", "--locked", "--quiet", "-p", "fencelab-cli", "--"])
        .args(args);
    command
}

/// The environment variable that names the folder of the binaries a test
/// run's native tests built (see [`fencelab`]); the e2e harness reads it
/// too, for the CLI and the mdBook preprocessor.
pub const BUILT_ENV: &str = "FENCELAB_BUILT";

/// The folder of the binaries `cargo test --workspace` builds for the
/// crates' own integration tests (the CLI, the mdBook preprocessor), in
/// the test profile.
pub fn test_build_dir(root: &Path) -> std::path::PathBuf {
    target_dir(root).join("debug")
}

/// cargo's target folder for the workspace at `root`: `CARGO_TARGET_DIR`
/// (relative to `root`) when set, else `root/target`.
pub fn target_dir(root: &Path) -> std::path::PathBuf {
    std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root.join("target"), |dir| root.join(dir))
}

/// The CLI binary in the build folder `dir`.
pub fn cli_in(dir: &Path) -> std::path::PathBuf {
    dir.join(format!("fencelab{}", std::env::consts::EXE_SUFFIX))
}

/// The prerenderer (web/prerender) run on the site built in `dir`, in the
/// test profile, as [`fencelab`] is: the build `cargo test` made of the
/// page's and the worker's crates serves it too. Inside `cargo xtask test`
/// ([`BUILT_ENV`] set; trunk's post_build hook inherits it) that build's own
/// binary runs: `cargo run` would compile the workspace's crates again,
/// since the test build compiled them with clippy's driver.
pub fn prerender(dir: &Path) -> Command {
    prerender_with(&[], dir)
}

/// The prerenderer writing the pages of the exercises the built site in
/// `dir` serves of its own (`fencelab-prerender --site`), as [`prerender`].
pub fn prerender_site_exercises(dir: &Path) -> Command {
    prerender_with(&["--site"], dir)
}

/// fencelab-precompress (crates/precompress) making the brotli and gzip
/// copies of `files`, names in the built site `dir` that changed, true to
/// them; run as [`prerender`] is. The helper is a crate of its own that
/// xtask runs rather than links: xtask has no dependencies, and
/// mdbook-fencelab calls the same library.
pub fn precompress(dir: &Path, files: &[String]) -> Command {
    built_or_run("fencelab-precompress", &[], dir, files)
}

fn prerender_with(args: &[&str], dir: &Path) -> Command {
    built_or_run("fencelab-prerender", args, dir, &[])
}

/// The workspace binary `name` run with `args`, `dir` and `then`: the one
/// [`BUILT_ENV`] names when set, else `cargo run`'s.
fn built_or_run(name: &str, args: &[&str], dir: &Path, then: &[String]) -> Command {
    if let Some(built) = std::env::var_os(BUILT_ENV) {
        let mut command =
            Command::new(Path::new(&built).join(format!("{name}{}", std::env::consts::EXE_SUFFIX)));
        command.args(args).arg(dir).args(then);
        return command;
    }
    let mut command = Command::new("cargo");
    command
        .args(["run", "--locked", "--quiet", "-p", name, "--"])
        .args(args)
        .arg(dir)
        .args(then);
    command
}
