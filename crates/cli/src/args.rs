//! Command-line arguments, declared with clap's derive: each subcommand's
//! options and their help in one place, and the checks on a value (a
//! number at least 1, `PROCEDURE=SQL_FILE`) made where it is parsed, so a
//! mistake is a usage error (exit 2) that names the option.

use crate::grade::{Format, History};
use crate::postgres::PostgresArg;
use clap::{Args, CommandFactory, FromArgMatches, Parser, Subcommand};
use fencelab_core::Journal;
use fencelab_core::Schedule;
use std::path::PathBuf;

const EXIT_CODES: &str =
    "Exit codes: 0 all passed, 1 a scenario failed or a mutant survived, 2 bad input.";

/// `check`'s and `run`'s: they grade.
const GRADED: &str = "Exit codes: 0 all passed, 1 a scenario failed or a mutant survived, \
2 bad input; with --min-score N, 0 when the score is at least N, else 1. docs/GRADING.md \
describes --format and the JSON document.";

const GRADED_RUN: &str = "EXERCISE is a bundled id (see `fencelab list`) or an exercise file; \
docs/EXERCISES.md describes the format.
Exit codes: 0 all passed, 1 a scenario failed, 2 bad input; with --min-score N, 0 when the \
score is at least N, else 1. docs/GRADING.md describes --format and the JSON document.";

const AFTER_HELP: &str = "EXERCISE is a bundled id (see `fencelab list`) or an exercise file; \
docs/EXERCISES.md describes the format.
Exit codes: 0 all passed, 1 a scenario failed or a mutant survived, 2 bad input.";

