//! Reading the files the command line is given, none of which is trusted:
//! exercise files, a directory's entries, `--set` procedure files, a site's
//! exercises for `index`. Every one is read by [`read_text`], which cannot
//! hang and cannot read without end.
//!
//! A path may name something that is not a file: a FIFO with no writer
//! blocks a plain `open()` for ever, a device such as `/dev/zero` never
//! ends, a socket cannot be opened at all. So the kind is checked before
//! anything is opened (a device or a socket is refused by name, without
//! being opened: opening some devices acts on them), the file is opened
//! with `O_NONBLOCK` (so a FIFO's open returns at once) and its kind checked
//! again on what was opened. A FIFO is then read as it arrives, with the
//! same size cap as a file, and ends when its writer closes it, or with an
//! error once nothing has arrived for [`PIPE_SILENCE_MS_MAX`] (a FIFO
//! nobody writes to ends there).
//!
//! Must never block without a bound, read past its cap, or print a path as
//! it is (paths are untrusted text too: `fencelab_model::text`).

// Unsafe: waiting for a FIFO's data with a bound takes poll(2), which std
// does not offer (one call, on a descriptor the file owns).
#![allow(unsafe_code)]

use fencelab_model::text::visible;
use std::fs::File;
use std::io::{ErrorKind, Read};
use std::path::Path;

/// How long a FIFO's writer may stay silent before the read gives up.
pub const PIPE_SILENCE_MS_MAX: i32 = 10_000;

/// A path as the command line shows it.
pub fn shown(path: &Path) -> String {
    visible(&path.display().to_string()).into_owned()
}

/// What kind of thing a path names, as a sentence's noun, when it is
/// neither a file nor a FIFO: what the command line refuses to read.
fn unreadable_kind(file_type: std::fs::FileType) -> Option<&'static str> {
    use std::os::unix::fs::FileTypeExt;
    if file_type.is_dir() {
        Some("a directory")
    } else if file_type.is_char_device() {
        Some("a character device")
    } else if file_type.is_block_device() {
        Some("a block device")
    } else if file_type.is_socket() {
        Some("a socket")
    } else if file_type.is_file() || file_type.is_fifo() {
        None
    } else {
        Some("of a kind fencelab does not read")
    }
}

/// Why a file could not be read: what a caller branches on to tell its
/// reader what to do (a learner's submission, `crate::submission`). The
/// sentence that names the path comes with it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unreadable {
    /// Nothing is at the path.
    Missing,
    /// A symbolic link whose target does not exist.
    DanglingLink,
    /// A directory, a device, a socket: the noun, such as `a directory`.
    NotAFile(&'static str),
    /// A FIFO whose writer stayed silent for [`PIPE_SILENCE_MS_MAX`].
    SilentFifo,
    /// More bytes than the caller reads.
    TooLarge { bytes_max: usize },
    /// Bytes that are not UTF-8.
    NotUtf8,
    /// Any other error of the system's (permissions, I/O).
    Io,
}

/// A file that could not be read: why, and the sentence that says so,
/// naming the path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReadError {
    pub kind: Unreadable,
    pub sentence: String,
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.sentence)
    }
}

/// Reads the UTF-8 text file at `path`, of at most `bytes_max` bytes: a
/// larger one, a device, a socket or a directory is refused with a sentence
/// naming the path; a FIFO is read to its end within the same cap.
pub fn read_text(path: &Path, bytes_max: usize) -> Result<String, String> {
    read(path, bytes_max).map_err(|e| e.sentence)
}

/// [`read_text`], with why a file could not be read as a value.
pub fn read(path: &Path, bytes_max: usize) -> Result<String, ReadError> {
    read_as(path, &shown(path), bytes_max)
}

