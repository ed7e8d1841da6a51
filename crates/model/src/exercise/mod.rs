//! Exercises: course content as data.
//!
//! An exercise file is TOML. It carries a format version, the narrative the
//! learner reads, the schema and seed rows of its world, reference
//! procedures (some editable, with the text the learner starts from), hints,
//! the rules that say what processes believe, counterexample scenarios, and
//! named broken variants ("mutants") of procedures, each explained in one
//! line. Every mutant must be caught by at least one scenario and the
//! reference must pass every scenario; [`Exercise::check`] verifies both.
//!
//! docs/EXERCISES.md documents every field with a complete example. Unknown
//! fields are rejected, names must be unique, and every error names the file,
//! the line and the field.

use crate::history::Values;
use crate::monitor::{BeliefRule, EffectRule, template_names};
use crate::procedure::Procedure;
use crate::scenario::Scenario;
use crate::value::Value;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;
use std::ops::Range;

mod places;
mod scenario_file;
pub use places::{Places, line_at};
pub use scenario_file::scenarios_from_toml;

/// The exercise format this build reads.
pub const FORMAT_VERSION: u32 = 1;
/// The largest exercise file accepted, in bytes.
pub const EXERCISE_FILE_BYTES_MAX: usize = 256 * 1024;

/// What an exercise adds to its procedures for checking: the rules that turn
/// ok outcomes into beliefs, and the effects that need a current claim.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Model {
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
    /// Markdown, in fencelab's own words.
    pub narrative: String,
    pub schema: String,
    /// The database's journal mode (`journal = "wal"`; rollback by default).
    #[serde(default)]
    pub journal: Journal,
    pub constants: Values,
    /// Procedures in file order.
    pub procedures: Vec<ProcedureSpec>,
    pub hints: Vec<String>,
    /// When given, the page offers to start from the working version (the
    /// references) instead of the start texts, with this sentence (inline
    /// Markdown): the mission's other flow, breaking what works.
    #[serde(default)]
    pub working_version: Option<String>,
    pub model: Model,
    pub scenarios: Vec<Scenario>,
    pub mutants: Vec<Mutant>,
    /// Generated mutants (`fencelab mutate`) declared equivalent to the
    /// reference: no scenario can tell them apart, and why.
    pub equivalents: Vec<Equivalent>,
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

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Mutant {
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

// ----- the file, as written -----

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    format: u32,
    id: toml::Spanned<String>,
    title: String,
    lesson: String,
    narrative: String,
    schema: toml::Spanned<String>,
    #[serde(default)]
    journal: Journal,
    #[serde(default)]
    constants: Option<toml::Spanned<BTreeMap<String, Value>>>,
    procedures: toml::Spanned<BTreeMap<String, toml::Spanned<ProcedureFile>>>,
    /// Procedure names in the order the learner sees them; defaults to
    /// editable ones first, then by name.
    #[serde(default)]
    order: Vec<String>,
    #[serde(default)]
    hints: Vec<String>,
    #[serde(default)]
    working_version: Option<toml::Spanned<String>>,
    #[serde(default)]
    beliefs: Vec<toml::Spanned<BeliefRule>>,
    #[serde(default)]
    effects: Vec<toml::Spanned<EffectRule>>,
    #[serde(default)]
    scenarios: Vec<toml::Spanned<Scenario>>,
    #[serde(default)]
    mutants: Vec<toml::Spanned<MutantFile>>,
    #[serde(default)]
    equivalent: Vec<toml::Spanned<EquivalentFile>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct EquivalentFile {
    #[serde(default)]
    mutant: Option<String>,
    #[serde(default)]
    mutants: Vec<String>,
    reason: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ProcedureFile {
    reference: toml::Spanned<String>,
    #[serde(default)]
    editable: bool,
    #[serde(default)]
    start: Option<toml::Spanned<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MutantFile {
    name: String,
    explanation: String,
    procedures: BTreeMap<String, toml::Spanned<String>>,
}

struct Source<'a> {
    file: &'a str,
    text: &'a str,
}

impl Source<'_> {
    /// Refuses a name the exercise gives (its title, a procedure, scenario,
    /// broken variant, process or actor) that holds a control character or
    /// a bidirectional override or isolate: names are shown in terminals and
    /// on the page, where such a character would act on the terminal or show
    /// the name in another order than it has ("Trojan Source"). Marks such as
    /// U+200F, which right-to-left text needs, are allowed.
    fn plain_name(&self, span: Range<usize>, field: &str, name: &str) -> Result<(), LoadError> {
        let steers = |c: char| {
            c.is_control() || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
        };
        match name.chars().find(|&c| steers(c)) {
            None => Ok(()),
            Some(c) => Err(self.error(
                span,
                field,
                format!(
                    "`{}` holds U+{:04X}, which would steer a terminal or reorder the name as it \
                     is shown; write the name without it",
                    crate::text::visible(name),
                    u32::from(c)
                ),
            )),
        }
    }

    fn error(&self, span: Range<usize>, field: &str, message: impl Into<String>) -> LoadError {
        let position = crate::procedure::position_at(self.text, span.start);
        LoadError {
            file: self.file.to_string(),
            line: position.line as usize,
            column: position.column as usize,
            field: field.to_string(),
            message: message.into(),
        }
    }

    /// An error inside a procedure text, placed at its line in the file.
    fn procedure_error(
        &self,
        span: Range<usize>,
        field: &str,
        error: &crate::procedure::ParseError,
    ) -> LoadError {
        let start = crate::procedure::position_at(self.text, span.start);
        // A multi-line string opens with `"""` and a newline that TOML drops.
        let opens_with_newline = self.text[span.start..].starts_with("\"\"\"\n")
            || self.text[span.start..].starts_with("'''\n");
        let line = start.line as usize + error.position.line as usize - 1
            + usize::from(opens_with_newline);
        LoadError {
            file: self.file.to_string(),
            line,
            column: error.position.column as usize,
            field: field.to_string(),
            message: error.message.clone(),
        }
    }
}

impl Exercise {
    /// Reads and validates an exercise file: everything but its schema,
    /// which only SQLite can try (`fencelab_core::exercise::load` does both).
    /// `file` names the file in errors.
    pub fn from_toml(file: &str, text: &str) -> Result<Exercise, LoadError> {
        Exercise::from_toml_checked(file, text, |_| Ok(()))
    }

    /// As [`Exercise::from_toml`], then `check_schema` tries the loaded
    /// exercise's schema; its message is reported at the schema's place in
    /// the file.
    pub fn from_toml_checked(
        file: &str,
        text: &str,
        check_schema: impl FnOnce(&Exercise) -> Result<(), String>,
    ) -> Result<Exercise, LoadError> {
        let source = Source { file, text };
        if text.len() > EXERCISE_FILE_BYTES_MAX {
            return Err(source.error(
                0..0,
                "(file)",
                format!(
                    "the file is {} bytes; at most {EXERCISE_FILE_BYTES_MAX} are read",
                    text.len()
                ),
            ));
        }
        let parsed: File = toml::from_str(text).map_err(|e| {
            let span = e.span().unwrap_or(0..0);
            let message = e.message().to_string();
            let field = field_of(text, span.start);
            source.error(span, &field, message)
        })?;
        if parsed.format != FORMAT_VERSION {
            return Err(source.error(
                0..0,
                "format",
                format!(
                    "this is format {}, and this build of fencelab reads format {FORMAT_VERSION}",
                    parsed.format
                ),
            ));
        }
        let id = parsed.id.get_ref().clone();
        if id.is_empty()
            || !id
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        {
            return Err(source.error(
                parsed.id.span(),
                "id",
                "an id is lowercase letters, digits and dashes, such as claim-compare-and-set",
            ));
        }

        // A constant may not take a built-in's name: `now` would replace
        // the fake clock.
        for (constants, name) in parsed
            .constants
            .iter()
            .flat_map(|c| c.get_ref().keys().map(move |name| (c, name)))
        {
            if let Some((_, meaning)) = crate::procedure::BUILT_IN_PARAMETERS
                .iter()
                .find(|(built_in, _)| built_in == name)
            {
                return Err(source.error(
                    constants.span(),
                    &format!("constants.{name}"),
                    format!(":{name} is built in ({meaning}); a constant cannot take its name"),
                ));
            }
        }

        source.plain_name(0..0, "title", &parsed.title)?;
        source.plain_name(0..0, "lesson", &parsed.lesson)?;
        let mut procedures = Vec::new();
        for (name, spanned) in parsed.procedures.get_ref() {
            let spec = spanned.get_ref();
            source.plain_name(spanned.span(), &format!("procedures.{name}"), name)?;
            let field = format!("procedures.{name}.reference");
            Procedure::parse(name, spec.reference.get_ref())
                .map_err(|e| source.procedure_error(spec.reference.span(), &field, &e))?;
            let start = match &spec.start {
                Some(start) => {
                    if !spec.editable {
                        return Err(source.error(
                            start.span(),
                            &format!("procedures.{name}.start"),
                            "only an editable procedure has a starting text (add editable = true)",
                        ));
                    }
                    start.get_ref().clone()
                }
                None => spec.reference.get_ref().clone(),
            };
            procedures.push(ProcedureSpec {
                name: name.clone(),
                reference: spec.reference.get_ref().clone(),
                editable: spec.editable,
                start,
            });
        }
        if !procedures.iter().any(|p| p.editable) {
            return Err(source.error(
                parsed.procedures.span(),
                "procedures",
                "an exercise needs at least one procedure with editable = true",
            ));
        }
        order_procedures(&mut procedures, &parsed.order)
            .map_err(|message| source.error(0..0, "order", message))?;

        let known = |name: &str| procedures.iter().any(|p| p.name == name);
        for (i, rule) in parsed.beliefs.iter().enumerate() {
            if !known(&rule.get_ref().procedure) {
                return Err(source.error(
                    rule.span(),
                    &format!("beliefs[{i}].procedure"),
                    format!("there is no procedure named `{}`", rule.get_ref().procedure),
                ));
            }
            let templates = [
                ("grants", &rule.get_ref().grants),
                ("releases", &rule.get_ref().releases),
            ];
            for (field, template) in templates {
                if let Some(template) = template {
                    template_names(template).map_err(|message| {
                        source.error(rule.span(), &format!("beliefs[{i}].{field}"), message)
                    })?;
                }
            }
        }
        for (i, rule) in parsed.effects.iter().enumerate() {
            template_names(&rule.get_ref().requires).map_err(|message| {
                source.error(rule.span(), &format!("effects[{i}].requires"), message)
            })?;
        }

        // Read again only when an error needs the place of a step.
        let places = std::cell::OnceCell::new();
        let places = || places.get_or_init(|| Places::of(text));
        let mut scenarios: Vec<Scenario> = Vec::new();
        for (i, spanned) in parsed.scenarios.iter().enumerate() {
            let scenario = spanned.get_ref();
            let field = format!("scenarios[{i}]");
            source.plain_name(spanned.span(), &format!("{field}.name"), &scenario.name)?;
            if scenarios.iter().any(|s| s.name == scenario.name) {
                return Err(source.error(
                    spanned.span(),
                    &format!("{field}.name"),
                    format!("a second scenario is named `{}`", scenario.name),
                ));
            }
            if let Some(problem) = scenario.points_problem() {
                let at = places().points(i).unwrap_or(spanned.span().start);
                return Err(source.error(at..at, &format!("{field}.points"), problem));
            }
            // A step's problem is placed at the step, not at its scenario's
            // header: a scenario of twenty steps is a long way to look.
            let step_span = |j: usize| {
                let at = places().step(i, j).unwrap_or(spanned.span().start);
                at..at
            };
            for (j, step) in scenario.steps.iter().enumerate() {
                for name in [&step.start, &step.actor].into_iter().flatten() {
                    source.plain_name(spanned.span(), &format!("{field}.steps[{j}]"), name)?;
                }
                step.to_action().map_err(|message| {
                    source.error(step_span(j), &format!("{field}.steps[{j}]"), message)
                })?;
                let named = [&step.call, &step.begin].into_iter().flatten().chain(
                    step.concurrent
                        .iter()
                        .flatten()
                        .filter_map(|c| c.call.as_ref()),
                );
                for procedure in named {
                    if !known(procedure) {
                        return Err(source.error(
                            step_span(j),
                            &format!("{field}.steps[{j}]"),
                            format!("there is no procedure named `{procedure}`"),
                        ));
                    }
                }
            }
            scenarios.push(scenario.clone());
        }
        if scenarios.is_empty() {
            return Err(source.error(0..0, "scenarios", "an exercise needs at least one scenario"));
        }

        let mut mutants: Vec<Mutant> = Vec::new();
        for (i, spanned) in parsed.mutants.iter().enumerate() {
            let mutant = spanned.get_ref();
            let field = format!("mutants[{i}]");
            source.plain_name(spanned.span(), &format!("{field}.name"), &mutant.name)?;
            if mutants.iter().any(|m| m.name == mutant.name) {
                return Err(source.error(
                    spanned.span(),
                    &format!("{field}.name"),
                    format!("a second mutant is named `{}`", mutant.name),
                ));
            }
            if mutant.procedures.is_empty() {
                return Err(source.error(
                    spanned.span(),
                    &format!("{field}.procedures"),
                    "a mutant replaces at least one procedure",
                ));
            }
            for (name, text) in &mutant.procedures {
                let field = format!("{field}.procedures.{name}");
                if !known(name) {
                    return Err(source.error(
                        text.span(),
                        &field,
                        format!("there is no procedure named `{name}`"),
                    ));
                }
                Procedure::parse(name, text.get_ref())
                    .map_err(|e| source.procedure_error(text.span(), &field, &e))?;
            }
            mutants.push(Mutant {
                name: mutant.name.clone(),
                explanation: mutant.explanation.clone(),
                procedures: mutant
                    .procedures
                    .iter()
                    .map(|(k, v)| (k.clone(), v.get_ref().clone()))
                    .collect(),
            });
        }

        let mut equivalents: Vec<Equivalent> = Vec::new();
        for (i, spanned) in parsed.equivalent.iter().enumerate() {
            let declared = spanned.get_ref();
            let field = format!("equivalent[{i}]");
            if declared.reason.trim().is_empty() {
                return Err(source.error(
                    spanned.span(),
                    &format!("{field}.reason"),
                    "an equivalent mutant needs a reason a learner could check",
                ));
            }
            let ids: Vec<&String> = declared.mutant.iter().chain(&declared.mutants).collect();
            if ids.is_empty() {
                return Err(source.error(
                    spanned.span(),
                    &field,
                    "name the mutant (`mutant = \"ID\"`) or mutants (`mutants = [...]`), as `fencelab mutate` prints their ids",
                ));
            }
            for id in ids {
                if equivalents.iter().any(|e| &e.mutant == id) {
                    return Err(source.error(
                        spanned.span(),
                        &format!("{field}.mutants"),
                        format!("`{id}` is declared equivalent twice"),
                    ));
                }
                equivalents.push(Equivalent {
                    mutant: id.clone(),
                    reason: declared.reason.clone(),
                });
            }
        }
        let working_version = match parsed.working_version {
            Some(spanned) if spanned.get_ref().trim().is_empty() => {
                return Err(source.error(
                    spanned.span(),
                    "working_version",
                    "say in a sentence what the learner does from the working version",
                ));
            }
            Some(spanned)
                if procedures
                    .iter()
                    .all(|p| !p.editable || p.start == p.reference) =>
            {
                return Err(source.error(
                    spanned.span(),
                    "working_version",
                    "every editable procedure already starts from its reference",
                ));
            }
            Some(spanned) => Some(spanned.into_inner()),
            None => None,
        };
        let schema_span = parsed.schema.span();
        let exercise = Exercise {
            id,
            title: parsed.title,
            lesson: parsed.lesson,
            narrative: parsed.narrative,
            schema: parsed.schema.get_ref().clone(),
            journal: parsed.journal,
            constants: parsed
                .constants
                .map(toml::Spanned::into_inner)
                .unwrap_or_default(),
            procedures,
            hints: parsed.hints,
            working_version,
            model: Model {
                beliefs: parsed.beliefs.into_iter().map(|r| r.into_inner()).collect(),
                effects: parsed.effects.into_iter().map(|r| r.into_inner()).collect(),
            },
            scenarios,
            mutants,
            equivalents,
        };
        check_schema(&exercise).map_err(|message| source.error(schema_span, "schema", message))?;
        Ok(exercise)
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

    /// The reference texts with a mutant's replacements in place.
    pub fn texts_of_mutant(&self, mutant: &Mutant) -> Vec<(String, String)> {
        self.procedures
            .iter()
            .map(|p| {
                let text = mutant.procedures.get(&p.name).unwrap_or(&p.reference);
                (p.name.clone(), text.clone())
            })
            .collect()
    }
}

fn order_procedures(procedures: &mut [ProcedureSpec], order: &[String]) -> Result<(), String> {
    for name in order {
        if !procedures.iter().any(|p| &p.name == name) {
            return Err(format!("names `{name}`, which is not a procedure"));
        }
    }
    procedures.sort_by_key(|p| {
        let position = order
            .iter()
            .position(|n| *n == p.name)
            .unwrap_or(usize::MAX);
        (position, !p.editable, p.name.clone())
    });
    Ok(())
}

/// The dotted path of the TOML key nearest before `offset`, for errors that
/// come from the parser: the last table header and key seen.
fn field_of(text: &str, offset: usize) -> String {
    // Up to the end of the line the offset is on: a key that starts there
    // (an unknown field, say) is the field at fault, not the one before.
    let offset = offset.min(text.len());
    let line_end = text[offset..]
        .find('\n')
        .map_or(text.len(), |end| offset + end);
    let before = text.get(..line_end).unwrap_or(text);
    let mut table = String::new();
    let mut key = String::new();
    for line in before.lines() {
        let line = line.trim();
        if let Some(header) = line.strip_prefix("[[").and_then(|l| l.strip_suffix("]]")) {
            table = header.trim().to_string();
            key.clear();
        } else if let Some(header) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            table = header.trim().to_string();
            key.clear();
        } else if let Some((name, _)) = line.split_once('=')
            && !name.trim().is_empty()
            && name
                .trim()
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "_-.\"".contains(c))
        {
            key = name.trim().to_string();
        }
    }
    match (table.is_empty(), key.is_empty()) {
        (true, true) => "(top level)".into(),
        (true, false) => key,
        (false, true) => table,
        (false, false) => format!("{table}.{key}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    const SESSION: &str = "09-session-incarnations.toml";

    fn session_file() -> &'static str {
        crate::bundled::FILES
            .iter()
            .find(|(name, _)| *name == SESSION)
            .map(|(_, text)| *text)
            .expect("the session exercise is bundled")
    }

    #[test]
    fn the_session_exercise_offers_its_working_version() {
        let exercise = Exercise::from_toml(SESSION, session_file()).expect("it loads");
        let offer = exercise.working_version.expect("an offer");
        assert!(
            offer.contains("AND c.incarnation = :incarnation"),
            "{offer}"
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

    /// The session file without finish_session's `start`: every editable
    /// procedure then starts from its reference.
    fn cut_start(file: &str) -> String {
        let from = file.find("start = \"\"\"\n").expect("a start");
        let to = from + file[from..].find("\"\"\"\nreference").expect("its end") + 4;
        format!("{}{}", &file[..from], &file[to..])
    }
}
