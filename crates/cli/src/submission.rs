//! A learner's procedure text as a grader hands it over (`fencelab run
//! --set PROCEDURE=FILE`), read so that the grader always has something to
//! show the learner. Every way the file can be unusable (missing, misnamed,
//! empty, not text, too large, a directory, a FIFO nobody writes to) is an
//! [`Unusable`] whose sentence names the file and says what to do about
//! it; `run` then grades every scenario as errored with that sentence
//! (docs/GRADING.md, section 4) instead of printing no document at all.
//!
//! A missing file is often a misnamed one (`Claim.SQL` for `claim.sql`, or
//! `solution.sql`): its folder is listed, at most
//! [`FOLDER_ENTRIES_SCANNED_MAX`] entries of it, for a name that differs
//! only in case, or else for the folder's one `.sql` file, and the sentence
//! says which to rename.
//!
//! Must never: open any file but the one named (the folder's entries are
//! listed, not read), or print a name it found as it is (names are
//! untrusted text: `fencelab_model::text::visible`).

use crate::files::{self, ReadError, Unreadable};
use fencelab_model::text::visible;
use std::fmt;
use std::path::Path;

/// The most entries of a missing file's folder looked at for the name it
/// was probably given: a submission folder holds a handful, and a folder of
/// millions must not make a grader wait.
pub const FOLDER_ENTRIES_SCANNED_MAX: usize = 10_000;

/// What is wrong with a submitted file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Problem {
    /// Nothing is at the path, and its folder has nothing to rename.
    Missing,
    /// Nothing is at the path, but its folder has `found`, the same name
    /// in other letter cases (`Claim.SQL` for `claim.sql`).
    OtherCase { found: String },
    /// Nothing is at the path, but its folder has one `.sql` file, `found`.
    OtherName { found: String },
    /// Nothing in it but white space.
    Empty,
    /// Not text: bytes that are not UTF-8, or a NUL (at this byte).
    Binary { nul_at: Option<usize> },
    /// Larger than the most fencelab reads for a procedure.
    TooLarge { bytes_max: usize },
    /// Not a file that can be read (a directory, a device, a dangling
    /// link, a FIFO nobody writes to, a permission): the reader's sentence.
    NotReadable(ReadError),
}

/// A submitted file that cannot be graded: which procedure it was for,
/// the path as the command line shows it, and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unusable {
    pub procedure: String,
    /// The path, shown (`crate::files::shown`).
    pub file: String,
    /// The name the file should have: the path's last part.
    pub wanted: String,
    pub problem: Problem,
}

impl fmt::Display for Unusable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Unusable {
            procedure,
            file,
            wanted,
            problem,
        } = self;
        let procedure = visible(procedure);
        let save =
            format!("Save the `{procedure}` procedure's SQL as a text file named `{wanted}`");
        match problem {
            Problem::Missing => write!(f, "{file}: there is no such file. {save}."),
            Problem::OtherCase { found } => write!(
                f,
                "{file}: there is no such file, but its folder has `{found}`: rename that file \
                 to `{wanted}` (names are case-sensitive)."
            ),
            Problem::OtherName { found } => write!(
                f,
                "{file}: there is no such file, but its folder has one SQL file, `{found}`: if \
                 it holds the `{procedure}` procedure, rename it to `{wanted}`."
            ),
            Problem::Empty => write!(
                f,
                "{file}: the file is empty (nothing but white space). Write the `{procedure}` \
                 procedure's SQL in it."
            ),
            Problem::Binary { nul_at } => {
                let why = match nul_at {
                    Some(at) => format!("it holds a NUL byte, at byte {at}"),
                    None => "its bytes are not UTF-8".to_string(),
                };
                write!(
                    f,
                    "{file}: the file is not text ({why}). {save}, as a code editor writes it, \
                     not as a document or an archive."
                )
            }
            Problem::TooLarge { bytes_max } => write!(
                f,
                "{file}: the file is larger than {bytes_max} bytes, the most fencelab reads for \
                 a procedure. Submit the `{procedure}` procedure's SQL alone."
            ),
            Problem::NotReadable(error) => write!(f, "{error}. {save}."),
        }
    }
}

