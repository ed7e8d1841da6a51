//! The throwaway PostgreSQL server of `cargo xtask test`.
//!
//! Before the stages run, [`for_tests`] starts a cluster of the run's own
//! in target/postgres/PID: Debian's server binaries (the newest version in
//! /usr/lib/postgresql), trust authentication, a Unix socket in the
//! cluster's folder and no TCP port, fsync off. Every stage gets its
//! address as [`URL_ENV`] (libpq's `key=value` form) and [`REQUIRE_ENV`]
//! set to 1, so a test that needs a server fails rather than skips when
//! the run promised one. The [`Cluster`] stops the server (`pg_ctl -m
//! immediate stop`) and removes its folder when dropped: when the stages
//! end, and on an error or a panic as well; a watchdog process does the
//! same if xtask dies without unwinding (Ctrl-C, a kill), since pg_ctl
//! starts the server in a session of its own, out of the terminal's reach.
//!
//! initdb and pg_ctl refuse to run as root: as root they run as the
//! `postgres` user (runuser), which then owns the cluster's folder.

use crate::cmd;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Instant;

/// The server's address for the stages, in libpq's key-value form
/// (`host=DIR user=fencelab dbname=postgres`).
pub const URL_ENV: &str = "FENCELAB_POSTGRES";
/// Set to 1 beside [`URL_ENV`]: a test that needs a server must fail, not
/// skip, when it cannot reach this one.
pub const REQUIRE_ENV: &str = "FENCELAB_REQUIRE_POSTGRES";
/// Where Debian installs each PostgreSQL version, as `VERSION/bin`.
const DEBIAN_SERVERS: &str = "/usr/lib/postgresql";
/// The programs a cluster needs from the server's folder.
const PROGRAMS: [&str; 4] = ["postgres", "initdb", "pg_ctl", "psql"];
/// The superuser initdb makes, whom the stages connect as.
const SUPERUSER: &str = "fencelab";
/// The operating system user the server runs as when xtask is root.
const SYSTEM_USER: &str = "postgres";
/// What installs the server on Debian (`tools::ensure` runs it as root).
const INSTALL: &str = "apt-get update && apt-get install -y --no-install-recommends postgresql";
/// A Unix socket's path must fit in `sun_path` (108 bytes on Linux, with
/// its closing NUL).
const SOCKET_PATH_MAX: usize = 107;
/// The socket file's name in its folder, for the server's default port.
const SOCKET_NAME: &str = ".s.PGSQL.5432";

/// The folder of the newest server this machine has: Debian's
/// `/usr/lib/postgresql/VERSION/bin`, else what `pg_config --bindir`
/// names (another system's package), if it holds [`PROGRAMS`].
pub fn server_bin() -> Option<PathBuf> {
    newest_server_in(Path::new(DEBIAN_SERVERS)).or_else(|| {
        let bin = PathBuf::from(cmd::first_line("pg_config", &["--bindir"])?);
        has_programs(&bin).then_some(bin)
    })
}

/// `dir/VERSION/bin` with the highest VERSION (`9.6` < `15`) among those
/// that hold [`PROGRAMS`].
fn newest_server_in(dir: &Path) -> Option<PathBuf> {
    std::fs::read_dir(dir)
        .ok()?
        .filter_map(Result::ok)
        .filter_map(|entry| {
            let name = entry.file_name().to_str()?.to_string();
            let version: Vec<u32> = name
                .split('.')
                .map(str::parse)
                .collect::<Result<_, _>>()
                .ok()?;
            Some((version, entry.path().join("bin")))
        })
        .filter(|(_, bin)| has_programs(bin))
        .max_by(|a, b| a.0.cmp(&b.0))
        .map(|(_, bin)| bin)
}

fn has_programs(bin: &Path) -> bool {
    PROGRAMS.iter().all(|program| bin.join(program).is_file())
}

/// Whether this run may install Debian's server: it is root and has apt-get.
pub fn can_install() -> bool {
    cmd::is_root() && cmd::first_line("apt-get", &["--version"]).is_some()
}

/// The throwaway server of a test run, or why there is none.
pub enum Server {
    Running(Cluster),
    /// No server on this machine and none installable: the stages that
    /// need one are skipped, for this reason.
    Missing(String),
    /// A server is installed but the cluster did not start: the stages
    /// that need one fail, with this error.
    Broken(String),
}

