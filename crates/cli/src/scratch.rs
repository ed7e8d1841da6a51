//! The temporary files and folders a command makes, and their removal on
//! every way it ends: returning, failing, panicking, its output closed, and
//! SIGTERM or SIGINT (a cancelled CI job, Ctrl-C).
//!
//! A scratch folder ([`folder`]) is made as mkdtemp(3) makes one: under a
//! name no one can guess, created by the call itself (it fails rather than
//! take a folder that is already there), readable and writable by its owner
//! only (0700). Another local user can then neither have made it first nor
//! put anything into it. A folder or file registered with
//! [`remove_on_signal`] is removed, before the process ends as the signal
//! asks, by a thread that waits for SIGTERM and SIGINT (signal-hook's, so
//! the signal handler itself does nothing but wake it); the registration
//! ends when its guard is dropped, after the command has removed the path
//! itself.
//!
//! Must never: reuse a folder or file that already existed, make one that
//! another user can enter or write, or remove a path that was not
//! registered by the command that made it.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, Once};

/// A scratch folder of this process: removed when dropped, or when a
/// signal ends the process first.
pub struct Folder {
    // Dropped in this order: the folder is removed, then its registration
    // for a signal ends.
    dir: tempfile::TempDir,
    _registered: Registered,
}

impl Folder {
    pub fn path(&self) -> &Path {
        self.dir.path()
    }
}

/// Makes a fresh private folder in the system's temporary folder
/// (`$TMPDIR`, else /tmp), named `prefix` and random characters.
pub fn folder(prefix: &str) -> Result<Folder, String> {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::Builder::new()
        .prefix(prefix)
        .permissions(std::fs::Permissions::from_mode(0o700))
        .tempdir()
        .map_err(|e| {
            format!(
                "cannot make a scratch folder in {}: {e}",
                crate::files::shown(&std::env::temp_dir())
            )
        })?;
    let registered = remove_on_signal(vec![dir.path().to_path_buf()]);
    Ok(Folder {
        dir,
        _registered: registered,
    })
}

/// Paths removed if SIGTERM or SIGINT ends the process while this lives.
#[must_use = "the paths stay registered only while the guard lives"]
pub struct Registered(u64);

impl Drop for Registered {
    fn drop(&mut self) {
        registry().remove(&self.0);
    }
}

/// Registers `paths` (folders, with everything in them, or files) to be
/// removed if SIGTERM or SIGINT ends the process before the guard is
/// dropped; the first registration starts the thread that waits for them.
pub fn remove_on_signal(paths: Vec<PathBuf>) -> Registered {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    static WAITING: Once = Once::new();
    WAITING.call_once(wait_for_signals);
    let id = NEXT.fetch_add(1, Ordering::Relaxed);
    registry().insert(id, paths);
    Registered(id)
}

/// Removes every registered path now, for a command that must end the
/// process without returning (its output was closed), where no guard will
/// be dropped; how many paths were registered.
pub fn remove_registered() -> usize {
    let paths: Vec<PathBuf> = registry().values().flatten().cloned().collect();
    for path in &paths {
        remove(path);
    }
    paths.len()
}

fn registry() -> MutexGuard<'static, BTreeMap<u64, Vec<PathBuf>>> {
    static REGISTRY: Mutex<BTreeMap<u64, Vec<PathBuf>>> = Mutex::new(BTreeMap::new());
    // A panic elsewhere while the lock was held leaves the map whole: every
    // change to it is one insert or one remove.
    REGISTRY
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Removes a registered path, whatever it now is. A folder is tried a few
/// times: a thread or a child process still at work in it may add a file
/// while it is being emptied.
fn remove(path: &Path) {
    const TRIES: usize = 10;
    for _ in 0..TRIES {
        let removed = match std::fs::symlink_metadata(path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return,
            Err(_) => return,
            Ok(metadata) if metadata.is_dir() => std::fs::remove_dir_all(path),
            Ok(_) => std::fs::remove_file(path),
        };
        if removed.is_ok() {
            return;
        }
    }
}

/// Starts the thread that, on SIGTERM or SIGINT, removes every registered
/// path, says so, and ends the process as the signal's default action
/// would (so a shell or CI sees a death by that signal: 143, 130).
fn wait_for_signals() {
    use signal_hook::consts::{SIGINT, SIGTERM};
    // Without the handler, the signal's default action still ends the
    // process; only the cleanup is lost, as it was before this module.
    let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGTERM, SIGINT]) else {
        return;
    };
    let started = std::thread::Builder::new()
        .name("fencelab-signals".into())
        .spawn(move || {
            if let Some(signal) = signals.forever().next() {
                let removed = remove_registered();
                let name = if signal == SIGTERM {
                    "SIGTERM"
                } else {
                    "SIGINT"
                };
                let _ = writeln!(
                    std::io::stderr(),
                    "fencelab: stopped by {name}{}",
                    if removed > 0 {
                        "; the temporary files it had made are removed"
                    } else {
                        ""
                    }
                );
                let _ = signal_hook::low_level::emulate_default_handler(signal);
                // Only if the default action could not be restored.
                std::process::exit(128 + signal);
            }
        });
    drop(started);
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn a_scratch_folder_is_new_private_and_removed_when_dropped() {
        let first = folder("fencelab-scratch-test-").unwrap();
        let second = folder("fencelab-scratch-test-").unwrap();
        assert_ne!(first.path(), second.path());
        let mode = std::fs::metadata(first.path())
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o700, "{mode:o}");
        let path = first.path().to_path_buf();
        std::fs::write(path.join("a"), "x").unwrap();
        drop(first);
        assert!(!path.exists());
    }

    #[test]
    fn a_registration_ends_with_its_guard() {
        let path = std::env::temp_dir().join("fencelab-scratch-never-made");
        let guard = remove_on_signal(vec![path.clone()]);
        assert!(registry().values().any(|paths| paths.contains(&path)));
        drop(guard);
        assert!(!registry().values().any(|paths| paths.contains(&path)));
    }
}
