//! fencelab's build and test driver.
//!
//! `cargo xtask serve` and `cargo xtask test` are the README's whole quick
//! start. Both first install whatever this machine is missing (see
//! [`tools`]), idempotently and announcing each install in one line, then
//! build and serve the playground, or run every check CI runs (see [`stages`]).
//! `cargo xtask dist` builds the static site an author hosts (see [`site`]),
//! which `serve` serves as a static host would (see [`serve`]).

mod bench;
mod cmd;
mod fuzz;
mod hashed;
mod junit;
mod postgres;
mod release;
mod serve;
mod sha256;
mod site;
mod sizes;
mod stages;
mod tidy;
mod tools;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

const USAGE: &str = "usage: cargo xtask <command>

commands:
  serve [--port N] [--exercises DIR] [--site DIR]
                     install what is missing, build the site into dist/ (as `dist`), serve it on
                     127.0.0.1 (default port 8080; 0 picks a free one); --site DIR serves an
                     already built site as it is, without building
  dist [--out DIR] [--exercises DIR] [--scorm 1.2|2004 [--title TEXT] [--identifier ID]
       [--each-exercise]]
                     build the static site an author hosts anywhere (default dist/): the page,
                     DIR's exercise files checked and indexed in exercises/ (without --exercises,
                     those already in the site's exercises/), brotli and gzip copies of every asset;
                     --scorm also packages the site and its exercises for an LMS, one SCO per
                     exercise, as COURSE-scorm-VERSION.zip beside the site (`fencelab scorm`),
                     titled TEXT (default: the exercise folder's name) with the manifest
                     identifier ID (default: made from the title); --each-exercise makes one
                     package per exercise instead, in the folder COURSE-scorm-VERSION/
  dist-static [--out DIR]
                     the release a grader installs without compiling: fencelab and mdbook-fencelab
                     for x86_64-unknown-linux-musl, static, as fencelab-VERSION-TARGET.tar.gz and
                     its .sha256 in DIR (default target/static-release)
  static-check [ARCHIVE]
                     verify the archive's sum with sha256sum and run its binaries in an empty root
                     (unshare --root, as root): each command's output must be the native
                     build's, byte for byte (a `test` stage; default: the archive in target/static-release)
  walkthroughs [ARCHIVE]
                     the CLI's walkthrough tests (each grader's files run as written) installing the
                     static release (a `test` stage; default: the archive in target/static-release)
  test [--only TEXT]  install what is missing and run every check CI runs (with --only, the
                     stages whose names contain TEXT), a throwaway PostgreSQL server up meanwhile
  bench [--only TEXT]
                     every benchmark (with --only, the sections whose names contain TEXT), then
                     one table per section (first load, browser, engine, explore, line marks,
                     mutate, postgres: on FENCELAB_POSTGRES's server, else a throwaway one)
  post-build [DIR]   finish the site trunk built in DIR (default: $TRUNK_STAGING_DIR, as trunk's
                     post_build hook runs it): prerender each bundled exercise's page
                     (web/prerender), then give every asset a content-hashed name and rewrite
                     the references to it; the pages, sw.js and embed.js keep their names
  site-pages DIR     write the pages of the exercises the built site in DIR serves of its own
                     (its exercises/index.toml, as `fencelab index` writes it): each prerendered
                     with its verdicts, as the bundled ones are, and listed for the service worker;
                     each file it changes gets fresh .br/.gz copies if the site has copies, else
                     none; `dist` does it; run it after `fencelab index` changes a hosted site
  sizes              the built playground's first-load bytes (raw, gzip -9, brotli); fails if the
                     page's wasm has SQLite or a TOML parser
  fuzz [--seconds N] [--sanitizer address|none] [TARGET...]
                     run the fuzz targets (default: all, 60 s each); docs/FUZZING.md
  fuzz-check         only type-check the fuzz targets (a `test` stage)
  tidy               check that docs/ARCHITECTURE.md names only paths that exist and a test for
                     each invariant, the model and the core name no I/O or thread, the core's
                     public functions give no `String` errors, no test is skipped, every crate
                     takes the workspace's lints, every npm import is declared and no function
                     is over 80 lines (100 in a test) without a `// long:` reason (a `test` stage)
  junit-check        validate `fencelab check` and `run --format junit` against junit-10.xsd (a `test` stage)
  setup              only install what is missing";

const DEFAULT_PORT: u16 = 8080;
/// Where trunk has put a build when it runs a `post_build` hook.
const TRUNK_STAGING_DIR: &str = "TRUNK_STAGING_DIR";

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
    Serve {
        port: u16,
        /// Serve this built site as it is instead of building dist/.
        site: Option<PathBuf>,
        exercises: Option<PathBuf>,
    },
    /// The site, and with a version its SCORM package.
    Dist(site::Options, Option<site::Scorm>),
    /// Every stage, or those whose names contain the text.
    Test(Option<String>),
    Bench(Option<String>),
    Sizes,
    PostBuild(PathBuf),
    /// A built site's own exercises' pages (`site::pages`).
    SitePages(PathBuf),
    Fuzz(fuzz::Options),
    FuzzCheck,
    Tidy,
    JunitCheck,
    /// The static release archive, into this folder (`release::build`).
    DistStatic(PathBuf),
    /// The static release archive checked in an empty root (`release::check`).
    StaticCheck(PathBuf),
    /// The CLI's walkthrough tests installing the static release.
    Walkthroughs(PathBuf),
    Setup,
    Help,
}

