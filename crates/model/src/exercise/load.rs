//! The loader: an exercise file's text to a validated [`Exercise`], one
//! function per section of the file, run in the file's order of checks
//! (size, TOML, format and id, constants, names, procedures and their
//! order, belief and effect rules, scenarios, mutants, equivalents, the
//! working version, the schema, then the `[postgres]` dialect, checked by
//! the same rules in postgres.rs). The first problem found is the error,
//! placed at its line and named by its field.
//!
//! Must never: accept a file whose checks fail, or report a problem
//! without the file, line and field it is about.

use super::file::{EquivalentFile, File, field_of};
use super::{
    EXERCISE_FILE_BYTES_MAX, Equivalent, Exercise, FORMAT_VERSION, FilePlace, LoadError, Places,
    ProcedureSpec, Rules, Unchecked, Variant,
};
use crate::monitor::template_names;
use crate::procedure::Procedure;
use crate::prose::{Narrative, SafeHtml};
use crate::scenario::{Scenario, StepSpec};
use std::ops::Range;

mod postgres;

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
        self.place(span.start).error(field, message)
    }

    /// The file, line and column of byte `at`.
    fn place(&self, at: usize) -> FilePlace {
        let position = crate::procedure::position_at(self.text, at);
        FilePlace {
            file: self.file.to_string(),
            line: position.line as usize,
            column: position.column as usize,
        }
    }

    /// An error inside a procedure text, placed at its line in the file.
    fn procedure_error(
        &self,
        span: Range<usize>,
        field: &str,
        error: &crate::procedure::ParseError,
    ) -> LoadError {
        self.text_error(span, field, error.position, error.message.clone())
    }

    /// An error at `position` inside the string value spanning `span` (an
    /// SQL text), placed at its line in the file.
    fn text_error(
        &self,
        span: Range<usize>,
        field: &str,
        position: crate::procedure::Position,
        message: String,
    ) -> LoadError {
        let start = crate::procedure::position_at(self.text, span.start);
        // A multi-line string opens with `"""` and a newline that TOML drops.
        let opens_with_newline = self.text[span.start..].starts_with("\"\"\"\n")
            || self.text[span.start..].starts_with("'''\n");
        let line =
            start.line as usize + position.line as usize - 1 + usize::from(opens_with_newline);
        LoadError {
            file: self.file.to_string(),
            line,
            column: position.column as usize,
            field: field.to_string(),
            message,
        }
    }

    /// Refuses an SQL text that holds a character SQL cannot contain, by
    /// the rule procedures are parsed with, placed at that character's line.
    fn sql_characters(&self, text: &toml::Spanned<String>, field: &str) -> Result<(), LoadError> {
        crate::procedure::sql_characters(text.get_ref()).map_err(|(offset, message)| {
            let position = crate::procedure::position_at(text.get_ref(), offset);
            self.text_error(text.span(), field, position, message)
        })
    }
}

impl Exercise {
    /// Reads and validates an exercise file: everything but its schema,
    /// which only SQLite can try (`fencelab_core::exercise::load` does both).
    /// `file` names the file in errors.
    pub fn from_toml(file: &str, text: &str) -> Result<Exercise, LoadError> {
        Exercise::from_toml_unchecked(file, text).map(|unchecked| unchecked.exercise)
    }

    /// As [`Exercise::from_toml`], then `check_schema` tries the loaded
    /// exercise's schema; its message is reported at the schema's place in
    /// the file.
    pub fn from_toml_checked(
        file: &str,
        text: &str,
        check_schema: impl FnOnce(&Exercise) -> Result<(), String>,
    ) -> Result<Exercise, LoadError> {
        let Unchecked { exercise, schema } = Exercise::from_toml_unchecked(file, text)?;
        check_schema(&exercise).map_err(|message| schema.error("schema", message))?;
        Ok(exercise)
    }

