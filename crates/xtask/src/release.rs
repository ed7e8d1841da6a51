//! The release a grader installs instead of compiling: `fencelab` and
//! `mdbook-fencelab` built for Linux x86_64 against musl, SQLite inside,
//! statically linked, in one `.tar.gz` with its SHA-256 beside it.
//!
//! Building fencelab from source needs clang (rusqlite's `preupdate_hook`
//! runs bindgen over SQLite's header), which a stock CI image such as
//! `rust:1.95` lacks; the archive needs nothing but a Linux kernel.
//!
//! [`build`] makes the archive (`cargo xtask dist-static`); [`check`]
//! proves what the walkthroughs promise of it (`cargo xtask static-check`):
//! its sum verifies with coreutils' `sha256sum -c`, and its binaries, alone
//! in an empty root entered with `unshare --root` (a chroot) (no libraries, no
//! shell, no network), print byte for byte what the build the tests use
//! prints.

use crate::cmd;
use crate::sha256;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// The Rust target of the release: Linux x86_64, musl, linked statically.
pub const TARGET: &str = "x86_64-unknown-linux-musl";

/// The cargo profile of the release (the workspace's Cargo.toml).
const PROFILE: &str = "dist";

/// The binaries in the archive, with the packages that build them.
const BINARIES: [(&str, &str); 2] = [
    ("fencelab", "fencelab-cli"),
    ("mdbook-fencelab", "fencelab-mdbook"),
];

/// The archive's name without `.tar.gz`, and the one folder inside it:
/// `fencelab-VERSION-TARGET`, as Rust tools name their releases.
pub fn name() -> String {
    format!("fencelab-{}-{TARGET}", env!("CARGO_PKG_VERSION"))
}

/// Where [`build`] writes the archive unless told otherwise.
pub fn default_out(root: &Path) -> PathBuf {
    root.join("target/static-release")
}

/// The archive in `out`.
pub fn archive_in(out: &Path) -> PathBuf {
    out.join(format!("{}.tar.gz", name()))
}

/// What the archive says of itself, next to the binaries.
const README: &str = "\
fencelab, statically linked for Linux x86_64 (musl, SQLite inside).

  fencelab          the command line: check exercises, grade submissions
                    (fencelab run EXERCISE --set PROCEDURE=FILE --format ...)
  mdbook-fencelab   the mdBook preprocessor

Nothing else is needed: no libraries, no compiler, no network. Check the
archive against the .sha256 file published beside it before unpacking:

  sha256sum -c fencelab-*.tar.gz.sha256

Licensed MIT OR Apache-2.0. docs/GRADING.md in fencelab's repository
walks each grader (GitHub Actions, Gradescope, GitLab, Exercism).
";

/// Builds the binaries for [`TARGET`], checks that each is static, and
/// writes `NAME.tar.gz` and `NAME.tar.gz.sha256` into `out`. Returns the
/// archive's path.
pub fn build(root: &Path, out: &Path) -> Result<PathBuf, String> {
    let mut cargo = Command::new("cargo");
    cargo.args([
        "build",
        "--locked",
        "--profile",
        PROFILE,
        "--target",
        TARGET,
    ]);
    for (_, package) in BINARIES {
        cargo.args(["-p", package]);
    }
    cmd::status(&mut cargo)?;

    let built = target_dir(root).join(TARGET).join(PROFILE);
    let staging = out.join(".staging");
    let folder = staging.join(name());
    remove_if_there(&staging)?;
    make_dir(&folder)?;
    for (binary, _) in BINARIES {
        let from = built.join(binary);
        let bytes =
            std::fs::read(&from).map_err(|e| format!("cannot read {}: {e}", from.display()))?;
        if let Some(needs) = dynamic_needs(&bytes)? {
            return Err(format!("{} is not static: {needs}", from.display()));
        }
        let to = folder.join(binary);
        std::fs::copy(&from, &to).map_err(|e| format!("cannot copy {}: {e}", from.display()))?;
    }
    write(&folder.join("README.txt"), README.as_bytes())?;

    let archive = archive_in(out);
    pack(root, &staging, &archive)?;
    remove_if_there(&staging)?;
    let bytes =
        std::fs::read(&archive).map_err(|e| format!("cannot read {}: {e}", archive.display()))?;
    let file_name = format!("{}.tar.gz", name());
    let sum = format!("{}  {file_name}\n", sha256::hex(&bytes));
    write(&out.join(format!("{file_name}.sha256")), sum.as_bytes())?;
    println!(
        "xtask: {} ({} bytes), sha256 {}",
        archive.display(),
        bytes.len(),
        sum.split_whitespace().next().unwrap_or_default()
    );
    Ok(archive)
}