/// fencelab: check fencing-token exercises and run their scenarios on SQLite.
#[derive(Parser)]
#[command(name = "fencelab", after_help = AFTER_HELP, arg_required_else_help = true)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand)]
pub enum Command {
    /// The bundled exercises, one line each: id and title.
    List,
    /// Check exercises: the reference passes, every broken variant is caught.
    ///
    /// With no FILE or DIR, the bundled exercises. A directory stands for its
    /// `.toml` files in name order; a bundled exercise's id (`fencelab
    /// list`), where no file has that name, for that exercise. Exercises are checked in parallel, one
    /// per core, and printed in order, ending with one summary line. Exits 1
    /// when a scenario fails or a mutant survives, 2 when a file cannot be
    /// read or loaded (after checking the others). Its cases, for --format:
    /// the reference's scenarios, the broken variants, the [[equivalent]]
    /// declarations.
    #[command(after_help = GRADED)]
    Check {
        /// Exercise files, directories of them, or bundled exercise ids.
        #[arg(value_name = "FILE|DIR|ID")]
        paths: Vec<PathBuf>,
        #[command(flatten)]
        grading: GradeArgs,
        #[command(flatten)]
        postgres: PostgresArg,
    },
    /// Run an exercise's scenarios and print each verdict: grade a submission.
    ///
    /// For a failure, the shortest failing schedule and its history. Exits 1
    /// when a scenario fails (or, with --min-score, when the score is lower).
    #[command(after_help = GRADED_RUN)]
    Run {
        /// A bundled id or an exercise file.
        exercise: String,
        #[command(flatten)]
        texts: Texts,
        /// Add the [[scenarios]] of FILE to the exercise's own (repeatable).
        #[arg(long = "scenario-file", value_name = "FILE")]
        scenario_files: Vec<PathBuf>,
        #[command(flatten)]
        limits: LimitArgs,
        #[command(flatten)]
        grading: GradeArgs,
        #[command(flatten)]
        postgres: PostgresArg,
    },
    /// Like run, with exploration figures for every scenario.
    ///
    /// Schedules tried, states seen and pruned; or, with --random, that many
    /// schedules drawn from a seed.
    #[command(after_help = AFTER_HELP)]
    Explore {
        /// A bundled id or an exercise file.
        exercise: String,
        #[command(flatten)]
        texts: Texts,
        /// Explore only the scenario named NAME.
        #[arg(long = "scenario", value_name = "NAME")]
        only: Option<String>,
        #[command(flatten)]
        limits: LimitArgs,
        /// Instead of every interleaving, N schedules drawn at random.
        #[arg(long, value_name = "N", value_parser = at_least_one)]
        random: Option<u64>,
        /// With --random: draw them from seed S (printed with every run, so a
        /// failure found at random replays from the command line).
        #[arg(long, value_name = "S", requires = "random", value_parser = whole_number)]
        seed: Option<u64>,
        /// Print one JSON document instead of text.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        postgres: PostgresArg,
    },
    /// Record exercises' verdicts on PostgreSQL for a site: DIR/ID.json each.
    ///
    /// For each exercise with a [postgres] table (with no EXERCISE, the
    /// bundled ones that have one; of a DIR, its files that have one), the
    /// reference, the starting texts and
    /// each named broken variant run on the server and on SQLite; DIR/ID.json
    /// holds the server's verdicts per scenario, SQLite's beside them, and
    /// the history of every scenario whose verdicts differ, for the page's
    /// "On PostgreSQL" panel (the page cannot run PostgreSQL itself).
    /// `cargo xtask` runs it into the site when FENCELAB_POSTGRES is set.
    /// --postgres is required. Exits 2 on bad input (no server, an exercise
    /// named on its own that is SQLite only).
    #[command(after_help = EXIT_CODES)]
    Record {
        /// Bundled ids, exercise files, or directories of them.
        #[arg(value_name = "EXERCISE|DIR")]
        exercises: Vec<String>,
        /// The folder the recordings go into (created if missing; a
        /// recording already there is replaced).
        #[arg(long, value_name = "DIR")]
        out: PathBuf,
        #[command(flatten)]
        postgres: PostgresArg,
    },
    /// Run every scenario against generated one-place bugs (mutants).
    ///
    /// Mutants of each editable procedure's reference; prints the mutation
    /// score and each survivor as a diff. With no EXERCISE, the bundled exercises. Exits 1 when a mutant not
    /// declared equivalent survives.
    #[command(after_help = AFTER_HELP)]
    Mutate {
        /// Bundled ids, exercise files, or directories of them.
        #[arg(value_name = "EXERCISE|DIR")]
        exercises: Vec<String>,
        /// Print one JSON document, one entry per exercise (docs/GRADING.md).
        #[arg(long)]
        json: bool,
        /// With --postgres: each exercise's mutants judged on SQLite and on
        /// the server, and every mutant of the same text that one engine
        /// kills and the other does not named.
        #[command(flatten)]
        postgres: PostgresArg,
    },
    /// Which lines the scenarios protect: the marks the page draws.
    ///
    /// Every generated mutant of the editable procedures (their references,
    /// or the texts --start and --set give) is judged by the whole suite, as
    /// the page does once a learner's text passes. Each line that is not
    /// blank then says which scenario fails when it changes (with the
    /// failure and the schedule that shows it), that no scenario notices, or
    /// why it has no mark. The texts must pass every scenario. Exits 1 when
    /// a line is unprotected or the texts cannot be judged (a scenario fails,
    /// or their mutants are past the mutant budget), 2 on bad input.
    #[command(after_help = AFTER_HELP)]
    Protect {
        /// A bundled id or an exercise file.
        exercise: String,
        #[command(flatten)]
        texts: Texts,
        /// Print one JSON document, the marks as the page receives them.
        #[arg(long)]
        json: bool,
    },
    /// Write ID.toml, a commented starter exercise that passes `check`.
    ///
    /// Its starting text fails, as `fencelab run ID.toml --start` shows.
    /// Never overwrites a file.
    #[command(after_help = EXIT_CODES)]
    New {
        /// The exercise's id: lowercase letters, digits and dashes.
        id: String,
        /// Write the file into DIR (created if missing).
        #[arg(long, value_name = "DIR", default_value = ".")]
        dir: PathBuf,
        /// Write the exercise's PostgreSQL texts too: a `[postgres]` table
        /// beside its SQLite ones.
        #[arg(long)]
        postgres: bool,
    },
    /// Check a site's exercises/ folder and write its index.toml.
    ///
    /// Every `.toml` file in DIR (but index.toml) is loaded and checked as
    /// `check` does, in parallel; the index the page loads them by is
    /// written only when every one passes and has an id of its own (not
    /// another file's, not a bundled exercise's). Otherwise nothing is
    /// written. Drop a file into a built site's exercises/ and run this.
    #[command(after_help = EXIT_CODES)]
    Index {
        /// The site's exercises/ folder.
        #[arg(value_name = "DIR")]
        dir: PathBuf,
        /// Only check the folder as the index would; write nothing.
        #[arg(long)]
        check: bool,
    },
    /// Package a built site's own exercises for an LMS (SCORM 1.2 or 2004).
    ///
    /// SITE is a site `cargo xtask dist --exercises DIR` built: the zip holds
    /// it (without its service worker and precompressed copies), an
    /// imsmanifest.xml listing each exercise of its exercises/index.toml as
    /// a SCO by its title, and each SCO's launch page, which reports to the
    /// LMS's runtime (docs/EMBEDDING.md, "SCORM packages"). With
    /// --each-exercise, one such zip per exercise instead, for an LMS that
    /// grades one activity per package (Canvas).
    #[command(after_help = EXIT_CODES)]
    Scorm {
        /// The built site's folder.
        #[arg(value_name = "SITE")]
        site: PathBuf,
        /// The SCORM version: 1.2 or 2004 (4th Edition).
        #[arg(long = "version", value_name = "1.2|2004", value_parser = scorm_version)]
        scorm: crate::scorm::Version,
        /// The zip file to write (with --each-exercise, the folder that
        /// gets ID-scorm-VERSION.zip per exercise). Refuses a zip that
        /// exists unless --force, and never writes through a symbolic link.
        #[arg(long, short, value_name = "FILE.zip|DIR")]
        out: PathBuf,
        /// The course's title, as the LMS lists the package (with
        /// --each-exercise, each package has its exercise's title).
        #[arg(long, value_name = "TEXT", default_value = "fencelab exercises")]
        title: String,
        /// The manifest's identifier, which the LMS keys the course by:
        /// an ASCII letter or `_`, then letters, digits, `-`, `_`, `.`
        /// (default: made from the title and the version). With
        /// --each-exercise, each package's is ID-EXERCISE.
        #[arg(long, value_name = "ID", value_parser = scorm_identifier)]
        identifier: Option<crate::scorm::Identifier>,
        /// One package per exercise, in the folder --out names.
        #[arg(long)]
        each_exercise: bool,
        /// Replace FILE.zip if it exists (a file, never a symbolic link's
        /// target): a package built again.
        #[arg(long)]
        force: bool,
    },
    /// Write a scenario's schedule as a standalone Python 3 script.
    ///
    /// The script makes a temporary database file with the exercise's
    /// schema, runs the schedule's statements on one sqlite3 connection per
    /// process, prints one line per step, and ends on the verdict: exit 1
    /// when a guarantee broke, 0 when none did, 2 when the file did
    /// something fencelab did not (docs/REPLAY.md). With --postgres, the
    /// same for a PostgreSQL server (docs/POSTGRES.md).
    #[command(after_help = AFTER_HELP)]
    Export {
        /// A bundled id or an exercise file.
        exercise: String,
        /// The scenario to export.
        #[arg(long, value_name = "NAME")]
        scenario: String,
        /// The schedule to run (`a b a b`); by default the one fencelab shows.
        #[arg(long, value_name = "S", value_parser = schedule)]
        schedule: Option<Schedule>,
        #[command(flatten)]
        texts: Texts,
        /// The journal mode, `delete` or `wal`; by default the exercise's.
        #[arg(long, value_name = "MODE", value_parser = journal, conflicts_with = "postgres")]
        journal: Option<Journal>,
        /// Export the run on PostgreSQL instead: the scenario runs with the
        /// exercise's [postgres] texts on the server URL names (with no URL,
        /// FENCELAB_POSTGRES's), and the script (psycopg 3: `pip install
        /// 'psycopg[binary]'`) replays it on the server its own command line
        /// names, `python3 SCRIPT.py URL`, in a scratch database it makes and
        /// drops, one connection per process, a statement that waits on a
        /// lock seen waiting as the engine sees it. It exits 3 when it
        /// cannot run. An exercise without a [postgres] table is SQLite only
        /// (exit 2).
        #[arg(long, value_name = "URL", num_args = 0..=1, default_missing_value = "")]
        postgres: Option<String>,
        /// Write Python (the one format there is; required, so a later
        /// format cannot be chosen by accident).
        #[arg(long, required = true)]
        python: bool,
        /// Write the script to FILE instead of standard output (`-`:
        /// standard output). Refuses a FILE that exists unless --force, and
        /// never writes through a symbolic link.
        #[arg(long, short, value_name = "FILE")]
        output: Option<PathBuf>,
        /// With --output: replace FILE if it exists (a file, never a
        /// symbolic link's target).
        #[arg(long, requires = "output")]
        force: bool,
    },
    /// Replay scenarios on a real database file and compare every step.
    ///
    /// Each scenario process gets a connection of its own to FILE (made
    /// afresh and removed after), with --processes an operating-system
    /// process of its own, driven step by step over a pipe. Every
    /// statement's result (rows changed and returned, a wait for the lock,
    /// a failure) is compared with the simulator's; a difference is printed
    /// with the step and both results. Exits 1 when any step differs.
    ///
    /// With --postgres, the runs are made on the server and replayed there:
    /// each in a database of its own (made and dropped), one connection per
    /// process, a statement that waited on a lock seen waiting again and
    /// finishing where it finished (docs/POSTGRES.md).
    #[command(after_help = AFTER_HELP)]
    Replay {
        /// A bundled id or an exercise file (or --bundled).
        #[arg(required_unless_present = "bundled")]
        exercise: Option<String>,
        /// Every bundled exercise, with its reference, its starting texts
        /// and its named broken variants.
        #[arg(long, conflicts_with_all = ["exercise", "set", "start"])]
        bundled: bool,
        /// Only the scenario named NAME (by default every scenario).
        #[arg(long, value_name = "NAME")]
        scenario: Option<String>,
        /// The schedule to replay; by default the one fencelab shows.
        #[arg(long, value_name = "S", value_parser = schedule, requires = "scenario")]
        schedule: Option<Schedule>,
        #[command(flatten)]
        texts: Texts,
        /// With EXERCISE: its reference, starting texts and named broken
        /// variants instead of the texts given.
        #[arg(long, conflicts_with_all = ["set", "start"])]
        variants: bool,
        /// The database file [default: a file in a private folder of the
        /// system's temporary folder]. PATH must not exist, or be a database
        /// an earlier replay left (application_id 0x666C6162,
        /// docs/REPLAY.md), unless --force; never a symbolic link.
        #[arg(long, value_name = "PATH")]
        file: Option<PathBuf>,
        /// With --file: replace PATH, and its -journal, -wal and -shm, even
        /// when it is not a database an earlier replay left.
        #[arg(long, requires = "file")]
        force: bool,
        /// The journal mode: delete, wal, or both [default: the exercise's].
        #[arg(long, value_name = "MODE", value_parser = journals)]
        journal: Option<Journals>,
        /// Run each scenario process as an operating-system process.
        #[arg(long)]
        processes: bool,
        /// Also replay up to N complete schedules the explorer visits (`all`:
        /// every one), for each scenario where a process waits for a lock.
        #[arg(long, value_name = "N|all", value_parser = explored_count)]
        explored: Option<usize>,
        /// Also run every replay through its exported Python script
        /// (python3 on PATH; with --postgres, one with psycopg 3), which
        /// must end on fencelab's verdict.
        #[arg(long)]
        python: bool,
        /// Make and replay the runs on PostgreSQL (not with --file,
        /// --journal or --processes); with --bundled, every bundled
        /// exercise with a [postgres] table.
        #[command(flatten)]
        postgres: PostgresArg,
    },
    /// One scenario process of `replay --processes` (started by replay).
    #[command(hide = true)]
    ReplayChild {
        #[arg(long, value_name = "PATH")]
        file: PathBuf,
    },
    /// fencelab's version and its SQLite.
    Version,
}