/// [`read`], its sentences naming the file `name`: the path as the
/// caller's reader knows it (a book names its files from its root), where
/// patching the sentence afterwards would have to find the path in it.
pub fn read_as(path: &Path, name: &str, bytes_max: usize) -> Result<String, ReadError> {
    let error = |kind: Unreadable, sentence: String| ReadError { kind, sentence };
    let cannot = |e: std::io::Error| {
        let kind = if e.kind() == ErrorKind::NotFound {
            Unreadable::Missing
        } else {
            Unreadable::Io
        };
        error(kind, format!("{name}: cannot read: {e}"))
    };
    let refuse = |kind: &'static str| {
        Err(error(
            Unreadable::NotAFile(kind),
            format!("{name}: is {kind}, not a file; give the path of a text file"),
        ))
    };
    // Before opening: a device is refused without being opened.
    let metadata = std::fs::metadata(path).map_err(|e| {
        let dangling = e.kind() == ErrorKind::NotFound
            && std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
        if dangling {
            error(
                Unreadable::DanglingLink,
                format!("{name}: is a symbolic link to nothing (its target does not exist)"),
            )
        } else {
            cannot(e)
        }
    })?;
    if let Some(kind) = unreadable_kind(metadata.file_type()) {
        return refuse(kind);
    }
    let file = open_without_blocking(path).map_err(cannot)?;
    // What was opened may not be what was looked at a moment before.
    let file_type = file.metadata().map_err(cannot)?.file_type();
    if let Some(kind) = unreadable_kind(file_type) {
        return refuse(kind);
    }
    let bytes = if std::os::unix::fs::FileTypeExt::is_fifo(&file_type) {
        read_pipe(file, bytes_max).map_err(|e| match e.kind() {
            ErrorKind::TimedOut => error(
                Unreadable::SilentFifo,
                format!(
                    "{name}: is a FIFO, and nothing was written to it for {} s; fencelab reads a \
                     FIFO until its writer closes it, waiting at most that long at a time",
                    PIPE_SILENCE_MS_MAX / 1000
                ),
            ),
            _ => cannot(e),
        })?
    } else {
        let mut bytes = Vec::new();
        file.take(bytes_max as u64 + 1)
            .read_to_end(&mut bytes)
            .map_err(cannot)?;
        bytes
    };
    if bytes.len() > bytes_max {
        return Err(error(
            Unreadable::TooLarge { bytes_max },
            format!(
                "{name}: the file is larger than {bytes_max} bytes, the most fencelab reads for it"
            ),
        ));
    }
    String::from_utf8(bytes).map_err(|_| {
        error(
            Unreadable::NotUtf8,
            format!("{name}: the file is not UTF-8 text"),
        )
    })
}

fn open_without_blocking(path: &Path) -> std::io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path)
}

/// Reads a FIFO opened without blocking, up to one byte past `bytes_max`:
/// waits for its writer at most [`PIPE_SILENCE_MS_MAX`] at a time (one that
/// has not come yet included), and ends when the writer closes it.
///
/// It waits before each read rather than reading first: a FIFO opened
/// without blocking reads as ended while no writer has opened it yet, and
/// `mkfifo f; fencelab check f & cat x > f` must read the whole of `x`.
/// poll() reports a FIFO ended only once a writer has come and gone.
fn read_pipe(mut file: File, bytes_max: usize) -> std::io::Result<Vec<u8>> {
    use std::os::fd::AsRawFd;
    let mut bytes = Vec::new();
    let mut chunk = [0u8; 16 * 1024];
    while bytes.len() <= bytes_max {
        let mut wanted = libc::pollfd {
            fd: file.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: one valid pollfd, for a descriptor `file` owns for the
        // whole call.
        let ready = unsafe { libc::poll(&mut wanted, 1, PIPE_SILENCE_MS_MAX) };
        if ready == 0 {
            return Err(ErrorKind::TimedOut.into());
        }
        if ready < 0 {
            let error = std::io::Error::last_os_error();
            if error.kind() == ErrorKind::Interrupted {
                continue;
            }
            return Err(error);
        }
        match file.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => bytes.extend_from_slice(&chunk[..n]),
            Err(e) if matches!(e.kind(), ErrorKind::Interrupted | ErrorKind::WouldBlock) => {}
            Err(e) => return Err(e),
        }
    }
    bytes.truncate(bytes_max + 1);
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fresh private folder, removed when dropped (never one another
    /// user could have made first at a name they guessed).
    fn scratch() -> tempfile::TempDir {
        tempfile::Builder::new()
            .prefix("fencelab-files-test-")
            .tempdir()
            .unwrap()
    }

    #[test]
    fn a_device_a_socket_and_a_directory_are_refused_by_name() {
        let zero = read_text(Path::new("/dev/zero"), 1024).unwrap_err();
        assert!(zero.contains("is a character device"), "{zero}");
        let dir = scratch();
        let socket = dir.path().join("exercise.toml");
        let _listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
        let refused = read_text(&socket, 1024).unwrap_err();
        assert!(refused.contains("is a socket"), "{refused}");
        let refused = read_text(dir.path(), 1024).unwrap_err();
        assert!(refused.contains("is a directory"), "{refused}");
    }

    #[test]
    fn a_file_is_read_whole_and_a_larger_one_is_refused() {
        let dir = scratch();
        let file = dir.path().join("a.toml");
        std::fs::write(&file, "x".repeat(10)).unwrap();
        assert_eq!(read_text(&file, 10).unwrap(), "x".repeat(10));
        let refused = read_text(&file, 9).unwrap_err();
        assert!(refused.contains("larger than 9 bytes"), "{refused}");
    }
}
