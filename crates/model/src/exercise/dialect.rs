//! An exercise's PostgreSQL dialect (`[postgres]` in the file): the texts
//! that differ when the same exercise runs on a PostgreSQL server, and the
//! isolation level its transactions run at.
//!
//! It is data beside the SQLite exercise, never a second exercise: any text
//! it does not give is the SQLite one, the same text. [`Exercise::on_postgres`]
//! puts its texts in place and gives the exercise as PostgreSQL runs it, so
//! an engine checks it with the same machinery as the SQLite one. The
//! loader checks everything in it but its schema, which only a server can
//! try: an error about it belongs at `Places::of(text).postgres()`'s
//! `schema()`, as the SQLite schema's belongs at `Unchecked::schema`.
//!
//! Must never: change what an exercise without a dialect is, on the wire or
//! anywhere else.

use super::{Equivalent, Exercise};
use crate::scenario::Scenario;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;

/// The isolation level a PostgreSQL transaction runs at, in the words an
/// exercise file uses (`isolation = "repeatable read"`). SQLite has no such
/// choice: its runs ignore it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Isolation {
    /// PostgreSQL's default: each statement sees what committed before it
    /// began, and a write that meets a row another transaction changed
    /// waits for it, then reads the row again.
    #[default]
    #[serde(rename = "read committed")]
    ReadCommitted,
    /// The transaction sees one snapshot, taken at its first statement; a
    /// write to a row another transaction changed since is refused
    /// (SQLSTATE 40001).
    #[serde(rename = "repeatable read")]
    RepeatableRead,
    /// As repeatable read, and any outcome no serial order of the
    /// transactions could give is refused (SQLSTATE 40001).
    #[serde(rename = "serializable")]
    Serializable,
}

impl Isolation {
    /// The three levels, weakest first.
    pub const ALL: [Isolation; 3] = [
        Isolation::ReadCommitted,
        Isolation::RepeatableRead,
        Isolation::Serializable,
    ];

    /// The level as an exercise file writes it: `read committed`.
    pub fn word(self) -> &'static str {
        match self {
            Isolation::ReadCommitted => "read committed",
            Isolation::RepeatableRead => "repeatable read",
            Isolation::Serializable => "serializable",
        }
    }

    /// The level as PostgreSQL's SQL spells it, for `SET SESSION
    /// CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL ...`: `READ COMMITTED`.
    pub fn sql(self) -> &'static str {
        match self {
            Isolation::ReadCommitted => "READ COMMITTED",
            Isolation::RepeatableRead => "REPEATABLE READ",
            Isolation::Serializable => "SERIALIZABLE",
        }
    }
}

impl fmt::Display for Isolation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.word())
    }
}

/// An exercise's PostgreSQL texts, loaded from its `[postgres]` table.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Dialect {
    /// PostgreSQL DDL and seed rows, in place of the exercise's schema.
    pub schema: String,
    /// The level every scenario's transactions run at, unless the scenario
    /// names its own (`Scenario::isolation`).
    #[serde(default)]
    pub isolation: Isolation,
    /// Procedures' PostgreSQL texts, by procedure name; a procedure not
    /// named here, or a text not given, is the SQLite one.
    #[serde(default)]
    pub procedures: BTreeMap<String, DialectTexts>,
    /// By a named variant's name (`[[postgres.mutants]]`): its PostgreSQL
    /// replacement texts, by procedure name.
    #[serde(default, rename = "mutants")]
    pub variants: BTreeMap<String, BTreeMap<String, String>>,
    /// The generated mutants of the PostgreSQL texts declared equivalent
    /// (`[[postgres.equivalent]]`): on PostgreSQL they replace the
    /// exercise's list whole, since a mutant's id is a place in its text.
    #[serde(default)]
    pub equivalents: Vec<Equivalent>,
    /// Scenarios as they are on PostgreSQL, each in place of the SQLite
    /// scenario of its name (`[[postgres.scenarios]]`).
    #[serde(default)]
    pub scenarios: Vec<Scenario>,
}

/// One procedure's PostgreSQL texts: each one given replaces the SQLite one.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DialectTexts {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reference: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start: Option<String>,
}