impl Server {
    /// Gives `command` the server's address, if it runs.
    pub fn export(&self, command: &mut Command) {
        if let Server::Running(cluster) = self {
            command
                .env(URL_ENV, cluster.conninfo())
                .env(REQUIRE_ENV, "1");
        }
    }
}

/// Starts the run's cluster, announcing it in one line (or why there is
/// none).
pub fn for_tests(root: &Path) -> Server {
    let Some(bin) = server_bin() else {
        let reason = missing_reason();
        if can_install() {
            // tools::ensure installed it, or the run would have stopped.
            eprintln!("xtask: the PostgreSQL stages fail: {reason}");
            return Server::Broken(reason);
        }
        println!("xtask: the PostgreSQL stages will be skipped: {reason}");
        return Server::Missing(reason);
    };
    let name = std::process::id().to_string();
    let started = cluster_dir(root, &name).and_then(|dir| Cluster::start(&bin, &dir));
    match started {
        Ok(cluster) => Server::Running(cluster),
        Err(error) => {
            eprintln!("xtask: the PostgreSQL server did not start, so its stages fail");
            Server::Broken(error)
        }
    }
}

/// Why no server runs, for a machine without one.
fn missing_reason() -> String {
    let nowhere = format!(
        "no PostgreSQL server in {DEBIAN_SERVERS}/VERSION/bin (nor where `pg_config --bindir` says)"
    );
    if !cmd::is_root() {
        format!(
            "{nowhere}, and this run is not root, so it cannot install Debian's postgresql \
             (as root: `{INSTALL}`, then run this again)"
        )
    } else if cmd::first_line("apt-get", &["--version"]).is_none() {
        format!("{nowhere}, and this machine has no apt-get to install Debian's postgresql with")
    } else {
        format!("{nowhere}, although Debian's postgresql was installed (`{INSTALL}`)")
    }
}

/// The folder for the cluster `name`: target/postgres/NAME, or a folder in
/// the system's temporary folder where the server could not use that one
/// (a parent the `postgres` user cannot enter, as a root's home is, or a
/// socket path too long), saying why.
fn cluster_dir(root: &Path, name: &str) -> Result<PathBuf, String> {
    let in_target = cmd::target_dir(root).join("postgres").join(name);
    let Err(why) = usable(&in_target) else {
        return Ok(in_target);
    };
    let in_temp = std::env::temp_dir().join(format!("fencelab-postgres-{name}"));
    usable(&in_temp).map_err(|also| format!("{why}; {also}"))?;
    println!(
        "xtask: the PostgreSQL cluster lives in {}: {why}",
        in_temp.display()
    );
    Ok(in_temp)
}

/// Whether the server could use `dir` (which need not exist yet): its
/// socket's path fits, and as root every existing parent lets others in
/// (the server runs as `postgres`).
fn usable(dir: &Path) -> Result<(), String> {
    let socket = dir.join(SOCKET_NAME);
    if socket.as_os_str().len() > SOCKET_PATH_MAX {
        return Err(format!(
            "the socket's path {} is over {SOCKET_PATH_MAX} bytes",
            socket.display()
        ));
    }
    if !cmd::is_root() {
        return Ok(());
    }
    for parent in dir.ancestors().skip(1) {
        let Ok(metadata) = std::fs::metadata(parent) else {
            continue;
        };
        if metadata.permissions().mode() & 0o001 == 0 {
            return Err(format!(
                "the `{SYSTEM_USER}` user cannot enter {} (no o+x)",
                parent.display()
            ));
        }
    }
    Ok(())
}

/// A running throwaway cluster. Dropping it stops the server and removes
/// its folder.
pub struct Cluster {
    dir: PathBuf,
    bin: PathBuf,
    /// initdb and pg_ctl run as the `postgres` user (xtask is root).
    as_system_user: bool,
    /// Stops the server if xtask dies without dropping this.
    watchdog: Option<Child>,
    /// Whether `pg_ctl start` was run, so that there is a server to stop.
    started: bool,
}

