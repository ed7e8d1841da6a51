//! Exercises: course content as data.
//!
//! An exercise file is TOML. It carries a format version, the narrative the
//! learner reads, the schema and seed rows of its world, reference
//! procedures (some editable, with the text the learner starts from), hints,
//! the rules that say what processes believe, counterexample scenarios, and
//! named broken variants (`[[mutants]]`) of procedures, each explained in one
//! line. Every variant must be caught by at least one scenario and the
//! reference must pass every scenario; [`Exercise::check`] verifies both.
//! An optional `[postgres]` table gives the texts that differ on PostgreSQL
//! (dialect.rs).
//!
//! docs/EXERCISES.md documents every field with a complete example. Unknown
//! fields are rejected, names must be unique, and every error names the file,
//! the line and the field.

use crate::history::Values;
use crate::monitor::{BeliefRule, EffectRule};
use crate::prose::{Narrative, SafeHtml};
use crate::scenario::Scenario;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;

mod dialect;
pub use dialect::{Dialect, DialectTexts, Isolation};

// The loader, behind the `toml` feature: the page's main thread is given
// exercises already loaded (by the worker, or at build time) and never
// parses TOML.
#[cfg(feature = "toml")]
mod file;
#[cfg(feature = "toml")]
mod load;
#[cfg(feature = "toml")]
mod places;
#[cfg(feature = "toml")]
mod scenario_file;
#[cfg(feature = "toml")]
pub use places::{Places, line_at};
#[cfg(feature = "toml")]
pub use scenario_file::scenarios_from_toml;

/// The exercise format this build reads.
pub const FORMAT_VERSION: u32 = 1;
/// The largest exercise file accepted, in bytes.
pub const EXERCISE_FILE_BYTES_MAX: usize = 256 * 1024;

/// What an exercise adds to its procedures for checking: the rules that turn
/// ok outcomes into beliefs, and the effects that need a current claim.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rules {
    #[serde(default)]
    pub beliefs: Vec<BeliefRule>,
    #[serde(default)]
    pub effects: Vec<EffectRule>,
}

/// How the exercise's database keeps its journal, in SQLite's words
/// (`PRAGMA journal_mode`): the file's locking follows from it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Journal {
    /// A rollback journal, SQLite's default: readers share the database
    /// with one writer until it commits, when it waits for them to leave
    /// and turns new ones away.
    #[default]
    Delete,
    /// A write-ahead log: readers never wait and never hold a writer up,
    /// each reading the snapshot it started on; a transaction that read an
    /// older snapshot cannot write after another one committed.
    Wal,
}

impl Journal {
    /// Both modes, rollback first.
    pub const ALL: [Journal; 2] = [Journal::Delete, Journal::Wal];

    /// SQLite's name for the mode, as `PRAGMA journal_mode` takes it.
    pub fn pragma_name(self) -> &'static str {
        match self {
            Journal::Delete => "delete",
            Journal::Wal => "wal",
        }
    }

    /// The mode named as `PRAGMA journal_mode` names it.
    pub fn from_pragma_name(name: &str) -> Option<Journal> {
        Journal::ALL
            .into_iter()
            .find(|journal| journal.pragma_name().eq_ignore_ascii_case(name))
    }
}

impl fmt::Display for Journal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Journal::Delete => "rollback journal",
            Journal::Wal => "write-ahead log (WAL)",
        })
    }
}

