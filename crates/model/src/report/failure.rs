//! Why a scenario failed: a [`Failure`] holds its [`FailureCause`] as data
//! where the check ran, and its kind and sentence once read back from JSON;
//! the sentences of rows that break an expectation are made here.

use super::said::{self, DataJson, Said, TagRead};
use crate::monitor::Violation;
use crate::scenario::Mismatch;
use crate::value::Value;
use serde::{Deserialize, Serialize};
use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FailureKind {
    Expectation,
    Invariant,
    Deadlock,
}

/// What broke, as data.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum FailureCause {
    /// A general or scenario invariant broke.
    Invariant { violation: Violation },
    /// A call's outcome was not what the scenario expects.
    Expectation {
        process: String,
        procedure: String,
        mismatch: Mismatch,
    },
    /// A `query` step returned other rows than the scenario expects.
    QueryRows {
        sql: String,
        expected: Vec<Vec<Value>>,
        got: Vec<Vec<Value>>,
        /// The columns of `got`, which a sentence names.
        #[serde(default)]
        columns: Vec<String>,
        /// What the query checks, in the exercise's words (the step's
        /// `checks`): the sentence then says it instead of the SQL.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        checks: Option<String>,
    },
    /// Every process of a concurrent section waits for a lock another holds.
    Deadlock { processes: Vec<String> },
}

impl said::Tagged for FailureCause {
    type Tag = CauseTag;

    fn tag(&self) -> CauseTag {
        match self {
            FailureCause::Invariant { .. } => CauseTag::Invariant,
            FailureCause::Expectation { .. } => CauseTag::Expectation,
            FailureCause::QueryRows { .. } => CauseTag::QueryRows,
            FailureCause::Deadlock { .. } => CauseTag::Deadlock,
        }
    }
}

impl fmt::Display for FailureCause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FailureCause::Invariant { violation } => write!(f, "{violation}"),
            FailureCause::Expectation {
                process,
                procedure,
                mismatch,
            } => write!(f, "{process}'s {procedure}: {mismatch}"),
            FailureCause::QueryRows {
                checks: Some(checks),
                expected,
                got,
                columns,
                ..
            } if expected.is_empty() => write!(f, "{checks}: {}", violated_by(columns, got)),
            FailureCause::QueryRows {
                checks: Some(checks),
                expected,
                got,
                ..
            } => write!(
                f,
                "{checks}: expected {}, found {}",
                show_rows(expected),
                show_rows(got)
            ),
            FailureCause::QueryRows {
                sql,
                expected,
                got,
                checks: None,
                ..
            } => write!(
                f,
                "`{sql}` returned {}, expected {}",
                show_rows(got),
                show_rows(expected)
            ),
            FailureCause::Deadlock { processes } => write!(
                f,
                "deadlock: {} each wait for a lock another holds",
                processes.join(" and ")
            ),
        }
    }
}

/// A [`FailureCause`]'s kind, as its JSON tag names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(super) enum CauseTag {
    Invariant,
    Expectation,
    QueryRows,
    Deadlock,
}

/// Why a scenario failed, and after which history event it was seen: the
/// cause as data where the check ran; read back from JSON, its kind and
/// sentence only (said.rs says why). Two failures are equal when they say
/// the same thing after the same event; compare [`Failure::cause`] for the
/// data.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(into = "FailureJson", from = "FailureRead")]
pub struct Failure {
    said: Said<FailureCause, CauseTag>,
    /// The index of the history event after which it was detected.
    pub event_index: Option<usize>,
}

/// A failure as JSON: its cause and its sentence, for readers without this
/// crate (a CI job reading `fencelab run --json`) and for the page.
#[derive(Serialize)]
struct FailureJson {
    cause: DataJson<FailureCause, CauseTag>,
    event_index: Option<usize>,
    message: String,
}

/// A failure as a reader takes it from JSON: of the cause, only its tag.
#[derive(Deserialize)]
struct FailureRead {
    cause: TagRead<CauseTag>,
    event_index: Option<usize>,
    message: String,
}

impl From<Failure> for FailureJson {
    fn from(failure: Failure) -> FailureJson {
        FailureJson {
            message: failure.message(),
            cause: failure.said.into_json(),
            event_index: failure.event_index,
        }
    }
}

impl From<FailureRead> for Failure {
    fn from(json: FailureRead) -> Failure {
        Failure {
            said: Said::Words {
                tag: json.cause.kind,
                message: json.message,
            },
            event_index: json.event_index,
        }
    }
}

impl Failure {
    pub fn new(cause: FailureCause, event_index: Option<usize>) -> Failure {
        Failure {
            said: Said::Data(Box::new(cause)),
            event_index,
        }
    }

    /// The cause as data: `None` for a failure read from JSON.
    pub fn cause(&self) -> Option<&FailureCause> {
        self.said.data()
    }

