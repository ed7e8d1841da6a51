//! Writing a file a user named for a command's output (`export -o FILE`,
//! and any other command's output file), so that the write lands at that
//! path and nowhere else.
//!
//! [`write_file`] refuses a path that is a symbolic link (even with
//! [`Existing::Replace`]: a link someone left where an output goes would
//! send the write to its target), a folder, a FIFO or a device, and an
//! existing file unless the caller was told to replace it (`--force`). It
//! writes a temporary file beside the path, created exclusively (O_EXCL,
//! under a name no one can guess, so never through a link someone planted
//! there), and renames it into place: a reader never sees half a file, and
//! a failure leaves the old file as it was. [`names_stdout`] is the rule
//! that `-` means standard output.
//!
//! Must never: write through a symbolic link, replace a file its caller was
//! not told to replace, leave a temporary file behind (a signal included:
//! `crate::scratch`), or name a path in a message as it is (paths are
//! untrusted text: `crate::files::shown`).

use crate::files::shown;
use std::io::Write;
use std::path::Path;

/// Whether an existing file at the output's path may be replaced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Existing {
    /// Refuse it: nothing is written (the default of every `-o`).
    Refuse,
    /// Replace it (`--force`, or a file that is the command's own to keep
    /// up to date, such as a site's index).
    Replace,
}

impl Existing {
    /// `--force` given or not.
    pub fn replace_if(force: bool) -> Existing {
        if force {
            Existing::Replace
        } else {
            Existing::Refuse
        }
    }
}

/// Whether an output path names standard output: `-`, as every command
/// line tool takes it.
pub fn names_stdout(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// What a path that is not a regular file is, as a sentence's noun.
fn not_a_file(file_type: std::fs::FileType) -> Option<&'static str> {
    use std::os::unix::fs::FileTypeExt;
    if file_type.is_file() {
        None
    } else if file_type.is_dir() {
        Some("a directory")
    } else if file_type.is_fifo() {
        Some("a FIFO")
    } else if file_type.is_socket() {
        Some("a socket")
    } else if file_type.is_char_device() || file_type.is_block_device() {
        Some("a device")
    } else {
        Some("of a kind fencelab does not write")
    }
}

/// Checks that `path` may receive the output: nothing is there, or a
/// regular file that `existing` allows to replace.
pub fn check_target(path: &Path, existing: Existing) -> Result<(), String> {
    let name = shown(path);
    let metadata = match std::fs::symlink_metadata(path) {
        Ok(metadata) => metadata,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(format!("{name}: cannot write: {e}")),
    };
    if metadata.file_type().is_symlink() {
        return Err(format!(
            "{name}: is a symbolic link; fencelab does not write through one, even with \
             --force: name the file itself, or remove the link"
        ));
    }
    if let Some(kind) = not_a_file(metadata.file_type()) {
        return Err(format!(
            "{name}: is {kind}, not a file; fencelab writes its output only to a file"
        ));
    }
    if existing == Existing::Refuse {
        return Err(format!(
            "{name}: already exists; fencelab does not replace a file unless told to: give \
             --force to replace it, or name another path"
        ));
    }
    Ok(())
}

/// Writes `bytes` as the file at `path`, by the rules in the module's
/// documentation; the error names the path and says what to do.
pub fn write_file(path: &Path, bytes: &[u8], existing: Existing) -> Result<(), String> {
    use std::os::unix::fs::PermissionsExt;
    check_target(path, existing)?;
    let name = shown(path);
    let cannot = |e: std::io::Error| format!("{name}: cannot write: {e}");
    let file_name = path
        .file_name()
        .ok_or_else(|| format!("{name}: names no file"))?;
    let folder = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    // The file gets the mode a plain create would give it (0666 less the
    // umask), not the 0600 of a temporary: a site's files are served.
    let mut partial = tempfile::Builder::new()
        .prefix(&format!(".{}.", file_name.to_string_lossy()))
        .suffix(".partial")
        .permissions(std::fs::Permissions::from_mode(0o666))
        .tempfile_in(folder)
        .map_err(cannot)?;
    let _registered = crate::scratch::remove_on_signal(vec![partial.path().to_path_buf()]);
    partial.write_all(bytes).map_err(cannot)?;
    partial.as_file().sync_all().map_err(cannot)?;
    // What was checked may have changed since: a link or a file that
    // appeared is never written through, and is replaced only when allowed.
    match existing {
        Existing::Refuse => partial.persist_noclobber(path).map(drop),
        Existing::Replace => partial.persist(path).map(drop),
    }
    .map_err(|e| match e.error.kind() {
        std::io::ErrorKind::AlreadyExists => format!(
            "{name}: appeared while fencelab was writing it; it is left as it is: give --force \
             to replace it, or name another path"
        ),
        _ => cannot(e.error),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch() -> tempfile::TempDir {
        tempfile::Builder::new()
            .prefix("fencelab-output-test-")
            .tempdir()
            .unwrap()
    }

    /// Only the written file is in the folder: no temporary is left.
    fn names_in(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn a_new_file_is_written_and_an_existing_one_replaced_only_when_allowed() {
        let dir = scratch();
        let path = dir.path().join("out.py");
        write_file(&path, b"first", Existing::Refuse).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"first");
        let refused = write_file(&path, b"second", Existing::Refuse).unwrap_err();
        assert!(refused.contains("out.py: already exists"), "{refused}");
        assert!(refused.contains("--force"), "{refused}");
        assert_eq!(std::fs::read(&path).unwrap(), b"first");
        write_file(&path, b"third", Existing::Replace).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"third");
        assert_eq!(names_in(dir.path()), ["out.py"]);
    }

    #[test]
    fn a_link_a_folder_and_a_fifo_are_refused_even_when_replacing_is_allowed() {
        let dir = scratch();
        let victim = dir.path().join("victim.txt");
        std::fs::write(&victim, "kept").unwrap();
        let link = dir.path().join("link.py");
        std::os::unix::fs::symlink(&victim, &link).unwrap();
        let refused = write_file(&link, b"x", Existing::Replace).unwrap_err();
        assert!(refused.contains("is a symbolic link"), "{refused}");
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "kept");
        let folder = dir.path().join("folder");
        std::fs::create_dir(&folder).unwrap();
        let refused = write_file(&folder, b"x", Existing::Replace).unwrap_err();
        assert!(refused.contains("is a directory, not a file"), "{refused}");
        let fifo = dir.path().join("fifo");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(made.success());
        let refused = write_file(&fifo, b"x", Existing::Replace).unwrap_err();
        assert!(refused.contains("is a FIFO, not a file"), "{refused}");
        assert_eq!(
            names_in(dir.path()),
            ["fifo", "folder", "link.py", "victim.txt"]
        );
    }

    #[test]
    fn a_dash_names_standard_output_and_nothing_else_does() {
        assert!(names_stdout(Path::new("-")));
        assert!(!names_stdout(Path::new("./-")));
        assert!(!names_stdout(Path::new("out.py")));
    }
}
