//! What the grading tests (grading.rs, specs.rs) share: running the built
//! `fencelab` as a grader does, and reading what it printed.
//!
//! Each test file compiles this module on its own and uses part of it, so
//! the parts a file leaves unused are allowed to be.
#![allow(dead_code)]

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// `fencelab ARGS`, with `env` added and no step summary of the CI it runs
/// in (a GitHub runner's `GITHUB_STEP_SUMMARY` would catch its output).
pub fn fencelab_with(args: &[&str], env: &[(&str, &Path)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_fencelab"));
    command.args(args).env_remove("GITHUB_STEP_SUMMARY");
    for (name, value) in env {
        command.env(name, value);
    }
    command.output().expect("the fencelab binary runs")
}

pub fn fencelab(args: &[&str]) -> Output {
    fencelab_with(args, &[])
}

/// `fencelab ARGS` started in `dir`, as a grader's script runs it there,
/// not yet waited for (several run at once: a FIFO case waits 10 s).
pub fn spawn_fencelab_in(dir: &Path, args: &[&str]) -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_fencelab"))
        .args(args)
        .current_dir(dir)
        .env_remove("GITHUB_STEP_SUMMARY")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the fencelab binary runs")
}

pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Standard output read as the JSON document it must be.
pub fn json(output: &Output) -> Value {
    serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", text(&output.stdout)))
}

/// A file under crates/cli/tests/data.
pub fn data(name: &str) -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data")).join(name)
}

/// The name of the release archive a grader downloads, without `.tar.gz`:
/// also the one folder inside it, which holds `fencelab` (and, in the
/// static build, `mdbook-fencelab`). The walkthroughs name it as written
/// here, so a version bump fails their tests until they are updated.
pub const RELEASE_NAME: &str = concat!(
    "fencelab-",
    env!("CARGO_PKG_VERSION"),
    "-x86_64-unknown-linux-musl"
);

/// The release archive the walkthroughs install from, with its `.sha256`
/// beside it (one line as `sha256sum` writes it).
///
/// `cargo xtask test` builds the static one (`cargo xtask dist-static`) and
/// names it in `FENCELAB_TARBALL`. A plain `cargo test` has none, so this
/// packs the binary under test in the same layout: the scripts then run as
/// written, on this machine's libc instead of none.
pub fn release_tarball(scratch: &Path) -> PathBuf {
    if let Some(built) = std::env::var_os("FENCELAB_TARBALL") {
        return PathBuf::from(built);
    }
    let folder = scratch.join("packing").join(RELEASE_NAME);
    std::fs::create_dir_all(&folder).expect("a packing folder");
    std::fs::copy(env!("CARGO_BIN_EXE_fencelab"), folder.join("fencelab"))
        .expect("the binary under test is copied");
    let archive = scratch.join(format!("{RELEASE_NAME}.tar.gz"));
    let packed = Command::new("tar")
        .arg("-czf")
        .arg(&archive)
        .arg("-C")
        .arg(scratch.join("packing"))
        .arg(RELEASE_NAME)
        .status()
        .expect("tar runs");
    assert!(packed.success(), "tar packs the binary under test");
    let summed = Command::new("sha256sum")
        .arg(format!("{RELEASE_NAME}.tar.gz"))
        .current_dir(scratch)
        .output()
        .expect("sha256sum runs");
    assert!(summed.status.success(), "sha256sum sums the archive");
    std::fs::write(
        scratch.join(format!("{RELEASE_NAME}.tar.gz.sha256")),
        summed.stdout,
    )
    .expect("the sum is written");
    archive
}

/// The bundled exercise the grader tests grade, and its one editable
/// procedure, submitted as `claim.sql`.
pub const EXERCISE: &str = "claim-compare-and-set";
pub const SUBMITTED: &str = "claim.sql";

/// A submission folder as a learner may hand it in. submissions.rs and the
/// walkthrough tests lay out each one the same way, so every grader is
/// tried on the same bad submissions (issue 51: "a correct, a wrong, a
/// missing, a misnamed, an empty, a binary and a 1 MB submission").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Submission {
    /// The exercise's reference claim: every test passes.
    Correct,
    /// tests/data/naive-claim.sql: `one winner` fails.
    Wrong,
    /// Nothing at all in the folder.
    Missing,
    /// The right text as `Claim.SQL`.
    Misnamed,
    /// The right text as the folder's one other `.sql` file.
    OtherName,
    /// A file of nothing.
    Empty,
    /// Bytes that are not UTF-8 (Latin-1, as an old editor saves).
    NotUtf8,
    /// Text with a NUL in it.
    Nul,
    /// 1 MB of SQL comments: past the most fencelab reads for a procedure.
    Large,
    /// A folder named `claim.sql`.
    Directory,
}

