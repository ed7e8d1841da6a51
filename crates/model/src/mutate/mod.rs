//! Mutation operators over procedures: plausible one-place bugs, generated
//! from a procedure's text, so a scenario suite can be measured by the bugs
//! it catches ("every line of a fence earns its place").
//!
//! Each operator reads the procedure through the one SQL lexer and writes a
//! new text that differs from the original in one place. A mutant has a
//! stable id (procedure, line and column of the change, operator, variant),
//! so an exercise can declare one equivalent by id, and a one-line
//! description a learner can read ("drop `AND state = 'NEW'` from the
//! WHERE"). Mutants whose text does not parse as a procedure, or equals the
//! original's or an earlier mutant's, are dropped and counted.
//!
//! Pure text work: the schema's columns come in as [`Context`], read by the
//! engine; nothing here runs SQL. Must never panic on any text.

mod operators;
mod report;

pub use report::{Counts, ExerciseMutation, Kill, MutantResult, MutantVerdict};

use crate::procedure::{Position, Procedure};
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// The families of mutation operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Operator {
    /// Drop one conjunct of a WHERE, ON, CASE WHEN or JOIN condition (the
    /// whole WHERE when it has one).
    DropConjunct,
    /// Negate a whole condition: `WHERE NOT (...)`.
    NegateCondition,
    /// Replace a comparison operator by another (`=`, `<>`, `<`, `<=`, `>`,
    /// `>=`, `IS`, `IS NOT`).
    SwapComparison,
    /// `x + n` becomes `x` (also `x - n`).
    DropAddend,
    /// An integer literal or an exercise constant, one more or one less.
    ShiftConstant,
    /// A `:parameter` replaced by another parameter in scope.
    SwapParameter,
    /// A column in a predicate replaced by another column of the same table
    /// with the same declared type.
    SwapColumn,
    /// Remove the BEGIN / COMMIT pair.
    DropTransaction,
    /// `BEGIN IMMEDIATE` (or EXCLUSIVE) weakened to `BEGIN`.
    WeakenBegin,
    /// The first or last statement of a transaction moved out of it.
    MoveOutOfTransaction,
    /// An UPDATE that sets several columns split into two UPDATEs with the
    /// same WHERE: a split critical region.
    SplitWrite,
    /// Drop one `-- @refuse` line.
    DropRefusal,
    /// `unless` becomes `if`, or `if` becomes `unless`, in a decision.
    FlipDecision,
    /// The count a decision compares, one more or one less.
    ShiftDecisionCount,
    /// Delete one statement, with the decisions that judge it (never a
    /// BEGIN, COMMIT or ROLLBACK: `DropTransaction` covers those).
    DeleteStatement,
    /// Swap two adjacent statements, each with its decisions.
    SwapStatements,
    /// Drop one assignment of an upsert's `DO UPDATE SET`.
    DropUpsertAssignment,
    /// An upsert's `DO UPDATE` becomes `DO NOTHING`.
    UpsertDoNothing,
}

impl Operator {
    /// The kebab-case name used in mutant ids (`drop-conjunct`).
    pub fn name(self) -> &'static str {
        match self {
            Operator::DropConjunct => "drop-conjunct",
            Operator::NegateCondition => "negate-condition",
            Operator::SwapComparison => "swap-comparison",
            Operator::DropAddend => "drop-addend",
            Operator::ShiftConstant => "shift-constant",
            Operator::SwapParameter => "swap-parameter",
            Operator::SwapColumn => "swap-column",
            Operator::DropTransaction => "drop-transaction",
            Operator::WeakenBegin => "weaken-begin",
            Operator::MoveOutOfTransaction => "move-out-of-transaction",
            Operator::SplitWrite => "split-write",
            Operator::DropRefusal => "drop-refusal",
            Operator::FlipDecision => "flip-decision",
            Operator::ShiftDecisionCount => "shift-decision-count",
            Operator::DeleteStatement => "delete-statement",
            Operator::SwapStatements => "swap-statements",
            Operator::DropUpsertAssignment => "drop-upsert-assignment",
            Operator::UpsertDoNothing => "upsert-do-nothing",
        }
    }
}

/// One exercise table's columns and their declared types, for the column
/// operator. The engine reads them from SQLite (`PRAGMA table_info`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableColumns {
    pub table: String,
    /// (column, declared type as written, upper-cased; empty when none).
    pub columns: Vec<(String, String)>,
}

/// What the operators may know beyond the procedure's own text.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Context {
    pub tables: Vec<TableColumns>,
    /// The exercise's constants (`:lease_seconds`), which `ShiftConstant`
    /// shifts like literals.
    pub constants: Vec<String>,
}

/// One generated mutant of one procedure.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mutant {
    /// Stable: `PROCEDURE:LINE:COLUMN:OPERATOR[:VARIANT]`, such as
    /// `claim:4:38:drop-conjunct` or `claim:4:31:swap-comparison:<>`.
    pub id: String,
    pub operator: Operator,
    pub procedure: String,
    /// Where the change is, in the original text.
    pub position: Position,
    /// One line a learner can read: "drop `AND state = 'NEW'` from the WHERE".
    pub description: String,
    /// The whole mutated procedure text.
    pub text: String,
}

/// The mutants of one procedure, and what was dropped.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mutants {
    pub mutants: Vec<Mutant>,
    /// Generated texts that do not parse as a procedure.
    pub dropped_unparsable: usize,
    /// Generated texts equal to the original or to an earlier mutant.
    pub dropped_duplicate: usize,
}

/// A mutant before it is checked: what an operator writes.
pub(crate) struct Candidate {
    pub(crate) operator: Operator,
    /// Byte offset of the change in the original text.
    pub(crate) offset: usize,
    /// Distinguishes several mutants of one operator at one place (the
    /// replacement operator, the parameter swapped in, `+1` / `-1`).
    pub(crate) variant: Option<String>,
    pub(crate) description: String,
    pub(crate) text: String,
}

/// Every mutant of the procedure `name` with text `source`, in a stable
/// order (by position, then operator, then variant).
pub fn mutants(name: &str, source: &str, context: &Context) -> Mutants {
    let Ok(original) = Procedure::parse(name, source) else {
        return Mutants::default();
    };
    let mut candidates = operators::all(&original, context);
    candidates.sort_by(|a, b| {
        (a.offset, a.operator, &a.variant).cmp(&(b.offset, b.operator, &b.variant))
    });
    let mut seen: BTreeSet<String> = BTreeSet::new();
    seen.insert(source.to_string());
    let mut out = Mutants::default();
    for candidate in candidates {
        if !seen.insert(candidate.text.clone()) {
            out.dropped_duplicate += 1;
            continue;
        }
        if Procedure::parse(name, &candidate.text).is_err() {
            out.dropped_unparsable += 1;
            continue;
        }
        let position = crate::procedure::position_at(source, candidate.offset);
        let mut id = format!(
            "{name}:{}:{}:{}",
            position.line,
            position.column,
            candidate.operator.name()
        );
        if let Some(variant) = &candidate.variant {
            id.push(':');
            id.push_str(variant);
        }
        out.mutants.push(Mutant {
            id,
            operator: candidate.operator,
            procedure: name.to_string(),
            position,
            description: candidate.description,
            text: candidate.text,
        });
    }
    out
}