/// How `check` and `run` report: for people or for a grader
/// (docs/GRADING.md), with points.
#[derive(Args)]
pub struct GradeArgs {
    /// Print for a grader: one JSON document (docs/GRADING.md), JUnit XML,
    /// Gradescope's or Exercism's results.json, or GitHub Actions
    /// annotations with a step summary.
    #[arg(long, value_name = "FORMAT", value_enum, conflicts_with = "json")]
    pub format: Option<Format>,
    /// The same as --format json.
    #[arg(long)]
    pub json: bool,
    /// Which cases carry their history in the JSON document.
    #[arg(long, value_name = "WHICH", value_enum, default_value = "failing")]
    pub history: History,
    /// End with the line `score S/M`: the points of the passing cases (a
    /// scenario's `points`, 1 when not given) of all the cases' points. With
    /// a --format other than text, the line goes to standard error.
    #[arg(long)]
    pub points: bool,
    /// Exit 0 when the score is at least N points, 1 when it is lower (2
    /// still means bad input): a GitHub Classroom test awards its points on it.
    #[arg(long, value_name = "N", value_parser = whole_number)]
    pub min_score: Option<u64>,
    /// The playground's address (such as https://example.org/fencelab/):
    /// each counterexample then carries a link that opens it there.
    #[arg(long, value_name = "URL", value_parser = site_url)]
    pub site: Option<String>,
}

