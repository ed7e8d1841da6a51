//! A site's own exercises: the `exercises/index.toml` that lists the
//! exercise files an author serves beside the page.
//!
//! The page reads the index from its own origin and loads every file it
//! names, so the names are plain file names inside `exercises/`: never a
//! path, an address or anything that could reach another origin. The same
//! type writes the index (`fencelab index`) and reads it (the page), so the
//! two cannot drift apart.
//!
//! ```toml
//! format = 1
//! exercises = ["my-course-claim.toml", "my-course-finish.toml"]
//! ```

use serde::{Deserialize, Serialize};
use std::fmt;

/// The index format this build reads and writes.
pub const INDEX_FORMAT: u32 = 1;
/// Where the index is, relative to the page.
pub const INDEX_PATH: &str = "exercises/index.toml";
/// The folder of the files it names, relative to the page.
pub const EXERCISES_DIR: &str = "exercises";
/// The most exercise files one index may name.
pub const INDEX_FILES_MAX: usize = 200;
/// The largest index accepted, in bytes.
pub const INDEX_BYTES_MAX: usize = 64 * 1024;
/// The longest file name accepted.
const FILE_NAME_CHARS_MAX: usize = 100;

/// The list of a site's exercise files, in the order the page loads them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SiteIndex {
    pub format: u32,
    pub exercises: Vec<String>,
}

/// Why an index cannot be used, in a sentence.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct IndexError(pub String);

impl fmt::Display for IndexError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{INDEX_PATH}: {}", self.0)
    }
}

impl SiteIndex {
    /// An index naming `files`, which must each pass [`check_file_name`].
    pub fn new(files: Vec<String>) -> Result<SiteIndex, IndexError> {
        let index = SiteIndex {
            format: INDEX_FORMAT,
            exercises: files,
        };
        index.validate()?;
        Ok(index)
    }

    /// Reads an index served by a site: untrusted text. (The page's worker
    /// reads it: the page links no TOML parser.)
    #[cfg(feature = "toml")]
    pub fn parse(text: &str) -> Result<SiteIndex, IndexError> {
        if text.len() > INDEX_BYTES_MAX {
            return Err(IndexError(format!(
                "the index is {} bytes; at most {INDEX_BYTES_MAX} are read",
                text.len()
            )));
        }
        let index: SiteIndex =
            toml::from_str(text).map_err(|e| IndexError(e.message().to_string()))?;
        if index.format != INDEX_FORMAT {
            return Err(IndexError(format!(
                "format {} is not one this page reads (it reads format {INDEX_FORMAT})",
                index.format
            )));
        }
        index.validate()?;
        Ok(index)
    }

    /// The index as TOML, with a comment saying what wrote it and why.
    pub fn to_toml(&self) -> String {
        let mut text = String::from(
            "# The exercises this site serves beside the bundled ones, loaded by the page\n\
             # in this order. Written by `fencelab index`, which checks every file first.\n",
        );
        text.push_str(&format!("format = {}\nexercises = [\n", self.format));
        for file in &self.exercises {
            // File names are checked to need no escaping.
            text.push_str(&format!("  \"{file}\",\n"));
        }
        text.push_str("]\n");
        text
    }

    /// The address of each file, relative to the page.
    pub fn paths(&self) -> impl Iterator<Item = String> + '_ {
        self.exercises
            .iter()
            .map(|file| format!("{EXERCISES_DIR}/{file}"))
    }

    fn validate(&self) -> Result<(), IndexError> {
        if self.exercises.len() > INDEX_FILES_MAX {
            return Err(IndexError(format!(
                "it names {} files; at most {INDEX_FILES_MAX} are loaded",
                self.exercises.len()
            )));
        }
        let mut seen = std::collections::BTreeSet::new();
        for file in &self.exercises {
            check_file_name(file).map_err(IndexError)?;
            if !seen.insert(file) {
                return Err(IndexError(format!("`{file}` is named twice")));
            }
        }
        Ok(())
    }
}

/// A file name the index may carry: a `.toml` file directly inside
/// `exercises/`, of letters, digits, `-`, `_` and `.`, so it can never name
/// another folder, another origin or anything but a file beside the index.
pub fn check_file_name(file: &str) -> Result<(), String> {
    let allowed = |c: char| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.');
    if file.is_empty() || file.chars().count() > FILE_NAME_CHARS_MAX {
        return Err(format!(
            "a file name must have 1 to {FILE_NAME_CHARS_MAX} characters, not {}",
            file.chars().count()
        ));
    }
    if !file.chars().all(allowed) || file.starts_with('.') {
        return Err(format!(
            "`{}` is not a plain file name: use letters, digits, `-`, `_` and `.` \
             (no folders, no addresses), not starting with `.`",
            file.escape_debug()
        ));
    }
    if !file.ends_with(".toml") || file == "index.toml" {
        return Err(format!(
            "`{file}` is not an exercise file (a `.toml` other than the index)"
        ));
    }
    Ok(())
}

#[cfg(all(test, feature = "toml"))]
mod tests {
    use super::*;

    #[test]
    fn what_it_writes_it_reads_back() {
        let index = SiteIndex::new(vec!["a.toml".into(), "my_course-2.toml".into()]).unwrap();
        assert_eq!(SiteIndex::parse(&index.to_toml()), Ok(index.clone()));
        assert_eq!(
            index.paths().collect::<Vec<_>>(),
            ["exercises/a.toml", "exercises/my_course-2.toml"]
        );
    }

    #[test]
    fn names_that_could_leave_the_folder_are_refused() {
        for bad in [
            "../secret.toml",
            "sub/x.toml",
            "https://evil.example/x.toml",
            "//evil.example/x.toml",
            ".hidden.toml",
            "x.toml?y",
            "x.txt",
            "index.toml",
            "",
        ] {
            let text = format!("format = 1\nexercises = [{bad:?}]\n");
            let error = SiteIndex::parse(&text).expect_err(bad);
            assert!(error.to_string().starts_with(INDEX_PATH), "{error}");
        }
    }

    #[test]
    fn other_formats_unknown_fields_and_repeats_are_sentences() {
        let cases = [
            (
                "format = 2\nexercises = []\n",
                "format 2 is not one this page reads",
            ),
            ("format = 1\nexercises = []\nextra = 1\n", "unknown field"),
            (
                "format = 1\nexercises = [\"a.toml\", \"a.toml\"]\n",
                "named twice",
            ),
            ("exercises = [\"a.toml\"]\n", "missing field `format`"),
            ("format = 1\nexercises = \"a.toml\"\n", "invalid type"),
        ];
        for (text, expected) in cases {
            let error = SiteIndex::parse(text).expect_err(text).to_string();
            assert!(error.contains(expected), "{text:?}: {error}");
        }
        let many = format!(
            "format = 1\nexercises = [{}]\n",
            (0..=INDEX_FILES_MAX)
                .map(|i| format!("\"e{i}.toml\""))
                .collect::<Vec<_>>()
                .join(",")
        );
        assert!(
            SiteIndex::parse(&many)
                .unwrap_err()
                .0
                .contains("at most 200")
        );
        let huge = "#".repeat(INDEX_BYTES_MAX + 1);
        assert!(SiteIndex::parse(&huge).unwrap_err().0.contains("bytes"));
    }
}
