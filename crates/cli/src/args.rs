//! Command-line arguments.

use crate::BadInput;
use std::path::PathBuf;

pub const USAGE: &str = "usage: fencelab <command> [options]

commands:
  list                       the bundled exercises, one line each: id and title
  check [FILE|DIR ...]       validate exercise files (the bundled ones when none is given), run every
                             scenario against the reference and every mutant; exits 1 when a scenario
                             fails or a mutant survives
  run EXERCISE               run an exercise's scenarios and print each verdict; for failures, the
                             shortest failing schedule and its history
  explore EXERCISE           like run, with exploration figures for every scenario
  mutate [EXERCISE|DIR ...]  run every scenario against generated mutants of each editable procedure
                             (the bundled exercises when none is given); prints the mutation score and
                             each survivor as a diff; exits 1 when a mutant not declared equivalent
                             survives
  version                    fencelab's version and its SQLite

options (run, explore; --json also for check and mutate):
  --set PROCEDURE=SQL_FILE   replace an editable procedure with the text of SQL_FILE, as a learner's edit
  --scenario FILE            add the [[scenarios]] of FILE (run); with explore, a NAME selects one scenario
  --max-schedules N          stop exploring a scenario after N schedules (reported as an error, not a pass)
  --max-steps N              stop checking a scenario after N procedure steps over all its runs, pruned
                             ones included (an error, not a pass; default 100000)
  --max-sqlite-steps N       stop checking a scenario after N SQLite steps (VM instructions and
                             text-matching work) over all its runs (an error; default 5000000)
  --max-memory-mib N         stop checking a scenario once it holds N MiB of explored states and
                             history (an error; default 16)
  --random N                 explore: instead of every interleaving, N schedules drawn at random
  --seed S                   explore --random: draw them from seed S (printed with every run, so a
                             failure found at random replays from the command line)
  --json                     print one JSON document instead of text (also for check)

EXERCISE is a bundled id (see `fencelab list`) or an exercise file.
exit codes: 0 all passed, 1 a scenario failed or a mutant survived, 2 bad input";

pub enum Command {
    Help,
    Version,
    List,
    Check { paths: Vec<PathBuf>, json: bool },
    Mutate { exercises: Vec<String>, json: bool },
    Run(RunArgs),
}

pub struct RunArgs {
    pub exercise: String,
    pub set: Vec<(String, PathBuf)>,
    pub scenario_files: Vec<PathBuf>,
    /// Only this scenario (explore --scenario NAME).
    pub only: Option<String>,
    pub max_schedules: Option<u64>,
    pub max_steps: Option<u64>,
    pub max_sqlite_steps: Option<u64>,
    pub max_memory_mib: Option<u64>,
    pub json: bool,
    pub explore: bool,
    /// explore --random N --seed S: N random schedules from seed S.
    pub random: Option<(u64, Option<u64>)>,
}