/// An exercise, loaded and validated.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Exercise {
    pub id: String,
    pub title: String,
    /// Which lesson the exercise belongs to, for grouping.
    pub lesson: String,
    /// The story, in fencelab's own words: Markdown in the file, rendered
    /// by the loader.
    pub narrative: Narrative,
    pub schema: String,
    /// The database's journal mode (`journal = "wal"`; rollback by default).
    #[serde(default)]
    pub journal: Journal,
    pub constants: Values,
    /// Procedures in file order.
    pub procedures: Vec<ProcedureSpec>,
    /// Each a line of Markdown in the file, rendered inline by the loader.
    pub hints: Vec<SafeHtml>,
    /// When given, the page offers to start from the working version (the
    /// references) instead of the start texts, with this sentence (a line
    /// of Markdown, rendered inline): the mission's other flow, breaking
    /// what works.
    #[serde(default)]
    pub working_version: Option<SafeHtml>,
    /// The belief and effect rules (`[[beliefs]]`, `[[effects]]`); `model`
    /// on the wire, as it always was.
    #[serde(rename = "model")]
    pub rules: Rules,
    pub scenarios: Vec<Scenario>,
    /// The named broken variants (`[[mutants]]` in the file, `mutants` on
    /// the wire).
    #[serde(rename = "mutants")]
    pub variants: Vec<Variant>,
    /// Generated mutants (`fencelab mutate`) declared equivalent to the
    /// reference: no scenario can tell them apart, and why.
    pub equivalents: Vec<Equivalent>,
    /// The PostgreSQL texts (`[postgres]` in the file), for an exercise
    /// that runs on both engines; [`Exercise::on_postgres`] applies them.
    /// Absent on the wire when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub postgres: Option<Dialect>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ProcedureSpec {
    pub name: String,
    /// The reference text: correct, and what the scenarios are checked against.
    pub reference: String,
    /// Whether the learner edits this procedure.
    pub editable: bool,
    /// The text the learner starts from (the reference when not given).
    pub start: String,
}

/// A named broken variant (`[[mutants]]` in the file): texts an author wrote
/// to be caught, with what they get wrong. A generated one-place change is a
/// `crate::mutate::Mutant`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Variant {
    pub name: String,
    /// One line: what this variant gets wrong.
    pub explanation: String,
    /// Replacement texts, by procedure name.
    pub procedures: BTreeMap<String, String>,
}

/// A generated mutant that behaves like the reference, by declaration. In
/// the file one `[[equivalent]]` may name several mutants that share one
/// reason (`mutants = [...]`); loaded, each is its own `Equivalent`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Equivalent {
    /// The mutant's id, as `fencelab mutate` prints it
    /// (`claim:4:38:drop-conjunct`).
    pub mutant: String,
    /// One sentence a learner could check: why no schedule can tell this
    /// mutant from the reference.
    pub reason: String,
}

/// An exercise file read and validated in everything but its schema, which
/// only SQLite can try (`Exercise::from_toml_unchecked`): the loader and
/// the engine may be in two places, as in the browser (the exercise reader
/// web/reader, and the checking worker).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Unchecked {
    pub exercise: Exercise,
    /// Where the schema is in the file: SQLite's sentence about it is
    /// placed here.
    pub schema: FilePlace,
}

/// A place in an exercise file, where a [`LoadError`] about what starts
/// there is put.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FilePlace {
    pub file: String,
    pub line: usize,
    pub column: usize,
}

impl FilePlace {
    /// The error `message` about `field`, at this place.
    pub fn error(&self, field: &str, message: impl Into<String>) -> LoadError {
        LoadError {
            file: self.file.clone(),
            line: self.line,
            column: self.column,
            field: field.to_string(),
            message: message.into(),
        }
    }
}

/// An exercise file that cannot be used, with where and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LoadError {
    pub file: String,
    pub line: usize,
    pub column: usize,
    /// The field at fault, such as `scenarios[2].steps` or `procedures.claim.reference`.
    pub field: String,
    pub message: String,
}

/// One line, whatever the file held: a field or a message quoting the
/// file's own text (serde's "unknown field `...`") has its control and bidi
/// characters written out (`crate::text::visible`), so the sentence can be
/// printed to a terminal or shown on the page as it is.
impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use crate::text::visible;
        write!(
            f,
            "{}:{}:{}: {}: {}",
            visible(&self.file),
            self.line,
            self.column,
            visible(&self.field),
            visible(&self.message)
        )
    }
}

impl std::error::Error for LoadError {}

impl Exercise {
    /// The editable procedures' starting texts, by name: what a learner
    /// first sees, as edits.
    pub fn start_edits(&self) -> BTreeMap<String, String> {
        self.editable_texts(|p| &p.start)
    }

    /// The editable procedures' reference texts, by name, as edits.
    pub fn reference_edits(&self) -> BTreeMap<String, String> {
        self.editable_texts(|p| &p.reference)
    }