impl Cluster {
    /// initdb into `dir/data` and the server started with its socket in
    /// `dir`; `dir` is made anew. Prints one line with the version and
    /// the time taken.
    pub fn start(bin: &Path, dir: &Path) -> Result<Cluster, String> {
        let began = Instant::now();
        let mut cluster = Cluster {
            dir: dir.to_path_buf(),
            bin: bin.to_path_buf(),
            as_system_user: cmd::is_root(),
            watchdog: None,
            started: false,
        };
        // From here on, an error drops `cluster`, which cleans up.
        cluster.make_dir()?;
        let data = cluster.data();
        let mut initdb = cluster.program("initdb");
        initdb
            .arg("-D")
            .arg(&data)
            .args(["-A", "trust", "-U", SUPERUSER, "--no-sync"])
            .args(["-E", "UTF8", "--locale=C"]);
        quiet(&mut initdb)?;
        let initialised = began.elapsed();
        cluster.watchdog = Some(cluster.watchdog()?);
        cluster.started = true;
        let mut pg_ctl = cluster.program("pg_ctl");
        pg_ctl
            .arg("-D")
            .arg(&data)
            .arg("-o")
            .arg(cluster.server_options())
            .arg("-l")
            .arg(cluster.log())
            .args(["-w", "start"]);
        quiet(&mut pg_ctl).map_err(|error| format!("{error}\n{}", cluster.log_tail()))?;
        let version = cmd::first_line(&bin.join("postgres").to_string_lossy(), &["--version"])
            .map_or_else(|| "PostgreSQL".into(), |line| short_version(&line));
        println!(
            "xtask: {version} started in {:.1} s (initdb {:.1} s): socket {}, no TCP port; \
             the stages get {URL_ENV}=\"{}\"",
            began.elapsed().as_secs_f64(),
            initialised.as_secs_f64(),
            cluster.socket().display(),
            cluster.conninfo()
        );
        Ok(cluster)
    }

    /// The connection string: libpq's key-value form, which psql and the
    /// `postgres` crate read.
    pub fn conninfo(&self) -> String {
        format!(
            "host={} user={SUPERUSER} dbname=postgres",
            conninfo_value(&self.dir.to_string_lossy())
        )
    }

    /// The server's socket file.
    pub fn socket(&self) -> PathBuf {
        self.dir.join(SOCKET_NAME)
    }

    fn data(&self) -> PathBuf {
        self.dir.join("data")
    }

    fn log(&self) -> PathBuf {
        self.dir.join("log")
    }

    /// The server's own settings, as `pg_ctl -o` passes them through a
    /// shell: the socket in the cluster's folder and no TCP address; and
    /// what makes a throwaway server fast (no fsync, no waiting on commit,
    /// no full pages in the WAL).
    fn server_options(&self) -> String {
        format!(
            "-k {} -c listen_addresses='' -c max_connections=100 -c fsync=off \
             -c synchronous_commit=off -c full_page_writes=off",
            shell_quoted(&self.dir.to_string_lossy())
        )
    }

    /// The folder made anew, owned by the user the server runs as.
    fn make_dir(&self) -> Result<(), String> {
        if self.dir.exists() {
            std::fs::remove_dir_all(&self.dir)
                .map_err(|e| format!("cannot remove {}: {e}", self.dir.display()))?;
        }
        std::fs::create_dir_all(&self.dir)
            .map_err(|e| format!("cannot create {}: {e}", self.dir.display()))?;
        if self.as_system_user {
            quiet(Command::new("chown").arg(SYSTEM_USER).arg(&self.dir))?;
        }
        Ok(())
    }

    /// The server's program `name`, as the `postgres` user when xtask is
    /// root, run in the cluster's folder (a root's working folder may be
    /// closed to `postgres`).
    fn program(&self, name: &str) -> Command {
        let program = self.bin.join(name);
        let mut command = if self.as_system_user {
            let mut command = Command::new("runuser");
            command.args(["-u", SYSTEM_USER, "--"]).arg(program);
            command
        } else {
            Command::new(program)
        };
        command.current_dir(&self.dir);
        command
    }

    fn stop_command(&self) -> Command {
        let mut command = self.program("pg_ctl");
        command
            .arg("-D")
            .arg(self.data())
            .args(["-m", "immediate", "stop"]);
        command
    }

