//! Where the parts of an exercise or scenario file are: the line of each
//! `[[scenarios]]` table, each of its steps, invariants and its `points`, of each
//! `[[mutants]]` table and each declared equivalent mutant, the schema;
//! and the same of the `[postgres]` table's (whose schema only a PostgreSQL
//! server can try: its error is put here).
//!
//! The loader deserializes scenarios whole, so a problem found after parsing
//! (a step that names no procedure) has no place of its own; this second,
//! lenient reading of the same text finds it, only when an error or a
//! grader's annotation needs one. Must never fail on a text the loader took:
//! anything it cannot place is `None`, and the caller keeps its coarser place.

use serde::Deserialize;
use serde::de::IgnoredAny;
use toml::Spanned;

/// The byte offsets of a file's parts, in file order.
#[derive(Debug, Default)]
pub struct Places {
    scenarios: Vec<ScenarioPlaces>,
    variants: Vec<usize>,
    /// One entry per loaded `Equivalent`: a declaration that names several
    /// mutants (`mutants = [...]`) places each at the declaration.
    equivalents: Vec<usize>,
    /// The `schema` string.
    schema: Option<usize>,
    /// The places of `[postgres]`'s schema, scenarios, mutants and
    /// equivalents.
    postgres: Option<Box<Places>>,
}

#[derive(Debug, Default)]
struct ScenarioPlaces {
    header: usize,
    steps: Vec<usize>,
    invariants: Vec<usize>,
    points: Option<usize>,
}

#[derive(Deserialize)]
struct FileSpans {
    #[serde(default)]
    scenarios: Vec<Spanned<ScenarioSpans>>,
    /// The named broken variants, `[[mutants]]` in the file.
    #[serde(default, rename = "mutants")]
    variants: Vec<Spanned<IgnoredAny>>,
    #[serde(default)]
    equivalent: Vec<Spanned<EquivalentSpans>>,
    #[serde(default)]
    schema: Option<Spanned<IgnoredAny>>,
    /// `[postgres]`, whose lists have the top level's names.
    #[serde(default)]
    postgres: Option<Box<FileSpans>>,
}

#[derive(Deserialize)]
struct ScenarioSpans {
    #[serde(default)]
    steps: Vec<Spanned<IgnoredAny>>,
    #[serde(default)]
    invariants: Vec<Spanned<IgnoredAny>>,
    #[serde(default)]
    points: Option<Spanned<IgnoredAny>>,
}

#[derive(Deserialize)]
struct EquivalentSpans {
    #[serde(default)]
    mutant: Option<IgnoredAny>,
    #[serde(default)]
    mutants: Vec<IgnoredAny>,
}

impl Places {
    /// Reads the places of `text`; a text that does not parse has none.
    pub fn of(text: &str) -> Places {
        match toml::from_str::<FileSpans>(text) {
            Ok(spans) => Places::from_spans(spans),
            Err(_) => Places::default(),
        }
    }

    fn from_spans(spans: FileSpans) -> Places {
        Places {
            scenarios: spans
                .scenarios
                .iter()
                .map(|scenario| ScenarioPlaces {
                    header: scenario.span().start,
                    steps: scenario
                        .get_ref()
                        .steps
                        .iter()
                        .map(|s| s.span().start)
                        .collect(),
                    invariants: scenario
                        .get_ref()
                        .invariants
                        .iter()
                        .map(|i| i.span().start)
                        .collect(),
                    points: scenario.get_ref().points.as_ref().map(|p| p.span().start),
                })
                .collect(),
            variants: spans.variants.iter().map(|m| m.span().start).collect(),
            equivalents: spans
                .equivalent
                .iter()
                .flat_map(|e| {
                    let declared = e.get_ref();
                    let count = usize::from(declared.mutant.is_some()) + declared.mutants.len();
                    std::iter::repeat_n(e.span().start, count)
                })
                .collect(),
            schema: spans.schema.map(|schema| schema.span().start),
            postgres: spans
                .postgres
                .map(|postgres| Box::new(Places::from_spans(*postgres))),
        }
    }

    /// The offset of the `schema` string.
    pub fn schema(&self) -> Option<usize> {
        self.schema
    }