    pub fn kind(&self) -> FailureKind {
        match self.said.tag() {
            CauseTag::Invariant => FailureKind::Invariant,
            CauseTag::Expectation | CauseTag::QueryRows => FailureKind::Expectation,
            CauseTag::Deadlock => FailureKind::Deadlock,
        }
    }

    /// The sentence shown to learners.
    pub fn message(&self) -> String {
        self.to_string()
    }
}

impl PartialEq for Failure {
    fn eq(&self, other: &Failure) -> bool {
        self.event_index == other.event_index
            && self.said.tag() == other.said.tag()
            && self.message() == other.message()
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.said {
            Said::Data(cause) => cause.fmt(f),
            Said::Words { message, .. } => f.write_str(message),
        }
    }
}

/// `violated by seq = 4, generation = 1`: what an invariant (a
/// scenario's, or a `query` that expects no rows) says of the first row
/// that broke it, each value by its column's name, as a call's values are
/// shown; `(and 2 more rows)` after it when there are others.
pub fn violated_by(columns: &[String], rows: &[Vec<Value>]) -> String {
    let Some(first) = rows.first() else {
        return "violated".into();
    };
    let cells: Vec<String> = first
        .iter()
        .enumerate()
        .map(|(i, value)| match columns.get(i) {
            // A column named by an expression (`'m-1'`, `count(*)`) has no
            // name a reader would say: its value stands alone.
            Some(column) if is_name(column) => format!("{column} = {value}"),
            _ => value.to_string(),
        })
        .collect();
    let more = match rows.len() - 1 {
        0 => String::new(),
        1 => " (and 1 more row)".into(),
        n => format!(" (and {n} more rows)"),
    };
    format!("violated by {}{more}", cells.join(", "))
}

/// A column name as a reader would say it: letters, digits and `_`.
fn is_name(column: &str) -> bool {
    !column.is_empty() && column.chars().all(|c| c.is_alphanumeric() || c == '_')
}

/// `[(1, 'a'), (2, 'b')]`.
pub fn show_rows(rows: &[Vec<Value>]) -> String {
    let shown: Vec<String> = rows
        .iter()
        .map(|row| {
            let cells: Vec<String> = row.iter().map(Value::to_string).collect();
            format!("({})", cells.join(", "))
        })
        .collect();
    format!("[{}]", shown.join(", "))
}

#[cfg(all(test, feature = "toml"))]
mod tests {
    use super::*;
    use crate::report::fixtures::failed;

    /// A reader keeps a failure's kind, sentence and event, not the cause's
    /// data, and writes what it kept so that it reads back the same.
    #[test]
    fn a_failure_read_from_json_keeps_its_kind_sentence_and_event() {
        let rows = Failure::new(
            FailureCause::QueryRows {
                sql: "SELECT n FROM t".into(),
                expected: vec![vec![Value::Integer(1)]],
                got: vec![],
                columns: vec!["n".into()],
                checks: None,
            },
            Some(2),
        );
        let deadlock = failed("one").failure().cloned().expect("a failure");
        for (failure, kind, sentence) in [
            (
                rows,
                FailureKind::Expectation,
                "`SELECT n FROM t` returned [], expected [(1)]",
            ),
            (
                deadlock,
                FailureKind::Deadlock,
                "deadlock: proc-1 and proc-2 each wait for a lock another holds",
            ),
        ] {
            let json = serde_json::to_value(&failure).expect("serializes");
            assert_eq!(json["message"], sentence, "{json}");
            let read: Failure = serde_json::from_value(json).expect("reads");
            assert!(failure.cause().is_some());
            assert_eq!(read.cause(), None);
            assert_eq!(read.kind(), kind);
            assert_eq!(read.to_string(), sentence);
            assert_eq!(read.event_index, failure.event_index);
            assert_eq!(read, failure);
            let again = serde_json::to_string(&read).expect("serializes");
            assert_eq!(serde_json::from_str::<Failure>(&again).ok(), Some(read));
        }
        let other = Failure::new(
            FailureCause::Deadlock {
                processes: vec!["proc-1".into(), "proc-3".into()],
            },
            Some(3),
        );
        assert_ne!(failed("one").failure(), Some(&other));
    }

    #[test]
    fn a_violation_names_each_value_by_its_column_where_the_column_has_a_name() {
        let rows = vec![
            vec![Value::Integer(4), Value::Text("m-1".into())],
            vec![Value::Integer(5), Value::Text("m-2".into())],
        ];
        let columns = ["seq".to_string(), "'m-1'".to_string()];
        assert_eq!(
            violated_by(&columns, &rows),
            "violated by seq = 4, 'm-1' (and 1 more row)"
        );
        assert_eq!(
            violated_by(&columns, &rows[..1]),
            "violated by seq = 4, 'm-1'"
        );
    }
}
