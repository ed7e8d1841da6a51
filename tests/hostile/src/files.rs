//! The paths `file` cases hand the command line: a FIFO, a socket, a
//! device, each made in a folder of its own and removed after.

use crate::FileKind;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Calls `read` with a path of `kind` (a FIFO written with `input` by a
/// thread of its own, for `FifoWritten`).
pub fn with_path(
    kind: FileKind,
    input: &str,
    read: impl FnOnce(&Path) -> Result<String, String>,
) -> Result<String, String> {
    static MADE: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "fencelab-hostile-{}-{}",
        std::process::id(),
        MADE.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a scratch folder");
    let path = dir.join("exercise.toml");
    let result = match kind {
        FileKind::DevZero => read(Path::new("/dev/zero")),
        FileKind::Socket => {
            let _listener = std::os::unix::net::UnixListener::bind(&path)
                .expect("a socket in the scratch folder");
            read(&path)
        }
        FileKind::Fifo | FileKind::FifoWritten => {
            mkfifo(&path).expect("a FIFO in the scratch folder");
            if kind == FileKind::Fifo {
                read(&path)
            } else {
                let writer_path = path.clone();
                let text = input.to_string();
                // Opening a FIFO for writing waits for its reader: the
                // writer starts first and waits, as `cat x > fifo` would.
                let writer = std::thread::spawn(move || {
                    use std::io::Write;
                    if let Ok(mut fifo) = std::fs::OpenOptions::new().write(true).open(writer_path)
                    {
                        // The reader may stop at its cap and close: a
                        // broken pipe then ends the writing.
                        let _ = fifo.write_all(text.as_bytes());
                    }
                });
                let result = read(&path);
                let _ = writer.join();
                result
            }
        }
    };
    let _ = std::fs::remove_dir_all(&dir);
    result
}

/// Makes a FIFO at `path` with the system's own mkfifo(1) (the corpus keeps
/// no unsafe code of its own to call mkfifo(3)).
pub(crate) fn mkfifo(path: &Path) -> Result<(), String> {
    let made = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .map_err(|e| format!("cannot run mkfifo: {e}"))?;
    if made.success() {
        Ok(())
    } else {
        Err(format!("mkfifo could not make `{}`", path.display()))
    }
}