    /// As [`Exercise::from_toml`], with the place where an error about the
    /// schema belongs, for whoever tries it on SQLite later.
    pub fn from_toml_unchecked(file: &str, text: &str) -> Result<Unchecked, LoadError> {
        let source = Source { file, text };
        let parsed = parse(&source)?;
        let id = check_id(&source, &parsed)?;
        check_constants(&source, &parsed)?;
        source.plain_name(0..0, "title", &parsed.title)?;
        source.plain_name(0..0, "lesson", &parsed.lesson)?;
        let procedures = load_procedures(&source, &parsed)?;
        check_rules(&source, &parsed, &procedures)?;
        let scenarios = load_scenarios(&source, &parsed.scenarios, Part::Sqlite, &procedures)?;
        if scenarios.is_empty() {
            return Err(source.error(0..0, "scenarios", "an exercise needs at least one scenario"));
        }
        let variants = load_variants(&source, &parsed, &procedures)?;
        let equivalents = load_equivalents(&source, &parsed.equivalent, Part::Sqlite)?;
        let working_version = load_working_version(&source, &parsed, &procedures)?;
        source.sql_characters(&parsed.schema, "schema")?;
        let sqlite = postgres::Sqlite {
            procedures: &procedures,
            scenarios: &scenarios,
            variants: &variants,
        };
        let postgres = parsed
            .postgres
            .as_ref()
            .map(|dialect| postgres::load(&source, dialect, &sqlite))
            .transpose()?;
        let schema_span = parsed.schema.span();
        let exercise = Exercise {
            id,
            title: parsed.title,
            lesson: parsed.lesson,
            narrative: Narrative::render(&parsed.narrative),
            schema: parsed.schema.into_inner(),
            journal: parsed.journal,
            constants: parsed
                .constants
                .map(toml::Spanned::into_inner)
                .unwrap_or_default(),
            procedures,
            hints: parsed
                .hints
                .iter()
                .map(|hint| SafeHtml::inline(hint))
                .collect(),
            working_version,
            rules: Rules {
                beliefs: parsed.beliefs.into_iter().map(|r| r.into_inner()).collect(),
                effects: parsed.effects.into_iter().map(|r| r.into_inner()).collect(),
            },
            scenarios,
            variants,
            equivalents,
            postgres,
        };
        Ok(Unchecked {
            exercise,
            schema: source.place(schema_span.start),
        })
    }
}

/// The file's text as TOML, within its size bound and of this build's
/// format.
fn parse(source: &Source) -> Result<File, LoadError> {
    let text = source.text;
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
    Ok(parsed)
}

/// The exercise's id: lowercase letters, digits and dashes.
fn check_id(source: &Source, parsed: &File) -> Result<String, LoadError> {
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
    Ok(id)
}

/// A constant may not take a built-in's name: `now` would replace the fake
/// clock.
fn check_constants(source: &Source, parsed: &File) -> Result<(), LoadError> {
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
    Ok(())
}

/// The procedures, each reference parsed and each start allowed only on an
/// editable one; at least one editable; in the order the file asks.
fn load_procedures(source: &Source, parsed: &File) -> Result<Vec<ProcedureSpec>, LoadError> {
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
                // A starting text is parsed when a learner's check runs it;
                // what no SQL may hold is refused now, where the author is.
                source.sql_characters(start, &format!("procedures.{name}.start"))?;
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
    Ok(procedures)
}

fn known(procedures: &[ProcedureSpec], name: &str) -> bool {
    procedures.iter().any(|p| p.name == name)
}