    /// A shell that waits for xtask to end and then stops the server and
    /// removes the folder; it ignores Ctrl-C (SIGINT) and a closed
    /// terminal (SIGHUP), which end xtask. Dropping the cluster kills it.
    fn watchdog(&self) -> Result<Child, String> {
        let stop = self.stop_command();
        let stop: Vec<String> = std::iter::once(stop.get_program())
            .chain(stop.get_args())
            .map(|word| shell_quoted(&word.to_string_lossy()))
            .collect();
        let script = format!(
            "trap '' INT HUP; while kill -0 {xtask} 2>/dev/null; do sleep 1; done; \
             cd / && {stop} >/dev/null 2>&1; rm -rf {dir}",
            xtask = std::process::id(),
            stop = stop.join(" "),
            dir = shell_quoted(&self.dir.to_string_lossy()),
        );
        Command::new("sh")
            .args(["-c", &script])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start the server's watchdog (sh): {e}"))
    }

    /// The last lines of the server's log, for an error.
    fn log_tail(&self) -> String {
        let text = std::fs::read_to_string(self.log()).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        format!(
            "last lines of the server's log:\n{}",
            lines[lines.len().saturating_sub(20)..].join("\n")
        )
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let began = Instant::now();
        // pg_ctl writes postmaster.pid before the server can fail to start.
        let running = self.started && self.data().join("postmaster.pid").exists();
        let stopped = if running {
            quiet(&mut self.stop_command())
        } else {
            Ok(())
        };
        if let Some(mut watchdog) = self.watchdog.take() {
            // Ended already only if someone else killed it.
            let _ = watchdog.kill();
            let _ = watchdog.wait();
        }
        let removed = std::fs::remove_dir_all(&self.dir);
        match (stopped, removed) {
            (Ok(()), Ok(())) if running => println!(
                "xtask: PostgreSQL stopped (pg_ctl -m immediate) and {} removed in {:.1} s",
                self.dir.display(),
                began.elapsed().as_secs_f64()
            ),
            (Ok(()), Ok(())) => {}
            (Err(error), _) => eprintln!("xtask: the PostgreSQL server did not stop: {error}"),
            (Ok(()), Err(error)) => eprintln!(
                "xtask: PostgreSQL stopped, but {} was not removed: {error}",
                self.dir.display()
            ),
        }
    }
}