fn parse(args: &[String]) -> Result<Command, String> {
    let (name, rest) = match args.split_first() {
        Some((name, rest)) => (name.as_str(), rest),
        None => return Err("no command given".into()),
    };
    // `--help` anywhere asks for the usage, never for a flag's value.
    if rest.iter().any(|arg| arg == "--help" || arg == "-h") {
        return Ok(Command::Help);
    }
    match name {
        "serve" => parse_serve(rest),
        "dist" => parse_dist(rest),
        "setup" if !rest.is_empty() => Err(format!(
            "{name} takes no arguments, got `{}`",
            rest.join(" ")
        )),
        "test" => parse_only("test", "a part of a stage's name", rest).map(Command::Test),
        "setup" => Ok(Command::Setup),
        "bench" => parse_only("bench", "a part of a section's name", rest).map(Command::Bench),
        "sizes" => Ok(Command::Sizes),
        "post-build" => match rest {
            [dir] => Ok(Command::PostBuild(absolute(dir)?)),
            [] => std::env::var_os(TRUNK_STAGING_DIR)
                .map(|dir| Command::PostBuild(dir.into()))
                .ok_or_else(|| {
                    format!("post-build needs a folder, or {TRUNK_STAGING_DIR} as trunk sets it")
                }),
            _ => Err(format!(
                "post-build takes one folder, got `{}`",
                rest.join(" ")
            )),
        },
        "site-pages" => match rest {
            [dir] => Ok(Command::SitePages(absolute(dir)?)),
            _ => Err(format!(
                "site-pages takes one folder, a built site, got `{}`",
                rest.join(" ")
            )),
        },
        "fuzz" => Ok(Command::Fuzz(fuzz::parse(rest)?)),
        "fuzz-check" => Ok(Command::FuzzCheck),
        "tidy" if rest.is_empty() => Ok(Command::Tidy),
        "junit-check" => Ok(Command::JunitCheck),
        "dist-static" => parse_dist_static(rest),
        "static-check" => parse_static_check(rest),
        "walkthroughs" => match parse_static_check(rest)? {
            Command::StaticCheck(archive) => Ok(Command::Walkthroughs(archive)),
            _ => Err("walkthroughs takes one archive".into()),
        },
        "help" | "--help" | "-h" => Ok(Command::Help),
        other => Err(format!("unknown command `{other}`")),
    }
}