impl GradeArgs {
    /// The format asked for, `--json` being `--format json`.
    pub fn format(&self) -> Format {
        match (self.json, self.format) {
            (true, _) => Format::Json,
            (false, format) => format.unwrap_or(Format::Text),
        }
    }
}

/// Which texts of the editable procedures a run checks.
#[derive(Args)]
pub struct Texts {
    /// Replace an editable procedure with the text of SQL_FILE, as a
    /// learner's edit (repeatable).
    #[arg(long = "set", value_name = "PROCEDURE=SQL_FILE", value_parser = edit)]
    pub set: Vec<Edit>,
    /// Start from the editable procedures' starting texts, as a learner
    /// first sees them, instead of their references (--set still applies).
    #[arg(long)]
    pub start: bool,
}

/// `--set PROCEDURE=SQL_FILE`.
#[derive(Clone)]
pub struct Edit {
    pub procedure: String,
    pub file: PathBuf,
}

/// Bounds on one check. Reaching any of them is an error verdict that names
/// it, never a pass.
#[derive(Args)]
pub struct LimitArgs {
    /// Stop exploring a scenario after N schedules.
    #[arg(long, value_name = "N", value_parser = at_least_one)]
    pub max_schedules: Option<u64>,
    /// Stop checking a scenario after N procedure steps over all its runs,
    /// pruned ones included [default: 100000].
    #[arg(long, value_name = "N", value_parser = at_least_one)]
    pub max_steps: Option<u64>,
    /// Stop checking a scenario after N SQLite steps (VM instructions and
    /// text-matching work) over all its runs [default: 5000000].
    #[arg(long, value_name = "N", value_parser = at_least_one)]
    pub max_sqlite_steps: Option<u64>,
    /// Stop checking a scenario once it holds N MiB of explored states and
    /// history, 1 to 4096 [default: 16].
    #[arg(long, value_name = "N", value_parser = mebibytes)]
    pub max_memory_mib: Option<u64>,
}