/// Reads the text submitted for `procedure` at `path`, of at most
/// `bytes_max` bytes, or says why it cannot be graded.
pub fn read(procedure: &str, path: &Path, bytes_max: usize) -> Result<String, Unusable> {
    let unusable = |problem: Problem| Unusable {
        procedure: procedure.to_string(),
        file: files::shown(path),
        wanted: wanted_name(procedure, path),
        problem,
    };
    let text = files::read(path, bytes_max).map_err(|error| {
        unusable(match error.kind {
            Unreadable::Missing => look_around(path),
            Unreadable::NotUtf8 => Problem::Binary { nul_at: None },
            Unreadable::TooLarge { bytes_max } => Problem::TooLarge { bytes_max },
            Unreadable::DanglingLink
            | Unreadable::NotAFile(_)
            | Unreadable::SilentFifo
            | Unreadable::Io => Problem::NotReadable(error),
        })
    })?;
    if let Some(at) = text.find('\0') {
        return Err(unusable(Problem::Binary { nul_at: Some(at) }));
    }
    if text.trim().is_empty() {
        return Err(unusable(Problem::Empty));
    }
    Ok(text)
}

/// The name the submitted file should have: the path's last part, or for a
/// path without one (`..`), the procedure's name with `.sql`.
fn wanted_name(procedure: &str, path: &Path) -> String {
    match path.file_name() {
        Some(name) => visible(&name.to_string_lossy()).into_owned(),
        None => format!("{}.sql", visible(procedure)),
    }
}

/// Why nothing is at `path`: the file its folder probably holds instead,
/// the same name in other letter cases first, else the folder's one `.sql`
/// file.
fn look_around(path: &Path) -> Problem {
    let Some(wanted) = path.file_name().and_then(|n| n.to_str()) else {
        return Problem::Missing;
    };
    let folder = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    let Ok(entries) = std::fs::read_dir(folder) else {
        return Problem::Missing;
    };
    let wanted_lower = wanted.to_lowercase();
    let mut sql_files = Vec::new();
    for entry in entries.take(FOLDER_ENTRIES_SCANNED_MAX).flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else {
            continue;
        };
        if name.to_lowercase() == wanted_lower {
            return Problem::OtherCase {
                found: visible(name).into_owned(),
            };
        }
        let is_sql = Path::new(name)
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| e.eq_ignore_ascii_case("sql"));
        let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
        if is_sql && !is_dir {
            sql_files.push(name.to_string());
        }
    }
    match sql_files.as_slice() {
        [only] => Problem::OtherName {
            found: visible(only).into_owned(),
        },
        _ => Problem::Missing,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch() -> tempfile::TempDir {
        tempfile::Builder::new()
            .prefix("fencelab-submission-test-")
            .tempdir()
            .unwrap()
    }

    fn problem(dir: &Path, name: &str) -> Problem {
        read("claim", &dir.join(name), 64).unwrap_err().problem
    }

    #[test]
    fn a_missing_file_names_what_its_folder_has_instead() {
        let dir = scratch();
        assert_eq!(problem(dir.path(), "claim.sql"), Problem::Missing);
        std::fs::write(dir.path().join("answer.sql"), "SELECT 1;").unwrap();
        assert_eq!(
            problem(dir.path(), "claim.sql"),
            Problem::OtherName {
                found: "answer.sql".into()
            }
        );
        // Two SQL files: which one is meant is not for fencelab to guess.
        std::fs::write(dir.path().join("notes.SQL"), "SELECT 2;").unwrap();
        assert_eq!(problem(dir.path(), "claim.sql"), Problem::Missing);
        // The same name in other cases wins over any other file.
        std::fs::write(dir.path().join("Claim.SQL"), "SELECT 3;").unwrap();
        let unusable = read("claim", &dir.path().join("claim.sql"), 64).unwrap_err();
        assert_eq!(
            unusable.problem,
            Problem::OtherCase {
                found: "Claim.SQL".into()
            }
        );
        let sentence = unusable.to_string();
        assert!(
            sentence.contains("rename that file to `claim.sql`"),
            "{sentence}"
        );
    }

    #[test]
    fn blank_binary_and_large_texts_are_each_named() {
        let dir = scratch();
        let write = |name: &str, bytes: &[u8]| std::fs::write(dir.path().join(name), bytes);
        write("blank.sql", b" \n\t\n").unwrap();
        write("latin1.sql", b"SELECT '\xe9';").unwrap();
        write("nul.sql", b"SELECT 1;\0").unwrap();
        write("large.sql", &[b'-'; 65]).unwrap();
        assert_eq!(problem(dir.path(), "blank.sql"), Problem::Empty);
        assert_eq!(
            problem(dir.path(), "latin1.sql"),
            Problem::Binary { nul_at: None }
        );
        assert_eq!(
            problem(dir.path(), "nul.sql"),
            Problem::Binary { nul_at: Some(9) }
        );
        assert_eq!(
            problem(dir.path(), "large.sql"),
            Problem::TooLarge { bytes_max: 64 }
        );
        assert!(matches!(
            problem(dir.path(), "."),
            Problem::NotReadable(ReadError {
                kind: Unreadable::NotAFile("a directory"),
                ..
            })
        ));
    }
}