/// trunk's post_build hook: the pages prerendered first (they name the
/// assets by trunk's names, which the hashing then rewrites in every
/// page), then every asset hashed.
fn post_build(dir: &Path) -> Result<ExitCode, String> {
    cmd::status(&mut cmd::prerender(dir))?;
    let renames = hashed::hash_site(dir)?;
    println!(
        "xtask: {} assets in {} named after their content",
        renames.len(),
        dir.display()
    );
    Ok(ExitCode::SUCCESS)
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
        Command::Serve {
            port,
            site,
            exercises,
        } => serve_site(&root, port, site, exercises),
        Command::Dist(options, scorm) => {
            let tools = tools::ensure(&root, tools::Purpose::Serve)?;
            site::build(&root, &tools, &options)?;
            if let Some(scorm) = scorm {
                site::package(&options, &scorm)?;
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Bench(only) => {
            let tools = tools::ensure(&root, tools::Purpose::Bench)?;
            stages::bench(&root, &tools, only.as_deref())?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Sizes => sizes::report(&root).map(succeeded),
        Command::PostBuild(dir) => post_build(&dir),
        Command::SitePages(dir) => site::pages(&dir).map(succeeded),
        Command::Fuzz(options) => {
            tools::ensure_fuzzing(&root, &mut tools::Apt::default())?;
            fuzz::run(&root, &options).map(passed_if)
        }
        Command::Tidy => tidy::run(&root).map(passed_if),
        Command::FuzzCheck => {
            tools::ensure_fuzzing(&root, &mut tools::Apt::default())?;
            fuzz::check_only(&root)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::JunitCheck => junit::run(&root).map(succeeded),
        Command::DistStatic(out) => dist_static(&root, &out),
        Command::Walkthroughs(archive) => release::walkthroughs(&root, &archive).map(succeeded),
        Command::StaticCheck(archive) => {
            release::check(&root, &archive, &native_build(&root)?).map(succeeded)
        }
        Command::Test(only) => {
            let tools = tools::ensure(&root, tools::Purpose::Test)?;
            let summary = stages::run_all(&root, &tools, only.as_deref())?;
            Ok(passed_if(summary.failed == 0))
        }
    }
}

/// `--flag VALUE` and `--flag=VALUE` pairs, in order.
struct Flags<'a> {
    command: &'static str,
    rest: std::slice::Iter<'a, String>,
}

impl<'a> Flags<'a> {
    fn new(command: &'static str, args: &'a [String]) -> Flags<'a> {
        Flags {
            command,
            rest: args.iter(),
        }
    }

    fn next(&mut self) -> Result<Option<(&'a str, &'a str)>, String> {
        let Some(arg) = self.rest.next() else {
            return Ok(None);
        };
        if !arg.starts_with("--") {
            return Err(format!("{} does not take `{arg}`", self.command));
        }
        if let Some((flag, value)) = arg.split_once('=') {
            return Ok(Some((flag, value)));
        }
        let value = self
            .rest
            .next()
            .ok_or_else(|| format!("{arg} needs a value, as in `{arg} VALUE`"))?;
        Ok(Some((arg.as_str(), value.as_str())))
    }
}

/// A path given on the command line, made absolute against the folder the
/// command was run in (the driver then works from the workspace root).
fn absolute(path: &str) -> Result<PathBuf, String> {
    let path = PathBuf::from(path);
    if path.is_absolute() {
        return Ok(path);
    }
    std::env::current_dir()
        .map(|dir| dir.join(path))
        .map_err(|e| format!("cannot tell the current folder: {e}"))
}

/// `serve [--port N] [--site DIR | --exercises DIR]`.
fn parse_serve(rest: &[String]) -> Result<Command, String> {
    let mut port = DEFAULT_PORT;
    let (mut site, mut exercises) = (None, None);
    let mut options = Flags::new("serve", rest);
    while let Some((flag, value)) = options.next()? {
        match flag {
            "--port" => {
                port = value
                    .parse()
                    .map_err(|_| format!("--port takes a port number (0-65535), not `{value}`"))?;
            }
            "--site" => site = Some(absolute(value)?),
            "--exercises" => exercises = Some(absolute(value)?),
            _ => return Err(format!("serve does not take `{flag}`")),
        }
    }
    if site.is_some() && exercises.is_some() {
        return Err(
            "--site serves a built site as it is; --exercises builds one: \
                    give one of them"
                .into(),
        );
    }
    Ok(Command::Serve {
        port,
        site,
        exercises,
    })
}

/// `dist [--out DIR] [--exercises DIR] [--scorm V [--title T] [--identifier I] [--each-exercise]]`.
fn parse_dist(rest: &[String]) -> Result<Command, String> {
    let mut out = None;
    let (mut exercises, mut scorm) = (None, None);
    let (mut title, mut identifier) = (None, None);
    // `--each-exercise` is the one flag of dist without a value.
    let valued: Vec<String> = rest
        .iter()
        .filter(|arg| *arg != "--each-exercise")
        .cloned()
        .collect();
    let each_exercise = valued.len() < rest.len();
    let mut options = Flags::new("dist", &valued);
    while let Some((flag, value)) = options.next()? {
        match flag {
            "--out" => out = Some(absolute(value)?),
            "--exercises" => exercises = Some(absolute(value)?),
            "--scorm" => scorm = Some(site::ScormVersion::parse(value)?),
            "--title" => title = Some(value.to_string()),
            "--identifier" => identifier = Some(value.to_string()),
            _ => return Err(format!("dist does not take `{flag}`")),
        }
    }
    Ok(Command::Dist(
        site::Options {
            out: out.unwrap_or_else(|| workspace_root().join("dist")),
            exercises,
        },
        site::Scorm::from_flags(scorm, title, identifier, each_exercise)?,
    ))
}

/// `test [--only TEXT]`.
/// `test [--only TEXT]`, `bench [--only TEXT]`: the TEXT, which names
/// `what`.
fn parse_only(name: &'static str, what: &str, rest: &[String]) -> Result<Option<String>, String> {
    let mut only = None;
    let mut options = Flags::new(name, rest);
    while let Some((flag, value)) = options.next()? {
        match flag {
            "--only" if !value.is_empty() => only = Some(value.to_string()),
            "--only" => return Err(format!("--only needs {what}")),
            _ => return Err(format!("{name} does not take `{flag}`")),
        }
    }
    Ok(only)
}

/// `dist-static [--out DIR]`.
fn parse_dist_static(rest: &[String]) -> Result<Command, String> {
    let mut out = None;
    let mut options = Flags::new("dist-static", rest);
    while let Some((flag, value)) = options.next()? {
        match flag {
            "--out" => out = Some(absolute(value)?),
            _ => return Err(format!("dist-static does not take `{flag}`")),
        }
    }
    Ok(Command::DistStatic(out.unwrap_or_else(|| {
        release::default_out(&workspace_root())
    })))
}

/// `static-check [ARCHIVE]`.
fn parse_static_check(rest: &[String]) -> Result<Command, String> {
    match rest {
        [] => Ok(Command::StaticCheck(release::archive_in(
            &release::default_out(&workspace_root()),
        ))),
        [archive] => Ok(Command::StaticCheck(absolute(archive)?)),
        _ => Err(format!(
            "static-check takes one archive, got `{}`",
            rest.join(" ")
        )),
    }
}

/// The exit code of a command that returned without an error.
fn succeeded((): ()) -> ExitCode {
    ExitCode::SUCCESS
}

/// The exit code of a command that says whether what it checked passed.
fn passed_if(passed: bool) -> ExitCode {
    if passed {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// Serves the built site `built` as it is, or else builds dist/ (with the
/// site's own `exercises`, if given) and serves that.
fn serve_site(
    root: &Path,
    port: u16,
    built: Option<PathBuf>,
    exercises: Option<PathBuf>,
) -> Result<ExitCode, String> {
    let out = match built {
        Some(built) => built,
        None => {
            let tools = tools::ensure(root, tools::Purpose::Serve)?;
            let out = root.join("dist");
            site::build(
                root,
                &tools,
                &site::Options {
                    out: out.clone(),
                    exercises,
                },
            )?;
            out
        }
    };
    serve::run(&out, port)?;
    Ok(ExitCode::SUCCESS)
}

/// Installs what the static build needs, then builds it.
fn dist_static(root: &Path, out: &Path) -> Result<ExitCode, String> {
    tools::ensure_static(root, &mut tools::Apt::default())?;
    release::build(root, out)?;
    Ok(ExitCode::SUCCESS)
}

/// The folder of a native build of the CLI and the preprocessor: the one
/// `cargo xtask test` made ([`cmd::BUILT_ENV`]), else a `cargo build` now.
fn native_build(root: &Path) -> Result<PathBuf, String> {
    if let Some(built) = std::env::var_os(cmd::BUILT_ENV) {
        return Ok(PathBuf::from(built));
    }
    cmd::status(std::process::Command::new("cargo").args([
        "build",
        "--locked",
        "-p",
        "fencelab-cli",
        "-p",
        "fencelab-mdbook",
    ]))?;
    Ok(cmd::test_build_dir(root))
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

#[cfg(test)]
mod tests {
    use super::*;

    fn args(text: &str) -> Vec<String> {
        text.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    fn serve_and_dist_take_their_flags_in_either_form() {
        let Ok(Command::Serve {
            port,
            site,
            exercises,
        }) = parse(&args("serve --port=0 --site /tmp/site"))
        else {
            panic!("serve parses");
        };
        assert_eq!((port, site, exercises), (0, Some("/tmp/site".into()), None));
        let Ok(Command::Dist(options, None)) =
            parse(&args("dist --out /tmp/out --exercises course"))
        else {
            panic!("dist parses");
        };
        assert_eq!(options.out, PathBuf::from("/tmp/out"));
        let course = std::env::current_dir().unwrap().join("course");
        assert_eq!(options.exercises, Some(course), "relative to where it ran");
        let Ok(Command::Dist(options, None)) = parse(&args("dist")) else {
            panic!("dist parses");
        };
        assert_eq!(options.out, workspace_root().join("dist"));
        let Ok(Command::Dist(_, Some(scorm))) = parse(&args("dist --scorm=2004")) else {
            panic!("dist --scorm parses");
        };
        assert_eq!(scorm.version.name(), "2004");
        assert_eq!(
            (scorm.title, scorm.identifier, scorm.each_exercise),
            (None, None, false)
        );
        let Ok(Command::Dist(_, Some(scorm))) = parse(&args(
            "dist --each-exercise --scorm 1.2 --title=Week --identifier week-3",
        )) else {
            panic!("dist --scorm with its options parses");
        };
        assert_eq!(
            (
                scorm.version.name(),
                scorm.title.as_deref(),
                scorm.identifier.as_deref()
            ),
            ("1.2", Some("Week"), Some("week-3"))
        );
        assert!(scorm.each_exercise);
    }

    #[test]
    fn test_takes_a_part_of_a_stage_name_to_run_only_those() {
        assert!(matches!(parse(&args("test")), Ok(Command::Test(None))));
        let Ok(Command::Test(Some(only))) = parse(&args("test --only=PostgreSQL")) else {
            panic!("test --only parses");
        };
        assert_eq!(only, "PostgreSQL");
        let error = |text: &str| parse(&args(text)).err().unwrap_or_default();
        assert!(error("test --only").contains("--only needs a value"));
        assert!(error("test --only=").contains("a part of a stage's name"));
        assert!(error("test --fast 1").contains("test does not take `--fast`"));
        assert!(error("setup now").contains("setup takes no arguments"));
        assert!(matches!(parse(&args("bench")), Ok(Command::Bench(None))));
        let Ok(Command::Bench(Some(only))) = parse(&args("bench --only postgres")) else {
            panic!("bench --only parses");
        };
        assert_eq!(only, "postgres");
        assert!(error("bench --only=").contains("a part of a section's name"));
    }

    #[test]
    fn help_after_any_command_is_the_usage() {
        for text in [
            "serve --help",
            "dist -h",
            "serve --port 80 --help",
            "fuzz --help",
        ] {
            assert!(
                matches!(parse(&args(text)), Ok(Command::Help)),
                "`{text}` is not help"
            );
        }
    }

    #[test]
    fn a_wrong_flag_is_a_sentence() {
        let error = |text: &str| parse(&args(text)).err().unwrap_or_default();
        assert!(error("serve --port").contains("--port needs a value"));
        assert!(error("serve --port 99999").contains("port number"));
        assert!(error("serve --site a --exercises b").contains("give one of them"));
        assert!(error("dist --verbose x").contains("dist does not take `--verbose`"));
        assert!(error("dist out").contains("dist does not take `out`"));
        assert!(error("dist --scorm 1.3").contains("give 1.2 or 2004"));
        for text in [
            "dist --title Week",
            "dist --identifier w3",
            "dist --each-exercise",
        ] {
            assert!(
                error(text).contains("name the SCORM package: give --scorm 1.2|2004 too"),
                "{text}: {}",
                error(text)
            );
        }
        assert!(error("post-build a b").contains("post-build takes one folder"));
        let Ok(Command::PostBuild(dir)) = parse(&args("post-build /tmp/site")) else {
            panic!("post-build parses");
        };
        assert_eq!(dir, PathBuf::from("/tmp/site"));
    }

    #[test]
    fn the_static_release_is_written_and_checked_where_asked() {
        let Ok(Command::DistStatic(out)) = parse(&args("dist-static")) else {
            panic!("dist-static parses");
        };
        assert_eq!(out, workspace_root().join("target/static-release"));
        let Ok(Command::DistStatic(out)) = parse(&args("dist-static --out=/tmp/r")) else {
            panic!("dist-static --out parses");
        };
        assert_eq!(out, PathBuf::from("/tmp/r"));
        let Ok(Command::StaticCheck(archive)) = parse(&args("static-check")) else {
            panic!("static-check parses");
        };
        let name = format!(
            "fencelab-{}-x86_64-unknown-linux-musl.tar.gz",
            env!("CARGO_PKG_VERSION")
        );
        assert_eq!(
            archive,
            workspace_root().join("target/static-release").join(name)
        );
        let error = |text: &str| parse(&args(text)).err().unwrap_or_default();
        assert!(error("dist-static --target x").contains("does not take `--target`"));
        assert!(error("static-check a b").contains("takes one archive"));
    }
}