    fn editable_texts<'a>(
        &'a self,
        text: impl Fn(&'a ProcedureSpec) -> &'a String,
    ) -> BTreeMap<String, String> {
        // Inserted, not collected: a map collected from an iterator sorts
        // it first, and each iterator type compiles a sort of its own into
        // the page's wasm (docs/PERFORMANCE.md).
        let mut texts = BTreeMap::new();
        for procedure in self.procedures.iter().filter(|p| p.editable) {
            texts.insert(procedure.name.clone(), text(procedure).clone());
        }
        texts
    }

    /// The reference texts, with `edits` (by procedure name) in place of
    /// the editable ones they name.
    pub fn texts_with(&self, edits: &BTreeMap<String, String>) -> Vec<(String, String)> {
        self.procedures
            .iter()
            .map(|p| {
                let text = edits
                    .get(&p.name)
                    .filter(|_| p.editable)
                    .unwrap_or(&p.reference);
                (p.name.clone(), text.clone())
            })
            .collect()
    }

    /// The editable procedures' texts under a named variant, by name, as
    /// edits: its replacement where it has one, else the reference (the
    /// texts a learner who loads the variant sees).
    pub fn variant_edits(&self, variant: &Variant) -> BTreeMap<String, String> {
        self.editable_texts(|p| variant.procedures.get(&p.name).unwrap_or(&p.reference))
    }

    /// The reference texts with a named variant's replacements in place.
    pub fn texts_of_variant(&self, variant: &Variant) -> Vec<(String, String)> {
        self.procedures
            .iter()
            .map(|p| {
                let text = variant.procedures.get(&p.name).unwrap_or(&p.reference);
                (p.name.clone(), text.clone())
            })
            .collect()
    }
}