/// `staging`'s one folder packed into `archive` as a gzipped tar that is
/// the same bytes for the same binaries: names sorted, owner root, every
/// time the last commit's, gzip without a name or time of its own.
fn pack(root: &Path, staging: &Path, archive: &Path) -> Result<(), String> {
    let epoch = cmd::first_line(
        "git",
        &[
            "-C",
            &root.display().to_string(),
            "log",
            "-1",
            "--format=%ct",
        ],
    )
    .unwrap_or_else(|| "0".into());
    cmd::status(
        Command::new("tar")
            .args([
                "--sort=name",
                "--owner=0",
                "--group=0",
                "--numeric-owner",
                "--mode=go-w",
                &format!("--mtime=@{epoch}"),
                "--use-compress-program=gzip -9 -n",
                "-cf",
            ])
            .arg(archive)
            .arg("-C")
            .arg(staging)
            .arg(name()),
    )
}

/// Why an ELF file would need a dynamic loader (an interpreter, or
/// libraries it names), or `None` when it needs neither: a static or
/// static-pie executable, which is what musl's target links.
pub fn dynamic_needs(bytes: &[u8]) -> Result<Option<String>, String> {
    const PT_DYNAMIC: u32 = 2;
    const PT_INTERP: u32 = 3;
    const DT_NULL: u64 = 0;
    const DT_NEEDED: u64 = 1;
    let not_elf = || "not a 64-bit little-endian ELF file".to_string();
    if bytes.get(..6) != Some(&[0x7f, b'E', b'L', b'F', 2, 1][..]) {
        return Err(not_elf());
    }
    let u16_at = |at: usize| {
        bytes
            .get(at..at + 2)
            .map(|b| u16::from_le_bytes([b[0], b[1]]))
    };
    let u32_at = |at: usize| {
        bytes
            .get(at..at + 4)
            .and_then(|b| b.try_into().ok())
            .map(u32::from_le_bytes)
    };
    let u64_at = |at: usize| {
        bytes
            .get(at..at + 8)
            .and_then(|b| b.try_into().ok())
            .map(u64::from_le_bytes)
    };
    let index = |value: u64| usize::try_from(value).map_err(|_| not_elf());
    let program_headers = index(u64_at(0x20).ok_or_else(not_elf)?)?;
    let entry_size = usize::from(u16_at(0x36).ok_or_else(not_elf)?);
    let count = usize::from(u16_at(0x38).ok_or_else(not_elf)?);
    let mut needed = 0;
    for header in (0..count).map(|i| program_headers + i * entry_size) {
        match u32_at(header).ok_or_else(not_elf)? {
            PT_INTERP => return Ok(Some("it names a program interpreter (PT_INTERP)".into())),
            PT_DYNAMIC => {
                let offset = index(u64_at(header + 0x08).ok_or_else(not_elf)?)?;
                let size = index(u64_at(header + 0x20).ok_or_else(not_elf)?)?;
                for entry in (offset..offset + size).step_by(16) {
                    match u64_at(entry).ok_or_else(not_elf)? {
                        DT_NULL => break,
                        DT_NEEDED => needed += 1,
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }
    Ok((needed > 0).then(|| format!("it needs {needed} shared libraries (DT_NEEDED)")))
}

/// The commands run both ways, as `(program, arguments)`: each bundled
/// exercise checked, a folder of exercise files checked, a naive claim
/// graded in two formats, and the preprocessor's handshake with mdBook and
/// its answer to a command line it does not take.
const COMPARED: [(&str, &[&str]); 7] = [
    ("fencelab", &["version"]),
    ("fencelab", &["check", "--json"]),
    ("fencelab", &["check", "exercises", "--json"]),
    (
        "fencelab",
        &[
            "run",
            "claim-compare-and-set",
            "--set",
            "claim=claim.sql",
            "--json",
        ],
    ),
    (
        "fencelab",
        &[
            "run",
            "claim-compare-and-set",
            "--set",
            "claim=claim.sql",
            "--format",
            "exercism",
        ],
    ),
    ("mdbook-fencelab", &["supports", "html"]),
    ("mdbook-fencelab", &["build"]),
];

/// Checks the archive at `archive` (see the module's documentation)
/// against the binaries in `dynamic`, the folder of a native build: for
/// each command, the same standard output, standard error and exit code.
pub fn check(root: &Path, archive: &Path, dynamic: &Path) -> Result<(), String> {
    verify_sum(archive)?;
    let scratch = target_dir(root).join("xtask-static-root");
    remove_if_there(&scratch)?;
    let unpacked = scratch.join("unpacked");
    make_dir(&unpacked)?;
    cmd::status(
        Command::new("tar")
            .arg("-xzf")
            .arg(archive)
            .arg("-C")
            .arg(&unpacked),
    )?;
    let empty_root = scratch.join("root");
    lay_out_root(root, &unpacked.join(name()), &empty_root)?;
    println!(
        "xtask: the empty root holds only: {}",
        files_under(&empty_root, &empty_root)?.join(", ")
    );

    dynamic_is_refused(&empty_root, dynamic)?;
    let mut differ = Vec::new();
    for (program, args) in COMPARED {
        differ.extend(compared(&empty_root, dynamic, program, args)?);
    }
    remove_if_there(&scratch)?;
    if differ.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "the static build differs:\n  {}",
            differ.join("\n  ")
        ))
    }
}

/// Fails unless the empty root can fail: the dynamic build cannot even
/// start there, having no loader and no libc to load.
fn dynamic_is_refused(empty_root: &Path, dynamic: &Path) -> Result<(), String> {
    let foreign = empty_root.join("dynamic-fencelab");
    std::fs::copy(dynamic.join("fencelab"), &foreign)
        .map_err(|e| format!("cannot copy the dynamic build: {e}"))?;
    let refused = in_empty_root(empty_root, "dynamic-fencelab", &["version"])?;
    std::fs::remove_file(&foreign)
        .map_err(|e| format!("cannot remove {}: {e}", foreign.display()))?;
    let why = String::from_utf8_lossy(&refused.stderr);
    if refused.status.success() || !why.contains("/dynamic-fencelab") {
        return Err(format!(
            "the dynamic build was not refused for want of its loader in the empty root \
             ({}): {why}",
            refused.status
        ));
    }
    println!(
        "xtask: the dynamic build cannot start there: {}",
        why.trim()
    );
    Ok(())
}

/// Runs `program` with `args` in the empty root and as the dynamic build
/// in `dynamic`, and says how they differ, if they do (standard output,
/// standard error or exit code), or that the program did not start.
fn compared(
    empty_root: &Path,
    dynamic: &Path,
    program: &str,
    args: &[&str],
) -> Result<Option<String>, String> {
    let inside = in_empty_root(empty_root, program, args)?;
    let outside = Command::new(dynamic.join(program))
        .args(args)
        .current_dir(empty_root)
        .env_remove("GITHUB_STEP_SUMMARY")
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run the dynamic {program}: {e}"))?;
    let shown = format!("{program} {}", args.join(" "));
    let same = inside.stdout == outside.stdout
        && inside.stderr == outside.stderr
        && inside.status.code() == outside.status.code();
    println!(
        "xtask: {shown}: {} bytes, exit {:?}, {}",
        inside.stdout.len(),
        inside.status.code(),
        if same {
            "the same as the dynamic build"
        } else {
            "DIFFERENT"
        }
    );
    // 126 and 127 are unshare's own: the program did not start.
    Ok(
        (matches!(inside.status.code(), Some(126 | 127)) || !same).then(|| {
            format!(
                "`{shown}`: in the empty root {} bytes, exit {:?} ({}); dynamic {} bytes, exit {:?}",
                inside.stdout.len(),
                inside.status.code(),
                String::from_utf8_lossy(&inside.stderr).trim(),
                outside.stdout.len(),
                outside.status.code()
            )
        }),
    )
}

/// Runs the CLI's walkthrough tests (`crates/cli/tests/walkthrough*.rs`:
/// each grader's own files run as written) with `FENCELAB_TARBALL` naming
/// `archive`, so they install the static release instead of the binary
/// under test packed alike (crates/cli/tests/common). The test binaries
/// are the ones `cargo test --workspace --all-targets` builds: cargo names
/// them (`--no-run --message-format=json`, fresh when that build is, under
/// the same environment), and each runs from the CLI's folder, as cargo
/// runs it.
pub fn walkthroughs(root: &Path, archive: &Path) -> Result<(), String> {
    let listed = Command::new("cargo")
        .args([
            "test",
            "--locked",
            "--workspace",
            "--all-targets",
            "--no-run",
        ])
        .arg("--message-format=json")
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if !listed.status.success() {
        return Err(format!("`cargo test --no-run` failed ({})", listed.status));
    }
    let binaries = walkthrough_binaries(&String::from_utf8_lossy(&listed.stdout));
    if binaries.is_empty() {
        return Err("cargo built no test named walkthrough* in fencelab-cli".into());
    }
    let mut failed = Vec::new();
    for (name, binary) in binaries {
        println!("xtask: {name}, installing {}", archive.display());
        let ran = cmd::status(
            Command::new(&binary)
                .env("FENCELAB_TARBALL", archive)
                .current_dir(root.join("crates/cli")),
        );
        if let Err(message) = ran {
            failed.push(message);
        }
    }
    if failed.is_empty() {
        Ok(())
    } else {
        Err(failed.join("; "))
    }
}

/// The `(target name, executable)` of each fencelab-cli test target named
/// `walkthrough*` in cargo's JSON messages, one object a line.
fn walkthrough_binaries(messages: &str) -> Vec<(String, PathBuf)> {
    let field = |line: &str, key: &str| -> Option<String> {
        let start = line.find(&format!("\"{key}\":\""))? + key.len() + 4;
        let end = start + line[start..].find('"')?;
        Some(line[start..end].to_string())
    };
    let mut found: Vec<(String, PathBuf)> = messages
        .lines()
        .filter(|line| line.contains("\"reason\":\"compiler-artifact\""))
        .filter(|line| line.contains("\"kind\":[\"test\"]"))
        .filter(|line| line.contains("/crates/cli/tests/walkthrough"))
        .filter_map(|line| {
            let name = field(line, "name")?;
            let executable = field(line, "executable")?;
            name.starts_with("walkthrough")
                .then(|| (name, PathBuf::from(executable)))
        })
        .collect();
    found.sort();
    found
}

/// `sha256sum -c` on the archive's `.sha256`, in the archive's folder, as
/// the walkthroughs tell a grader to run it.
fn verify_sum(archive: &Path) -> Result<(), String> {
    let folder = archive.parent().unwrap_or(Path::new("."));
    let sums = format!(
        "{}.sha256",
        archive.file_name().unwrap_or_default().to_string_lossy()
    );
    cmd::status(
        Command::new("sha256sum")
            .args(["--check", "--strict", &sums])
            .current_dir(folder),
    )
}

/// The root the static binaries run in: the two binaries, the bundled
/// exercise files in `exercises/`, and a naive claim as `claim.sql`.
fn lay_out_root(root: &Path, unpacked: &Path, empty_root: &Path) -> Result<(), String> {
    make_dir(&empty_root.join("exercises"))?;
    for (binary, _) in BINARIES {
        let from = unpacked.join(binary);
        std::fs::copy(&from, empty_root.join(binary))
            .map_err(|e| format!("the archive has no {binary}: {e}"))?;
    }
    let exercises = root.join("crates/model/exercises");
    let entries = std::fs::read_dir(&exercises)
        .map_err(|e| format!("cannot read {}: {e}", exercises.display()))?;
    for entry in entries.filter_map(|entry| entry.ok()) {
        let path = entry.path();
        if path.extension().is_some_and(|ext| ext == "toml") {
            std::fs::copy(&path, empty_root.join("exercises").join(entry.file_name()))
                .map_err(|e| format!("cannot copy {}: {e}", path.display()))?;
        }
    }
    let claim = root.join("crates/cli/tests/data/naive-claim.sql");
    std::fs::copy(&claim, empty_root.join("claim.sql"))
        .map_err(|e| format!("cannot copy {}: {e}", claim.display()))?;
    Ok(())
}

/// `program` run from the root's top in new namespaces (no network but a
/// loopback that is down, its own mounts, processes, IPC and host name),
/// with `empty_root` as its root directory (`unshare --root`, a chroot)
/// and no environment at all.
fn in_empty_root(empty_root: &Path, program: &str, args: &[&str]) -> Result<Output, String> {
    let mut root = std::ffi::OsString::from("--root=");
    root.push(empty_root);
    Command::new("unshare")
        .args(["--net", "--ipc", "--uts", "--pid", "--fork", "--mount"])
        .arg(root)
        .arg(format!("/{program}"))
        .args(args)
        .env_clear()
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run unshare (it needs root): {e}"))
}

/// Every file under `dir`, named from `base`, sorted.
fn files_under(dir: &Path, base: &Path) -> Result<Vec<String>, String> {
    let mut found = Vec::new();
    let entries =
        std::fs::read_dir(dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
    for entry in entries.filter_map(|entry| entry.ok()) {
        let path = entry.path();
        if path.is_dir() {
            found.extend(files_under(&path, base)?);
        } else {
            let shown = path.strip_prefix(base).unwrap_or(&path);
            found.push(shown.display().to_string());
        }
    }
    found.sort();
    Ok(found)
}

fn target_dir(root: &Path) -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root.join("target"), PathBuf::from)
}

