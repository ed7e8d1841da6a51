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
#[cfg(feature = "toml")]
use std::convert::Infallible;
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

/// Why an index cannot be used, in a sentence. A sentence, not an enum of
/// causes: no reader branches on the cause (the page, `fencelab index`, the
/// mdBook preprocessor, the SCORM packager and the prerenderer show it), and
/// it crosses the workers' wire (`Response::Indexed`) as this text.
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

    /// Reads an index served by a site: untrusted text, in any form TOML
    /// reads. (The page's exercise reader reads it: neither the page nor
    /// the checking worker links a TOML parser.)
    #[cfg(feature = "toml")]
    pub fn parse(text: &str) -> Result<SiteIndex, IndexError> {
        let Ok(index) = SiteIndex::read(text, |text| Ok::<_, Infallible>(from_toml(text)));
        index
    }

    /// Reads an index written in the form [`SiteIndex::to_toml`] writes
    /// (and the empty index a site starts with): lines that are blank or a
    /// comment, `format = N`, and `exercises = [` with one quoted file name
    /// a line, or `exercises = []`. `None` for any other text, which only a
    /// TOML parser reads: the checking worker reads a site's index with this
    /// on every load, and starts the exercise reader (web/reader) only for a
    /// text it cannot read. Whatever it reads, it reads as [`SiteIndex::parse`]
    /// does: the rules are [`SiteIndex::read`]'s for both, and a test
    /// compares the two forms' fields on every text of a small grammar.
    pub fn parse_written(text: &str) -> Option<Result<SiteIndex, IndexError>> {
        SiteIndex::read(text, |text| written_fields(text).map(Ok).ok_or(OtherForm)).ok()
    }

    /// The one reader of an index, whichever form it is in: its bounds, its
    /// fields as `decode` reads them, then every rule an index follows
    /// ([`SiteIndex::checked`]). `decode` is a form's own grammar and
    /// nothing else: TOML's, which reads every text (its `E` is
    /// `Infallible`), or the written form's, which turns down a text only
    /// TOML reads ([`OtherForm`]).
    fn read<E>(
        text: &str,
        decode: impl FnOnce(&str) -> Result<Result<SiteIndex, IndexError>, E>,
    ) -> Result<Result<SiteIndex, IndexError>, E> {
        if let Err(error) = within_bounds(text) {
            return Ok(Err(error));
        }
        Ok(decode(text)?.and_then(SiteIndex::checked))
    }

    /// The index, if it is of this build's format and names files it may.
    fn checked(self) -> Result<SiteIndex, IndexError> {
        if self.format != INDEX_FORMAT {
            return Err(IndexError(format!(
                "format {} is not one this page reads (it reads format {INDEX_FORMAT})",
                self.format
            )));
        }
        self.validate()?;
        Ok(self)
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

/// Refuses an index larger than [`INDEX_BYTES_MAX`].
fn within_bounds(text: &str) -> Result<(), IndexError> {
    if text.len() > INDEX_BYTES_MAX {
        return Err(IndexError(format!(
            "the index is {} bytes; at most {INDEX_BYTES_MAX} are read",
            text.len()
        )));
    }
    Ok(())
}

/// A text that is not in the written form: only a TOML parser reads it.
struct OtherForm;

/// The fields of an index in TOML, unchecked.
#[cfg(feature = "toml")]
fn from_toml(text: &str) -> Result<SiteIndex, IndexError> {
    toml::from_str(text).map_err(|e| IndexError(e.message().to_string()))
}

/// The fields of an index in the written form ([`SiteIndex::parse_written`]),
/// unchecked; `None` for a text in any other form.
fn written_fields(text: &str) -> Option<SiteIndex> {
    let mut format = None;
    let mut exercises = None;
    // A line's end is `\n` or `\r\n`; a `\r` anywhere else is left in
    // the line, where nothing reads it.
    let mut lines = text.split_inclusive('\n').map(|line| {
        line.strip_suffix("\r\n")
            .or_else(|| line.strip_suffix('\n'))
            .unwrap_or(line)
    });
    while let Some(line) = lines.next() {
        let line = line.trim_matches([' ', '\t']);
        if line.is_empty() {
            continue;
        }
        if let Some(comment) = line.strip_prefix('#') {
            if comment.chars().any(|c| c != '\t' && c.is_control()) {
                return None;
            }
            continue;
        }
        let (key, value) = line.split_once('=')?;
        let value = value.trim_matches([' ', '\t']);
        match key.trim_matches([' ', '\t']) {
            "format" if format.is_none() => format = Some(written_integer(value)?),
            "exercises" if exercises.is_none() => {
                exercises = Some(match value {
                    "[]" => Vec::new(),
                    "[" => written_names(&mut lines)?,
                    _ => return None,
                });
            }
            _ => return None,
        }
    }
    Some(SiteIndex {
        format: format?,
        exercises: exercises?,
    })
}

/// A TOML decimal integer of at most `u32::MAX`, as [`SiteIndex::to_toml`]
/// writes the format (no sign, underscore or leading zero).
fn written_integer(value: &str) -> Option<u32> {
    let plain = !value.is_empty()
        && value.bytes().all(|b| b.is_ascii_digit())
        && (value == "0" || !value.starts_with('0'));
    if plain { value.parse().ok() } else { None }
}

/// The rest of an array [`SiteIndex::to_toml`] writes, after its `[`: one
/// `"name",` a line (the last one's comma optional), then `]` alone. Names
/// are of the characters a file name may have, so no escape is read.
fn written_names<'a>(lines: &mut impl Iterator<Item = &'a str>) -> Option<Vec<String>> {
    let mut names = Vec::new();
    let mut comma = true;
    for line in lines {
        let line = line.trim_matches([' ', '\t']);
        if line.is_empty() {
            continue;
        }
        if line == "]" {
            return Some(names);
        }
        // A name after one without its comma is not TOML.
        if !comma {
            return None;
        }
        let item = line.strip_prefix('"')?;
        let (name, rest) = item.split_once('"')?;
        comma = match rest.trim_start_matches([' ', '\t']) {
            "," => true,
            "" => false,
            _ => return None,
        };
        let plain = name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'));
        if !plain {
            return None;
        }
        names.push(name.to_string());
    }
    None
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

    /// Lines from which every text of up to four lines is made, joined by
    /// `\n` or `\r\n`, with and without a last line end: what
    /// `to_toml` writes, and each way a line can leave its grammar.
    const LINES: &[&str] = &[
        "",
        "# a comment\t",
        "# \u{7f}",
        "format = 1",
        "format=2",
        "format = 01",
        "exercises = []",
        "exercises = [",
        "]",
        "  \"a.toml\",",
        "\"b.toml\"",
        "\"a b.toml\" ,",
        "] # end",
        "format = 1\r",
    ];

    #[test]
    fn what_it_reads_without_toml_it_reads_as_toml_does() {
        let mut texts = vec![
            String::from(include_str!("../../../web/exercises/index.toml")),
            SiteIndex::new(Vec::new()).unwrap().to_toml(),
            // Longer than the texts below are.
            "format = 1\nexercises = [\n\"b.toml\"\n\"a.toml\",\n]\n".into(),
            "exercises = [\n  \"a.toml\",\n\n  \"b.toml\"\n]\nformat = 1".into(),
            "format = 1\nexercises = [\n\"a.toml\",\n# one\n]\n".into(),
            "format = 1\nexercises = [\n\"a.toml\",\n]\nexercises = []\n".into(),
        ];
        let mut lines: Vec<Vec<&str>> = vec![Vec::new()];
        for _ in 0..4 {
            let longer: Vec<Vec<&str>> = lines
                .iter()
                .filter(|text| text.len() == lines.last().map_or(0, Vec::len))
                .flat_map(|text| {
                    LINES.iter().map(move |line| {
                        let mut text = text.clone();
                        text.push(*line);
                        text
                    })
                })
                .collect();
            lines.extend(longer);
        }
        for text in &lines {
            for end in ["\n", "\r\n"] {
                let joined = text.join(end);
                texts.push(format!("{joined}{end}"));
                texts.push(joined);
            }
        }
        let mut read = 0;
        for text in &texts {
            if let Some(written) = SiteIndex::parse_written(text) {
                assert_eq!(written, SiteIndex::parse(text), "{text:?}");
                read += 1;
            }
        }
        // The grammar's own texts are read, and the comparison above was
        // made on hundreds of texts it read, not a handful.
        for files in [
            vec![],
            vec!["a.toml".to_string(), "my_course-2.toml".into()],
        ] {
            let text = SiteIndex::new(files).unwrap().to_toml();
            assert!(
                SiteIndex::parse_written(&text).is_some_and(|r| r.is_ok()),
                "{text}"
            );
        }
        assert!(
            SiteIndex::parse_written(include_str!("../../../web/exercises/index.toml"))
                .is_some_and(|r| r.is_ok())
        );
        assert!(read > 500, "{read} of {}", texts.len());
    }
}