/// The belief rules name procedures there are, and every template of a
/// belief or an effect rule reads.
fn check_rules(
    source: &Source,
    parsed: &File,
    procedures: &[ProcedureSpec],
) -> Result<(), LoadError> {
    for (i, rule) in parsed.beliefs.iter().enumerate() {
        if !known(procedures, &rule.get_ref().procedure) {
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
    Ok(())
}

/// Which part of the file a list is read from: the top level (SQLite's)
/// or the `[postgres]` table, whose lists have the same names. It names
/// their fields and finds their places.
#[derive(Clone, Copy)]
enum Part {
    Sqlite,
    Postgres,
}

impl Part {
    /// The path of the list `name` in this part: `scenarios`,
    /// `postgres.scenarios`.
    fn field(self, name: &str) -> String {
        match self {
            Part::Sqlite => name.to_string(),
            Part::Postgres => format!("postgres.{name}"),
        }
    }

    /// The places of this part's lists, among a file's.
    fn places(self, places: &Places) -> Option<&Places> {
        match self {
            Part::Sqlite => Some(places),
            Part::Postgres => places.postgres(),
        }
    }
}

/// Scenarios: names plain and unique, points in bounds, every step a step
/// that names procedures there are.
fn load_scenarios(
    source: &Source,
    list: &[toml::Spanned<Scenario>],
    part: Part,
    procedures: &[ProcedureSpec],
) -> Result<Vec<Scenario>, LoadError> {
    // Read again only when an error needs the place of a step.
    let places = std::cell::OnceCell::new();
    let places = || part.places(places.get_or_init(|| Places::of(source.text)));
    let mut scenarios: Vec<Scenario> = Vec::new();
    for (i, spanned) in list.iter().enumerate() {
        let scenario = spanned.get_ref();
        let field = format!("{}[{i}]", part.field("scenarios"));
        let named = Named::of(spanned.span(), &field, &scenario.name);
        named.unique(
            source,
            "scenario",
            scenarios.iter().map(|s| s.name.as_str()),
        )?;
        if let Some(problem) = scenario.points_problem() {
            let at = places()
                .and_then(|p| p.points(i))
                .unwrap_or(spanned.span().start);
            return Err(source.error(at..at, &format!("{field}.points"), problem));
        }
        // A step's problem is placed at the step, not at its scenario's
        // header: a scenario of twenty steps is a long way to look.
        let step_span = |j: usize| {
            let at = places()
                .and_then(|p| p.step(i, j))
                .unwrap_or(spanned.span().start);
            at..at
        };
        for (j, step) in scenario.steps.iter().enumerate() {
            let place = StepPlace {
                field: format!("{field}.steps[{j}]"),
                scenario: spanned.span(),
                step: &|| step_span(j),
            };
            check_step(source, &place, step, procedures)?;
        }
        if let Some(problem) = scenario.sql_character_problem() {
            let at = places()
                .and_then(|p| p.sql(i, problem.field))
                .unwrap_or(spanned.span().start);
            return Err(source.error(
                at..at,
                &format!("{field}.{}", problem.field),
                problem.sentence(),
            ));
        }
        scenarios.push(scenario.clone());
    }
    Ok(scenarios)
}

/// Where a step's problems are reported: its field, its scenario's span
/// (for its names) and its own place, found only when an error needs it.
struct StepPlace<'a> {
    field: String,
    scenario: Range<usize>,
    step: &'a dyn Fn() -> Range<usize>,
}

/// One step: its names plain, its action one a scenario can take, and
/// every procedure it calls or begins one there is.
fn check_step(
    source: &Source,
    place: &StepPlace<'_>,
    step: &StepSpec,
    procedures: &[ProcedureSpec],
) -> Result<(), LoadError> {
    for name in [&step.start, &step.actor].into_iter().flatten() {
        source.plain_name(place.scenario.clone(), &place.field, name)?;
    }
    step.to_action()
        .map_err(|wrong| source.error((place.step)(), &place.field, wrong.to_string()))?;
    let named = [&step.call, &step.begin].into_iter().flatten().chain(
        step.concurrent
            .iter()
            .flatten()
            .filter_map(|c| c.call.as_ref()),
    );
    for procedure in named {
        if !known(procedures, procedure) {
            return Err(source.error(
                (place.step)(),
                &place.field,
                format!("there is no procedure named `{procedure}`"),
            ));
        }
    }
    Ok(())
}

/// The named broken variants: names plain and unique, each replacing at
/// least one procedure there is with a text that parses.
fn load_variants(
    source: &Source,
    parsed: &File,
    procedures: &[ProcedureSpec],
) -> Result<Vec<Variant>, LoadError> {
    let mut variants: Vec<Variant> = Vec::new();
    for (i, spanned) in parsed.variants.iter().enumerate() {
        let variant = spanned.get_ref();
        let field = format!("mutants[{i}]");
        let named = Named::of(spanned.span(), &field, &variant.name);
        named.unique(source, "mutant", variants.iter().map(|v| v.name.as_str()))?;
        let texts = replacement_texts(source, &named, &field, &variant.procedures, procedures)?;
        variants.push(Variant {
            name: variant.name.clone(),
            explanation: variant.explanation.clone(),
            procedures: texts,
        });
    }
    Ok(variants)
}

/// A name a list's entry goes by (a scenario's, a mutant's), where it is
/// written: the entry's span, and its `name` field's path.
struct Named<'a> {
    span: Range<usize>,
    field: String,
    name: &'a str,
}