    /// The places of the `[postgres]` table's schema, scenarios, mutants
    /// and equivalents, by their indexes in its lists.
    pub fn postgres(&self) -> Option<&Places> {
        self.postgres.as_deref()
    }

    /// The offset of step `step` of scenario `scenario` (both 0-based).
    pub fn step(&self, scenario: usize, step: usize) -> Option<usize> {
        self.scenarios.get(scenario)?.steps.get(step).copied()
    }

    /// The offset of invariant `invariant` of scenario `scenario` (both
    /// 0-based).
    pub fn invariant(&self, scenario: usize, invariant: usize) -> Option<usize> {
        self.scenarios
            .get(scenario)?
            .invariants
            .get(invariant)
            .copied()
    }

    /// The offset of the step or invariant of scenario `scenario` that
    /// holds the SQL text `field`.
    pub fn sql(&self, scenario: usize, field: crate::scenario::SqlField) -> Option<usize> {
        match field {
            crate::scenario::SqlField::Step { step, .. } => self.step(scenario, step),
            crate::scenario::SqlField::Invariant(invariant) => self.invariant(scenario, invariant),
        }
    }

    /// The offset of scenario `scenario`'s `points` value.
    pub fn points(&self, scenario: usize) -> Option<usize> {
        self.scenarios.get(scenario)?.points
    }

    /// The offset of scenario `scenario`'s table.
    pub fn scenario(&self, scenario: usize) -> Option<usize> {
        self.scenarios.get(scenario).map(|s| s.header)
    }

    /// The offset of the `[[mutants]]` table of named variant `variant`.
    pub fn variant(&self, variant: usize) -> Option<usize> {
        self.variants.get(variant).copied()
    }

    /// The offset of the declaration of the loaded equivalent `equivalent`.
    pub fn equivalent(&self, equivalent: usize) -> Option<usize> {
        self.equivalents.get(equivalent).copied()
    }
}

/// The 1-based line of byte `offset` in `text`.
pub fn line_at(text: &str, offset: usize) -> usize {
    crate::procedure::position_at(text, offset).line as usize
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn each_step_points_and_declaration_has_its_own_line() {
        let text = "\
[[scenarios]]
name = \"a\"
points = 3
steps = [
  { start = \"a\" },
  { clock = 5 },
]
invariants = [{ name = \"i\", sql = \"SELECT 1\" }]

[[mutants]]
name = \"m\"

[[equivalent]]
mutants = [\"x\", \"y\"]
reason = \"r\"
";
        let places = Places::of(text);
        let line = |offset: Option<usize>| offset.map(|o| line_at(text, o));
        assert_eq!(line(places.scenario(0)), Some(1));
        assert_eq!(line(places.points(0)), Some(3));
        assert_eq!(line(places.step(0, 0)), Some(5));
        assert_eq!(line(places.step(0, 1)), Some(6));
        assert_eq!(line(places.step(0, 2)), None);
        assert_eq!(line(places.invariant(0, 0)), Some(8));
        assert_eq!(line(places.invariant(0, 1)), None);
        assert_eq!(line(places.variant(0)), Some(10));
        assert_eq!(line(places.equivalent(1)), Some(13));
        assert_eq!(line(places.equivalent(2)), None);
        assert_eq!(places.scenario(1), None);
        assert!(Places::of("not = [toml").scenario(0).is_none());
        assert_eq!(places.schema(), None);
        assert!(places.postgres().is_none());
    }

    #[test]
    fn the_postgres_tables_parts_have_their_own_places() {
        let text = "\
schema = \"CREATE TABLE t (a)\"

[[scenarios]]
name = \"a\"

[postgres]
schema = \"CREATE TABLE t (a BIGINT)\"

[[postgres.scenarios]]
name = \"a\"
steps = [{ start = \"a\" }]
";
        let places = Places::of(text);
        let line = |offset: Option<usize>| offset.map(|o| line_at(text, o));
        let postgres = places.postgres().expect("the dialect's places");
        assert_eq!(line(places.schema()), Some(1));
        assert_eq!(line(postgres.schema()), Some(7));
        assert_eq!(line(postgres.scenario(0)), Some(9));
        assert_eq!(line(postgres.step(0, 0)), Some(11));
        assert_eq!(line(places.step(0, 0)), None);
    }
}