pub fn parse(args: &[String]) -> Result<Command, BadInput> {
    let Some((command, rest)) = args.split_first() else {
        return Err(BadInput(format!("no command given\n\n{USAGE}")));
    };
    let mut rest = rest.iter();
    let mut positional = Vec::new();
    let mut json = false;
    let mut set = Vec::new();
    let mut scenarios = Vec::new();
    let mut max_schedules = None;
    let mut random_runs: Option<u64> = None;
    let mut max_steps: Option<u64> = None;
    let mut max_sqlite_steps: Option<u64> = None;
    let mut max_memory_mib: Option<u64> = None;
    let mut seed: Option<u64> = None;
    let number = |flag: &str, text: String| -> Result<u64, BadInput> {
        text.parse()
            .map_err(|_| BadInput(format!("{flag} takes a whole number, not `{text}`")))
    };
    while let Some(arg) = rest.next() {
        let mut value = |flag: &str| {
            rest.next()
                .cloned()
                .ok_or_else(|| BadInput(format!("{flag} needs a value\n\n{USAGE}")))
        };
        match arg.as_str() {
            "--json" => json = true,
            "--set" => {
                let pair = value("--set")?;
                let (procedure, file) = pair.split_once('=').ok_or_else(|| {
                    BadInput(format!("--set takes PROCEDURE=SQL_FILE, not `{pair}`"))
                })?;
                set.push((procedure.to_string(), PathBuf::from(file)));
            }
            "--scenario" => scenarios.push(value("--scenario")?),
            "--random" => {
                let runs = number("--random", value("--random")?)?;
                if runs == 0 {
                    return Err(BadInput("--random must be at least 1".into()));
                }
                random_runs = Some(runs);
            }
            "--seed" => seed = Some(number("--seed", value("--seed")?)?),
            "--max-steps" => {
                let n = number("--max-steps", value("--max-steps")?)?;
                if n == 0 {
                    return Err(BadInput("--max-steps must be at least 1".into()));
                }
                max_steps = Some(n);
            }
            "--max-sqlite-steps" => {
                let n = number("--max-sqlite-steps", value("--max-sqlite-steps")?)?;
                if n == 0 {
                    return Err(BadInput("--max-sqlite-steps must be at least 1".into()));
                }
                max_sqlite_steps = Some(n);
            }
            "--max-memory-mib" => {
                let n = number("--max-memory-mib", value("--max-memory-mib")?)?;
                if n == 0 || n > 4096 {
                    return Err(BadInput(
                        "--max-memory-mib must be between 1 and 4096".into(),
                    ));
                }
                max_memory_mib = Some(n);
            }
            "--max-schedules" => {
                let text = value("--max-schedules")?;
                let n: u64 = text.parse().map_err(|_| {
                    BadInput(format!(
                        "--max-schedules takes a positive number, not `{text}`"
                    ))
                })?;
                if n == 0 {
                    return Err(BadInput("--max-schedules must be at least 1".into()));
                }
                max_schedules = Some(n);
            }
            flag if flag.starts_with("--") => {
                return Err(BadInput(format!("unknown option `{flag}`\n\n{USAGE}")));
            }
            _ => positional.push(arg.clone()),
        }
    }
    let no_run_options = |name: &str| {
        if !set.is_empty()
            || !scenarios.is_empty()
            || max_schedules.is_some()
            || max_steps.is_some()
            || max_sqlite_steps.is_some()
            || max_memory_mib.is_some()
            || random_runs.is_some()
            || seed.is_some()
        {
            Err(BadInput(format!(
                "`{name}` takes no --set, --scenario, --max-schedules, --max-steps, \
                 --max-sqlite-steps, --max-memory-mib, --random or --seed"
            )))
        } else {
            Ok(())
        }
    };
    match command.as_str() {
        "help" | "--help" | "-h" => Ok(Command::Help),
        "version" | "--version" | "-V" => Ok(Command::Version),
        "list" => {
            no_run_options("list")?;
            Ok(Command::List)
        }
        "check" => {
            no_run_options("check")?;
            Ok(Command::Check {
                paths: positional.into_iter().map(PathBuf::from).collect(),
                json,
            })
        }
        "mutate" => {
            no_run_options("mutate")?;
            Ok(Command::Mutate {
                exercises: positional,
                json,
            })
        }
        "run" | "explore" => {
            let explore = command == "explore";
            let [exercise] = positional.as_slice() else {
                return Err(BadInput(format!(
                    "`{command}` takes one EXERCISE\n\n{USAGE}"
                )));
            };
            if !explore && (random_runs.is_some() || seed.is_some()) {
                return Err(BadInput(
                    "--random and --seed go with `explore`, not `run`".into(),
                ));
            }
            if seed.is_some() && random_runs.is_none() {
                return Err(BadInput("--seed goes with --random N".into()));
            }
            let (scenario_files, only) = if explore {
                if scenarios.len() > 1 {
                    return Err(BadInput("explore takes at most one --scenario NAME".into()));
                }
                (Vec::new(), scenarios.pop())
            } else {
                (scenarios.into_iter().map(PathBuf::from).collect(), None)
            };
            Ok(Command::Run(RunArgs {
                exercise: exercise.clone(),
                set,
                scenario_files,
                only,
                max_schedules,
                max_steps,
                max_sqlite_steps,
                max_memory_mib,
                json,
                explore,
                random: random_runs.map(|runs| (runs, seed)),
            }))
        }
        other => Err(BadInput(format!("unknown command `{other}`\n\n{USAGE}"))),
    }
}