impl Dialect {
    /// The level `scenario` runs at on PostgreSQL: its own, else the
    /// dialect's.
    pub fn isolation_for(&self, scenario: &Scenario) -> Isolation {
        scenario.isolation.unwrap_or(self.isolation)
    }
}

impl Exercise {
    /// The exercise as PostgreSQL runs it, or `None` when it is SQLite
    /// only: the dialect's schema; each procedure's reference and start
    /// replaced where the dialect gives them (a start not given stays the
    /// SQLite start, unless that was the reference: then it is the
    /// PostgreSQL reference); each named variant's texts replaced (or
    /// added) where given; each scenario replaced by the dialect's of its
    /// name, and given its isolation level ([`Exercise::isolation_for`]);
    /// the equivalents replaced by the dialect's list. Everything else is
    /// kept, and the result has no dialect of its own.
    pub fn on_postgres(&self) -> Option<Exercise> {
        let mut exercise = self.clone();
        let dialect = exercise.postgres.take()?;
        exercise.schema = dialect.schema.clone();
        for procedure in &mut exercise.procedures {
            let Some(texts) = dialect.procedures.get(&procedure.name) else {
                continue;
            };
            let starts_from_reference = procedure.start == procedure.reference;
            if let Some(reference) = &texts.reference {
                procedure.reference.clone_from(reference);
            }
            match &texts.start {
                Some(start) => procedure.start.clone_from(start),
                None if starts_from_reference => procedure.start.clone_from(&procedure.reference),
                None => {}
            }
        }
        for variant in &mut exercise.variants {
            if let Some(texts) = dialect.variants.get(&variant.name) {
                variant.procedures.extend(texts.clone());
            }
        }
        for scenario in &mut exercise.scenarios {
            if let Some(own) = dialect.scenarios.iter().find(|s| s.name == scenario.name) {
                scenario.clone_from(own);
            }
            scenario.isolation = Some(dialect.isolation_for(scenario));
        }
        exercise.equivalents = dialect.equivalents;
        Some(exercise)
    }

    /// The level `scenario` runs at on PostgreSQL: its own `isolation`,
    /// else the exercise's dialect's, else read committed. On the exercise
    /// [`Exercise::on_postgres`] gives, each of its scenarios carries its
    /// level; a scenario from elsewhere (a scenario file) is asked of the
    /// exercise before it was derived, which still has its dialect.
    pub fn isolation_for(&self, scenario: &Scenario) -> Isolation {
        match &self.postgres {
            Some(dialect) => dialect.isolation_for(scenario),
            None => scenario.isolation.unwrap_or_default(),
        }
    }
}

#[cfg(all(test, feature = "toml"))]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    /// An exercise without a dialect is on the wire as it was before
    /// dialects: no `postgres`, and no scenario with an `isolation`. One
    /// with a dialect (the lesson "Same fence, another database", and the
    /// dialects of earlier exercises) carries it, and reads back the same.
    #[test]
    fn the_bundled_exercises_json_names_a_dialect_only_where_they_have_one() {
        let mut with_dialect = 0;
        for exercise in crate::bundled::catalog().expect("the bundled exercises load") {
            let json = serde_json::to_value(&exercise).expect("written");
            let object = json.as_object().expect("an object");
            if exercise.postgres.is_some() {
                with_dialect += 1;
                assert!(object.contains_key("postgres"), "{}", exercise.id);
            } else {
                assert!(!object.contains_key("postgres"), "{}", exercise.id);
                for scenario in json["scenarios"].as_array().expect("scenarios") {
                    assert!(scenario.get("isolation").is_none(), "{}", exercise.id);
                }
            }
            let read: Exercise = serde_json::from_value(json).expect("read");
            assert_eq!(read, exercise);
        }
        assert!(with_dialect > 0, "no bundled exercise has a dialect");
    }

    #[test]
    fn each_level_is_read_by_its_word() {
        for level in Isolation::ALL {
            let json = serde_json::to_string(&level).expect("written");
            assert_eq!(json, format!("\"{}\"", level.word()));
            assert_eq!(serde_json::from_str::<Isolation>(&json).ok(), Some(level));
            assert_eq!(level.sql(), level.word().to_uppercase());
        }
        assert_eq!(Isolation::default(), Isolation::ReadCommitted);
    }
}
