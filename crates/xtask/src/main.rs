//! fencelab's build and test driver.
//!
//! `cargo xtask serve` and `cargo xtask test` are the README's whole quick
//! start. Both first install whatever this machine is missing (see
//! [`tools`]), idempotently and announcing each install in one line, then
//! build and serve the playground, or run every check CI runs (see [`stages`]).

mod bench;
mod cmd;
mod fuzz;
mod sizes;
mod stages;
mod tools;

use std::path::PathBuf;
use std::process::ExitCode;

const USAGE: &str = "usage: cargo xtask <command>

commands:
  serve [--port N]   install what is missing, build the playground, serve it on 127.0.0.1 (default port 8080)
  test               install what is missing and run every check CI runs
  bench              every benchmark, then one table per section (first load, browser, engine, explore, mutate)
  sizes              the built playground's first-load bytes (raw, gzip -9, brotli); fails if the page's wasm has SQLite
  fuzz [--seconds N] [--sanitizer address|none] [TARGET...]
                     run the fuzz targets (default: all, 60 s each); docs/FUZZING.md
  fuzz-build         only build the fuzz targets (a `test` stage)
  setup              only install what is missing";

const DEFAULT_PORT: u16 = 8080;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match parse(&args) {
        Ok(command) => run(command),
        Err(message) => {
            eprintln!("xtask: {message}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    match result {
        Ok(code) => code,
        Err(message) => {
            eprintln!("xtask: {message}");
            ExitCode::FAILURE
        }
    }
}

enum Command {
    Serve { port: u16 },
    Test,
    Bench,
    Sizes,
    Fuzz(fuzz::Options),
    FuzzBuild,
    Setup,
    Help,
}

fn parse(args: &[String]) -> Result<Command, String> {
    let (name, rest) = match args.split_first() {
        Some((name, rest)) => (name.as_str(), rest),
        None => return Err("no command given".into()),
    };
    match name {
        "serve" => {
            let mut port = DEFAULT_PORT;
            let mut rest = rest.iter();
            while let Some(arg) = rest.next() {
                let value = match arg.strip_prefix("--port=") {
                    Some(value) => value,
                    None if arg == "--port" => rest
                        .next()
                        .ok_or("--port needs a number, as in --port 8081")?,
                    None => return Err(format!("serve does not take `{arg}`")),
                };
                port = value
                    .parse()
                    .map_err(|_| format!("--port takes a port number (1-65535), not `{value}`"))?;
            }
            Ok(Command::Serve { port })
        }
        "test" | "setup" if !rest.is_empty() => Err(format!(
            "{name} takes no arguments, got `{}`",
            rest.join(" ")
        )),
        "test" => Ok(Command::Test),
        "setup" => Ok(Command::Setup),
        "bench" => Ok(Command::Bench),
        "sizes" => Ok(Command::Sizes),
        "fuzz" => Ok(Command::Fuzz(fuzz::parse(rest)?)),
        "fuzz-build" => Ok(Command::FuzzBuild),
        "help" | "--help" | "-h" => Ok(Command::Help),
        other => Err(format!("unknown command `{other}`")),
    }
}

fn run(command: Command) -> Result<ExitCode, String> {
    let root = workspace_root();
    std::env::set_current_dir(&root)
        .map_err(|e| format!("cannot enter the workspace at {}: {e}", root.display()))?;
    match command {
        Command::Help => {
            println!("{USAGE}");
            Ok(ExitCode::SUCCESS)
        }
        Command::Setup => {
            tools::ensure(&root, tools::Purpose::Test)?;
            println!("xtask: everything is installed");
            Ok(ExitCode::SUCCESS)
        }
        Command::Serve { port } => {
            let tools = tools::ensure(&root, tools::Purpose::Serve)?;
            stages::serve(&root, &tools, port)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Bench => {
            let tools = tools::ensure(&root, tools::Purpose::Bench)?;
            stages::bench(&root, &tools)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Sizes => {
            sizes::report(&root)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Fuzz(options) => {
            tools::ensure_fuzzing(&root, &mut tools::Apt::default())?;
            Ok(if fuzz::run(&root, &options)? {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            })
        }
        Command::FuzzBuild => {
            tools::ensure_fuzzing(&root, &mut tools::Apt::default())?;
            fuzz::build_only(&root)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Test => {
            let tools = tools::ensure(&root, tools::Purpose::Test)?;
            let summary = stages::run_all(&root, &tools);
            Ok(if summary.failed == 0 {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            })
        }
    }
}

/// The workspace root: the parent of `crates/xtask`.
fn workspace_root() -> PathBuf {
    let manifest_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    manifest_dir
        .ancestors()
        .nth(2)
        .map(PathBuf::from)
        .unwrap_or(manifest_dir)
}