#[cfg(all(test, feature = "toml"))]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    const SESSION: &str = "09-session-incarnations.toml";

    /// The file itself, not `crate::bundled`'s copy: bundled.rs depends on
    /// this module, and this module on nothing of it.
    fn session_file() -> &'static str {
        include_str!("../../exercises/09-session-incarnations.toml")
    }

    #[test]
    fn a_scenario_names_the_processes_it_interleaves_and_a_variant_its_texts() {
        let exercise = Exercise::from_toml(SESSION, session_file()).expect("it loads");
        let scenario = |name: &str| {
            exercise
                .scenarios
                .iter()
                .find(|s| s.name == name)
                .expect("a bundled scenario")
        };
        assert_eq!(
            scenario("two hosts claim at once").interleaved(),
            ["a", "b"]
        );
        // A scenario of calls one after another has nothing to interleave.
        assert!(scenario("too late to finish").interleaved().is_empty());
        // A variant replaces finish_session; the other editable procedure,
        // claim_session, is the reference's.
        let variant = &exercise.variants[0];
        let edits = exercise.variant_edits(variant);
        assert_eq!(
            edits.keys().collect::<Vec<_>>(),
            ["claim_session", "finish_session"]
        );
        assert_eq!(
            edits["finish_session"],
            variant.procedures["finish_session"]
        );
        let reference = |name: &str| {
            let spec = exercise.procedures.iter().find(|p| p.name == name);
            spec.map(|p| p.reference.clone()).unwrap_or_default()
        };
        assert_eq!(edits["claim_session"], reference("claim_session"));
    }

    #[test]
    fn the_session_exercise_offers_its_working_version() {
        let exercise = Exercise::from_toml(SESSION, session_file()).expect("it loads");
        let offer = exercise.working_version.expect("an offer");
        // Rendered once, inline: its code is markup, and no paragraph wraps it.
        assert!(
            offer
                .as_str()
                .starts_with("Start from a <code>finish_session</code> that works"),
            "{offer:?}"
        );
    }

    #[test]
    fn a_working_version_offer_must_say_something_and_change_something() {
        let file = session_file();
        let offer = file
            .lines()
            .find(|line| line.starts_with("working_version = "))
            .expect("the offer's line");
        let empty = file.replace(offer, "working_version = \" \"");
        let error = Exercise::from_toml(SESSION, &empty).expect_err("an empty offer");
        assert_eq!(error.field, "working_version");
        // Without a start of its own, the working version is the start.
        let no_start = cut_start(file);
        let error = Exercise::from_toml(SESSION, &no_start).expect_err("nothing to start from");
        assert_eq!(error.field, "working_version");
        assert!(
            error.message.contains("already starts from its reference"),
            "{error}"
        );
    }

    #[test]
    fn a_step_error_is_placed_at_the_step_not_at_its_scenario() {
        let file = session_file();
        let (index, line) = file
            .lines()
            .enumerate()
            .filter(|(_, l)| l.trim_start().starts_with("{ start = ") && l.contains(", actor = "))
            .nth(1)
            .expect("a second start step");
        let without_actor = format!("{}}},", line.split(", actor = ").next().unwrap());
        let broken = file.replacen(line, &without_actor, 1);
        let error = Exercise::from_toml(SESSION, &broken).expect_err("a start without actor");
        assert_eq!(error.line, index + 1, "{error}");
        assert!(error.field.ends_with(".steps[1]"), "{error}");
        assert!(error.message.contains("needs `actor`"), "{error}");
    }

    #[test]
    fn a_nul_in_any_sql_text_is_refused_at_its_place() {
        let file = session_file();
        let line_of = |needle: &str| line_at(file, file.find(needle).expect("the text"));
        // Each edit puts a NUL (written as TOML's escape) into one SQL text:
        // the field refused, and the line of the file the error is put at.
        let schema = "  id TEXT PRIMARY KEY,";
        let start = "SELECT c.session_id, c.host_id, c.incarnation, :result, :now";
        let query = "{ query = \"SELECT count(*) FROM beliefs\"";
        let invariant = "]\n\n[[scenarios]]";
        // The start's text, not the hint that quotes the whole procedure.
        let procedure = file
            .find("[procedures.finish_session]")
            .expect("the procedure's table");
        let cases = [
            (
                file.replacen(schema, "  id TEXT PRIMARY KEY,\\u0000", 1),
                "schema".to_string(),
                line_of(schema),
            ),
            (
                format!(
                    "{}{}",
                    &file[..procedure],
                    file[procedure..].replacen(start, "SELECT c.session_id\\u0000, c.host_id", 1)
                ),
                "procedures.finish_session.start".to_string(),
                line_at(file, procedure + file[procedure..].find(start).expect("the start")),
            ),
            (
                file.replacen(query, "{ query = \"SELECT count(*)\\u0000 FROM beliefs\"", 1),
                "steps[".to_string(),
                line_of(query),
            ),
            (
                file.replacen(
                    invariant,
                    "]\ninvariants = [{ name = \"n\", sql = \"SELECT 1\\u0000\" }]\n\n[[scenarios]]",
                    1,
                ),
                "].invariants[0].sql".to_string(),
                line_of(invariant) + 1,
            ),
        ];
        for (text, field, line) in cases {
            assert_ne!(text, file, "the edit of {field} changed nothing");
            let error = Exercise::from_toml(SESSION, &text).expect_err("a NUL in SQL");
            assert!(error.field.contains(&field), "{field}: {error}");
            assert_eq!(error.line, line, "{error}");
            assert!(error.message.contains("U+0000"), "{error}");
        }
        // A scenario file holds its scenarios to the same rule.
        let scenarios = "[[scenarios]]\nname = \"x\"\nsummary = \"s\"\nsteps = [\n  { sql = \"DELETE FROM t\\u0000 WHERE 0\" },\n]\n";
        let error = scenarios_from_toml("extra.toml", scenarios).expect_err("a NUL in a step");
        assert_eq!(
            (error.line, error.field.as_str()),
            (5, "scenarios[0].steps[0].sql (`x`)"),
            "{error}"
        );
        assert!(error.message.contains("column 14"), "{error}");
    }

    /// The session file without finish_session's `start`: every editable
    /// procedure then starts from its reference.
    fn cut_start(file: &str) -> String {
        let from = file.find("start = \"\"\"\n").expect("a start");
        let to = from + file[from..].find("\"\"\"\nreference").expect("its end") + 4;
        format!("{}{}", &file[..from], &file[to..])
    }
}