/// Parses the command line; `--help`, `--version` and usage errors end the
/// process here with clap's own exit codes (0 for help, 2 for an error).
pub fn parse(version: String) -> Cli {
    let matches = Cli::command().version(version).get_matches();
    Cli::from_arg_matches(&matches).unwrap_or_else(|error| error.exit())
}

fn whole_number(text: &str) -> Result<u64, String> {
    text.parse()
        .map_err(|_| format!("takes a whole number, not `{text}`"))
}

fn at_least_one(text: &str) -> Result<u64, String> {
    match whole_number(text)? {
        0 => Err("must be at least 1".into()),
        n => Ok(n),
    }
}

fn mebibytes(text: &str) -> Result<u64, String> {
    match whole_number(text)? {
        n @ 1..=4096 => Ok(n),
        _ => Err("must be between 1 and 4096".into()),
    }
}

/// `--site URL`: an http(s) address with a host, and none of the
/// characters RFC 3986 leaves out of a URI (spaces, controls, `<>"{}|\^``).
/// The links built on it are written into Markdown (Gradescope's `<URL>`
/// link destination ends at the first `>`), annotations and JSON, so a
/// character that would end or break a link there is refused here.
fn site_url(text: &str) -> Result<String, String> {
    let shown = fencelab_cli::shown(text);
    let Some(rest) = text
        .strip_prefix("https://")
        .or_else(|| text.strip_prefix("http://"))
    else {
        return Err(format!(
            "takes the site's address, starting https:// or http://, not `{shown}`"
        ));
    };
    if rest.is_empty() || rest.starts_with('/') {
        return Err(format!(
            "takes the site's address with its host, not `{shown}`"
        ));
    }
    let outside = |c: char| !c.is_ascii() || c.is_ascii_control() || " <>\"{}|\\^`".contains(c);
    match text.chars().find(|&c| outside(c)) {
        Some(c) => Err(format!(
            "the site's address cannot hold {:?} (write it percent-encoded): `{shown}`",
            c
        )),
        None => Ok(text.to_string()),
    }
}