fn remove_if_there(dir: &Path) -> Result<(), String> {
    match std::fs::remove_dir_all(dir) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            Err(format!("cannot remove {}: {e}", dir.display()))
        }
        _ => Ok(()),
    }
}

fn make_dir(dir: &Path) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))
}

fn write(path: &Path, bytes: &[u8]) -> Result<(), String> {
    std::fs::write(path, bytes).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The smallest ELF header with `headers` as its program headers.
    fn elf(headers: &[(u32, u64, u64)], dynamic: &[(u64, u64)]) -> Vec<u8> {
        let mut bytes = vec![0x7f, b'E', b'L', b'F', 2, 1, 1];
        bytes.resize(0x40, 0);
        bytes[0x20..0x28].copy_from_slice(&0x40u64.to_le_bytes());
        bytes[0x36..0x38].copy_from_slice(&56u16.to_le_bytes());
        bytes[0x38..0x3a].copy_from_slice(&(headers.len() as u16).to_le_bytes());
        for (kind, offset, size) in headers {
            let mut header = vec![0u8; 56];
            header[..4].copy_from_slice(&kind.to_le_bytes());
            header[0x08..0x10].copy_from_slice(&offset.to_le_bytes());
            header[0x20..0x28].copy_from_slice(&size.to_le_bytes());
            bytes.extend(header);
        }
        for (tag, value) in dynamic {
            bytes.extend(tag.to_le_bytes());
            bytes.extend(value.to_le_bytes());
        }
        bytes
    }

    #[test]
    fn an_interpreter_or_a_needed_library_is_dynamic_and_neither_is_static() {
        let dynamic_at = 0x40 + 56;
        let static_pie = elf(&[(2, dynamic_at, 32)], &[(12, 0x1000), (0, 0)]);
        assert_eq!(dynamic_needs(&static_pie), Ok(None));
        let needs_libc = elf(&[(2, dynamic_at, 48)], &[(12, 0x1000), (1, 7), (0, 0)]);
        assert!(
            dynamic_needs(&needs_libc)
                .unwrap()
                .unwrap()
                .contains("1 shared")
        );
        let interpreted = elf(&[(1, 0, 0), (3, 0, 0)], &[]);
        assert!(
            dynamic_needs(&interpreted)
                .unwrap()
                .unwrap()
                .contains("PT_INTERP")
        );
        assert!(dynamic_needs(b"#!/bin/sh\n").is_err());
        let cut = &needs_libc[..needs_libc.len() - 20];
        assert!(dynamic_needs(cut).is_err());
    }

    #[test]
    fn the_walkthrough_tests_are_found_in_cargos_messages_and_nothing_else() {
        let line = |name: &str, kind: &str, src: &str, exe: &str| {
            format!(
                r#"{{"reason":"compiler-artifact","package_id":"path+file:///w/crates/cli#fencelab-cli@0.1.0","target":{{"kind":["{kind}"],"crate_types":["bin"],"name":"{name}","src_path":"/w/crates/cli/tests/{src}","edition":"2024","doc":false,"doctest":false,"test":true}},"profile":{{}},"features":[],"filenames":["{exe}"],"executable":"{exe}","fresh":true}}"#
            )
        };
        let messages = [
            line(
                "walkthrough_ci",
                "test",
                "walkthrough_ci.rs",
                "/t/walkthrough_ci-1",
            ),
            line("grading", "test", "grading.rs", "/t/grading-2"),
            line(
                "walkthroughs_exercism",
                "test",
                "walkthroughs_exercism.rs",
                "/t/we-3",
            ),
            line(
                "walkthrough_bench",
                "bench",
                "walkthrough_bench.rs",
                "/t/wb-4",
            ),
            r#"{"reason":"build-finished","success":true}"#.to_string(),
        ]
        .join("\n");
        assert_eq!(
            walkthrough_binaries(&messages),
            [
                (
                    "walkthrough_ci".to_string(),
                    PathBuf::from("/t/walkthrough_ci-1")
                ),
                (
                    "walkthroughs_exercism".to_string(),
                    PathBuf::from("/t/we-3")
                ),
            ]
        );
    }

    #[test]
    fn this_test_binary_linked_against_glibc_is_found_dynamic() {
        let me = std::fs::read(std::env::current_exe().unwrap()).unwrap();
        let needs = dynamic_needs(&me)
            .unwrap()
            .expect("a glibc build is dynamic");
        assert!(needs.contains("PT_INTERP"), "{needs}");
    }
}