impl Submission {
    /// Every submission that cannot be graded.
    pub const UNUSABLE: [Submission; 8] = [
        Submission::Missing,
        Submission::Misnamed,
        Submission::OtherName,
        Submission::Empty,
        Submission::NotUtf8,
        Submission::Nul,
        Submission::Large,
        Submission::Directory,
    ];

    /// Writes the submission into `folder` (which must exist).
    pub fn lay_out(self, folder: &Path) {
        let claim = folder.join(SUBMITTED);
        let write = |path: PathBuf, bytes: &[u8]| {
            std::fs::write(&path, bytes)
                .unwrap_or_else(|e| panic!("{} is written: {e}", path.display()))
        };
        match self {
            Submission::Correct => write(claim, reference_claim().as_bytes()),
            Submission::Wrong => write(
                claim,
                &std::fs::read(data("naive-claim.sql")).expect("the naive claim"),
            ),
            Submission::Missing => {}
            Submission::Misnamed => write(folder.join("Claim.SQL"), reference_claim().as_bytes()),
            Submission::OtherName => write(folder.join("answer.sql"), reference_claim().as_bytes()),
            Submission::Empty => write(claim, b""),
            Submission::NotUtf8 => write(claim, b"-- caf\xe9\nSELECT 1;\n"),
            Submission::Nul => write(claim, b"SELECT 1;\0\n"),
            Submission::Large => write(claim, "-- padding\n".repeat(100_000).as_bytes()),
            Submission::Directory => std::fs::create_dir(&claim).expect("a folder named claim.sql"),
        }
    }

    /// What every message about this submission must say: the file's name
    /// and what to do about it.
    pub fn says(self) -> &'static [&'static str] {
        match self {
            Submission::Correct | Submission::Wrong => &[],
            Submission::Missing => &[
                "claim.sql: there is no such file",
                "Save the `claim` procedure's SQL as a text file named `claim.sql`",
            ],
            Submission::Misnamed => &["`Claim.SQL`", "rename that file to `claim.sql`"],
            Submission::OtherName => &["`answer.sql`", "rename it to `claim.sql`"],
            Submission::Empty => &[
                "claim.sql: the file is empty",
                "Write the `claim` procedure's SQL in it",
            ],
            Submission::NotUtf8 => &[
                "claim.sql: the file is not text (its bytes are not UTF-8)",
                "as a text file named `claim.sql`",
            ],
            Submission::Nul => &[
                "claim.sql: the file is not text (it holds a NUL byte",
                "as a text file named `claim.sql`",
            ],
            Submission::Large => &[
                "claim.sql: the file is larger than 16384 bytes",
                "Submit the `claim` procedure's SQL alone",
            ],
            Submission::Directory => &[
                "claim.sql: is a directory, not a file",
                "as a text file named `claim.sql`",
            ],
        }
    }
}

/// The bundled exercise's reference text of its `claim` procedure.
pub fn reference_claim() -> String {
    let exercises = fencelab_core::bundled::exercises().expect("the bundled exercises load");
    let exercise = exercises
        .iter()
        .find(|e| e.id == EXERCISE)
        .expect("the bundled exercise");
    exercise
        .procedures
        .iter()
        .find(|p| p.name == "claim")
        .expect("its claim procedure")
        .reference
        .clone()
}

/// Asserts that `message` says everything `submission` calls for.
pub fn assert_says(submission: Submission, message: &str) {
    for fragment in submission.says() {
        assert!(
            message.contains(fragment),
            "{submission:?}: `{fragment}` is not in: {message}"
        );
    }
}

/// A JUnit report read by Python's ElementTree (tests/data/read_junit.py),
/// as a CI's JUnit reader parses it: the suites' and cases' fields as JSON.
pub fn read_junit(xml: &[u8]) -> Value {
    use std::io::Write;
    use std::process::Stdio;
    let mut python = Command::new("python3")
        .arg(data("read_junit.py"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("python3 runs");
    python
        .stdin
        .take()
        .expect("python3's input")
        .write_all(xml)
        .expect("the report is written to python3");
    let read = python.wait_with_output().expect("python3 ends");
    assert!(read.status.success(), "python3 cannot read: {}", text(xml));
    serde_json::from_slice(&read.stdout).expect("read_junit.py prints JSON")
}

/// The text a Markdown renderer shows for `markdown` (Gradescope renders a
/// test's output so with `"output_format": "md"`): text and code as
/// written, a line break after each block and break.
pub fn markdown_text(markdown: &str) -> String {
    use pulldown_cmark::{Event, Parser};
    let mut shown = String::new();
    for event in Parser::new(markdown) {
        match event {
            Event::Text(t) | Event::Code(t) => shown.push_str(&t),
            Event::SoftBreak | Event::HardBreak | Event::End(_) => shown.push('\n'),
            _ => {}
        }
    }
    shown
}