fn schedule(text: &str) -> Result<Schedule, String> {
    Schedule::parse(text).map_err(|e| e.to_string())
}

fn scorm_version(text: &str) -> Result<crate::scorm::Version, String> {
    crate::scorm::Version::parse(text)
}

fn scorm_identifier(text: &str) -> Result<crate::scorm::Identifier, String> {
    crate::scorm::Identifier::parse(text)
}

fn journal(text: &str) -> Result<Journal, String> {
    Journal::from_pragma_name(text).ok_or_else(|| format!("takes delete or wal, not `{text}`"))
}

/// `--journal delete|wal|both`: the modes to replay in.
#[derive(Clone)]
pub struct Journals(pub Vec<Journal>);

fn journals(text: &str) -> Result<Journals, String> {
    if text == "both" {
        return Ok(Journals(Journal::ALL.to_vec()));
    }
    journal(text)
        .map(|journal| Journals(vec![journal]))
        .map_err(|_| format!("takes delete, wal or both, not `{text}`"))
}

/// `all` is every schedule the explorer visits, which its own schedule
/// limit already bounds.
fn explored_count(text: &str) -> Result<usize, String> {
    match text {
        "all" => Ok(usize::MAX),
        _ => text
            .parse()
            .map_err(|_| format!("takes a whole number or `all`, not `{text}`")),
    }
}

fn edit(text: &str) -> Result<Edit, String> {
    match text.split_once('=') {
        Some((procedure, file)) if !procedure.is_empty() && !file.is_empty() => Ok(Edit {
            procedure: procedure.to_string(),
            file: PathBuf::from(file),
        }),
        _ => Err(format!("takes PROCEDURE=SQL_FILE, not `{text}`")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_site_address_is_a_plain_url_with_a_host() {
        for good in [
            "https://example.org/fencelab/",
            "http://127.0.0.1:8080/",
            "https://example.org/a%20b/?x=1#frag",
        ] {
            assert_eq!(site_url(good).as_deref(), Ok(good));
        }
        for (bad, says) in [
            ("example.org", "starting https://"),
            ("https://", "with its host"),
            ("https:///path", "with its host"),
            ("https://x.org/a>b", "'>'"),
            ("https://x.org/a b", "' '"),
            ("https://x.org/\n)[x](y", "'\\n'"),
            ("https://x.org/é", "'é'"),
            ("https://x.org/`code`", "'`'"),
        ] {
            let error = site_url(bad).expect_err(bad);
            assert!(error.contains(says), "{bad}: {error}");
        }
    }

    #[test]
    fn the_declaration_is_consistent() {
        Cli::command().debug_assert();
    }

    /// The defaults are written into the help by hand; each must be the
    /// engine's own (`--max-memory-mib` once said 64 where it was 16).
    #[test]
    fn every_default_the_help_states_is_the_engines() {
        let defaults = fencelab_core::Limits::default();
        let mut command = Cli::command();
        let help = command
            .find_subcommand_mut("run")
            .expect("a run command")
            .render_long_help()
            .to_string();
        let stated = |flag: &str| -> u64 {
            let after = &help[help
                .find(flag)
                .unwrap_or_else(|| panic!("{flag} in {help}"))..];
            let at = after.find("[default: ").expect("a stated default") + "[default: ".len();
            let digits: String = after[at..]
                .chars()
                .take_while(char::is_ascii_digit)
                .collect();
            digits.parse().expect("a number")
        };
        assert_eq!(stated("--max-steps"), defaults.steps_max);
        assert_eq!(stated("--max-sqlite-steps"), defaults.sqlite_steps_max);
        assert_eq!(
            stated("--max-memory-mib"),
            defaults.memory_bytes_max / (1024 * 1024)
        );
    }
}