impl<'a> Named<'a> {
    /// The name `name` of the entry `entry` (`mutants[2]`) spanning `span`.
    fn of(span: Range<usize>, entry: &str, name: &'a str) -> Named<'a> {
        Named {
            span,
            field: format!("{entry}.name"),
            name,
        }
    }

    /// Refuses the name unless it is plain and not among `taken`, the
    /// names of the list's entries before it; `what` the list holds.
    fn unique<'t>(
        &self,
        source: &Source,
        what: &str,
        mut taken: impl Iterator<Item = &'t str>,
    ) -> Result<(), LoadError> {
        source.plain_name(self.span.clone(), &self.field, self.name)?;
        if taken.any(|name| name == self.name) {
            return Err(source.error(
                self.span.clone(),
                &self.field,
                format!("a second {what} is named `{}`", self.name),
            ));
        }
        Ok(())
    }
}

/// A named variant's texts (`procedures` of the variant `variant`, whose
/// field is `field`): at least one, each replacing a procedure there is
/// with a text that parses.
fn replacement_texts(
    source: &Source,
    variant: &Named<'_>,
    field: &str,
    texts: &std::collections::BTreeMap<String, toml::Spanned<String>>,
    procedures: &[ProcedureSpec],
) -> Result<std::collections::BTreeMap<String, String>, LoadError> {
    if texts.is_empty() {
        return Err(source.error(
            variant.span.clone(),
            &format!("{field}.procedures"),
            "a mutant replaces at least one procedure",
        ));
    }
    let mut replacements = std::collections::BTreeMap::new();
    for (name, text) in texts {
        let field = format!("{field}.procedures.{name}");
        if !known(procedures, name) {
            return Err(source.error(
                text.span(),
                &field,
                format!("there is no procedure named `{name}`"),
            ));
        }
        Procedure::parse(name, text.get_ref())
            .map_err(|e| source.procedure_error(text.span(), &field, &e))?;
        replacements.insert(name.clone(), text.get_ref().clone());
    }
    Ok(replacements)
}

/// The generated mutants declared equivalent: each with a reason, each
/// declared once; a declaration naming several becomes one each.
fn load_equivalents(
    source: &Source,
    list: &[toml::Spanned<EquivalentFile>],
    part: Part,
) -> Result<Vec<Equivalent>, LoadError> {
    let mut equivalents: Vec<Equivalent> = Vec::new();
    for (i, spanned) in list.iter().enumerate() {
        let declared = spanned.get_ref();
        let field = format!("{}[{i}]", part.field("equivalent"));
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
    Ok(equivalents)
}

/// The offer to start from the working version: a sentence, on an
/// exercise where some editable procedure starts from another text.
fn load_working_version(
    source: &Source,
    parsed: &File,
    procedures: &[ProcedureSpec],
) -> Result<Option<SafeHtml>, LoadError> {
    match &parsed.working_version {
        Some(spanned) if spanned.get_ref().trim().is_empty() => Err(source.error(
            spanned.span(),
            "working_version",
            "say in a sentence what the learner does from the working version",
        )),
        Some(spanned)
            if procedures
                .iter()
                .all(|p| !p.editable || p.start == p.reference) =>
        {
            Err(source.error(
                spanned.span(),
                "working_version",
                "every editable procedure already starts from its reference",
            ))
        }
        Some(spanned) => Ok(Some(SafeHtml::inline(spanned.get_ref()))),
        None => Ok(None),
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