/// Runs `command` with its output kept, shown only in the error if it fails.
fn quiet(command: &mut Command) -> Result<(), String> {
    let shown = cmd::describe(command);
    let output = command
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run `{shown}`: {e}"))?;
    if output.status.success() {
        return Ok(());
    }
    Err(format!(
        "`{shown}` failed ({}):\n{}{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    ))
}

/// `PostgreSQL 15.18` from `postgres (PostgreSQL) 15.18 (Debian ...)`.
fn short_version(line: &str) -> String {
    line.split_once("(PostgreSQL) ")
        .and_then(|(_, rest)| rest.split_whitespace().next())
        .map_or_else(|| line.to_string(), |number| format!("PostgreSQL {number}"))
}

/// A value in a libpq connection string: as it is when it is plain, else
/// in single quotes with `'` and `\` escaped.
fn conninfo_value(value: &str) -> String {
    let plain = !value.is_empty()
        && !value
            .chars()
            .any(|c| c.is_whitespace() || c == '\'' || c == '\\');
    if plain {
        return value.to_string();
    }
    let escaped = value.replace('\\', "\\\\").replace('\'', "\\'");
    format!("'{escaped}'")
}

/// `word` quoted for sh: in single quotes, each `'` written as `'\''`.
fn shell_quoted(word: &str) -> String {
    format!("'{}'", word.replace('\'', "'\\''"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_newest_server_with_every_program_is_chosen() {
        let dir = crate::workspace_root()
            .join("target/xtask-tests")
            .join(format!("servers-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        for (version, programs) in [
            ("9.6", &PROGRAMS[..]),
            ("15", &PROGRAMS[..]),
            ("16", &PROGRAMS[..2]),
            ("main", &PROGRAMS[..]),
        ] {
            let bin = dir.join(version).join("bin");
            std::fs::create_dir_all(&bin).unwrap();
            for program in programs {
                std::fs::write(bin.join(program), "").unwrap();
            }
        }
        assert_eq!(newest_server_in(&dir), Some(dir.join("15/bin")));
        assert_eq!(newest_server_in(&dir.join("none")), None);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_folder_with_a_space_or_a_quote_is_quoted_for_libpq_and_sh() {
        assert_eq!(conninfo_value("/t/pg/1"), "/t/pg/1");
        assert_eq!(conninfo_value("/my dir/it's"), r"'/my dir/it\'s'");
        assert_eq!(conninfo_value(""), "''");
        assert_eq!(shell_quoted("it's"), r"'it'\''s'");
        assert_eq!(
            short_version("postgres (PostgreSQL) 15.18 (Debian 15.18-0+deb12u1)"),
            "PostgreSQL 15.18"
        );
    }

    #[test]
    fn a_socket_path_too_long_for_sun_path_is_refused() {
        let long = PathBuf::from("/").join("d".repeat(100));
        assert!(usable(&long).unwrap_err().contains("over 107 bytes"));
    }

    /// Whether process `pid` is alive (a zombie is not): Linux's /proc.
    fn alive(pid: &str) -> bool {
        std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
            let state = stat.rsplit_once(") ").map(|(_, rest)| rest.chars().next());
            !matches!(state, Some(Some('Z' | 'X')))
        })
    }

    /// psql's answer to `select version()` on `cluster`, or its error.
    fn version_of(bin: &Path, conninfo: &str) -> Result<String, String> {
        let output = Command::new(bin.join("psql"))
            .args([conninfo, "--no-psqlrc", "-At", "-c", "select version()"])
            .stdin(Stdio::null())
            .output()
            .map_err(|e| e.to_string())?;
        if output.status.success() {
            Ok(String::from_utf8_lossy(&output.stdout).trim().to_string())
        } else {
            Err(String::from_utf8_lossy(&output.stderr).trim().to_string())
        }
    }

    /// A cluster answers a real client; dropped, at the end or while a
    /// failure unwinds, its server is gone with its socket and folder.
    /// Without a server on the machine, the reason to skip is a sentence,
    /// and a run that promised a server fails here.
    #[test]
    fn a_cluster_answers_psql_and_is_gone_once_dropped_even_on_a_failure() {
        let Some(bin) = server_bin() else {
            assert!(
                std::env::var_os(REQUIRE_ENV).is_none(),
                "{REQUIRE_ENV} is set but this machine has no PostgreSQL server"
            );
            assert!(missing_reason().contains(DEBIAN_SERVERS));
            return;
        };
        let dir = cmd::target_dir(&crate::workspace_root())
            .join("postgres")
            .join(format!("test-{}", std::process::id()));
        let cluster = Cluster::start(&bin, &dir).unwrap();
        let answer = version_of(&bin, &cluster.conninfo()).unwrap();
        assert!(answer.starts_with("PostgreSQL "), "{answer}");
        let pid_file = std::fs::read_to_string(dir.join("data/postmaster.pid")).unwrap();
        let pid = pid_file.lines().next().unwrap().trim().to_string();
        assert!(alive(&pid) && cluster.socket().exists());
        let conninfo = cluster.conninfo();
        drop(cluster);
        assert!(!alive(&pid), "the server {pid} outlived its cluster");
        assert!(!dir.exists(), "{} is left behind", dir.display());
        assert!(version_of(&bin, &conninfo).is_err());

        // A stage that fails unwinds through the cluster: resume_unwind is a
        // panic without the panic hook's message.
        let unwound = std::panic::catch_unwind(|| {
            let cluster = Cluster::start(&bin, &dir).unwrap();
            let pid_file = std::fs::read_to_string(dir.join("data/postmaster.pid")).unwrap();
            let pid = pid_file.lines().next().unwrap().trim().to_string();
            if cluster.socket().exists() {
                std::panic::resume_unwind(Box::new(pid));
            }
        });
        let pid = unwound
            .expect_err("the cluster's socket exists")
            .downcast::<String>()
            .unwrap();
        assert!(!alive(&pid), "the server {pid} outlived a panic");
        assert!(!dir.exists(), "{} is left behind by a panic", dir.display());
    }
}
