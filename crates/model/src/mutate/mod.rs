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
//! Generation is bounded ([`MutantBudget`]): by the mutants generated for
//! one procedure and for one run, and by the bytes of mutant text a run
//! holds. Past any of them it stops and says which ([`OverBudget`]), and the
//! run is an error, never a score: a score of the mutants that happened to
//! come first would be a number about nothing.
//!
//! Pure text work: the schema's columns come in as [`Context`], read by the
//! engine; nothing here runs SQL. Must never panic on any text.

mod operators;
mod report;

pub use report::{
    Counts, ExerciseMutation, Kill, MutantResult, MutantVerdict, StaleEquivalent,
    killed_by_one_only,
};

use crate::procedure::{Position, Procedure};
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// The most mutants generated for one procedure (texts the operators write,
/// dropped ones included). The bundled references give at most a few hundred
/// each; a procedure of 2,000 predicates gave 18,011, which took 7 min 43 s
/// and 582 MB to judge.
pub const MUTANTS_PER_PROCEDURE_MAX: usize = 1_000;
/// The most mutants generated for one run, over every editable procedure.
/// The bundled exercise with the most gives 819 (execution-attempts).
pub const MUTANTS_PER_RUN_MAX: usize = 2_000;
/// The most bytes of mutant text one run holds: each mutant is the whole
/// procedure, so a long procedure reaches this before the counts do.
pub const MUTANT_TEXT_BYTES_MAX: usize = 16 * 1024 * 1024;

/// Which bound of mutant generation was reached.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum MutantLimit {
    /// [`MUTANTS_PER_PROCEDURE_MAX`].
    MutantsPerProcedure,
    /// [`MUTANTS_PER_RUN_MAX`].
    MutantsPerRun,
    /// [`MUTANT_TEXT_BYTES_MAX`].
    MutantTextBytes,
}

impl MutantLimit {
    /// The bound's value.
    pub fn max(self) -> usize {
        match self {
            MutantLimit::MutantsPerProcedure => MUTANTS_PER_PROCEDURE_MAX,
            MutantLimit::MutantsPerRun => MUTANTS_PER_RUN_MAX,
            MutantLimit::MutantTextBytes => MUTANT_TEXT_BYTES_MAX,
        }
    }
}

/// Generation stopped at a bound: which, and in which procedure.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct OverBudget {
    pub limit: MutantLimit,
    pub procedure: String,
}

impl std::fmt::Display for OverBudget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let max = self.limit.max();
        let procedure = crate::text::visible(&self.procedure);
        match self.limit {
            MutantLimit::MutantsPerProcedure => write!(
                f,
                "`{procedure}` gives more than {max} mutants, the limit of mutants per procedure"
            ),
            MutantLimit::MutantsPerRun => write!(
                f,
                "the procedures give more than {max} mutants (reached in `{procedure}`), the \
                 limit of mutants per run"
            ),
            MutantLimit::MutantTextBytes => write!(
                f,
                "the mutants' texts pass {} MiB (reached in `{procedure}`), the limit of bytes \
                 of mutant text",
                max / (1024 * 1024)
            ),
        }?;
        f.write_str(", so no mutant is judged and no score is given")
    }
}

/// What one run of generation may still produce; one budget is shared by
/// every procedure of a run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MutantBudget {
    mutants_left: usize,
    text_bytes_left: usize,
}

impl Default for MutantBudget {
    fn default() -> MutantBudget {
        MutantBudget {
            mutants_left: MUTANTS_PER_RUN_MAX,
            text_bytes_left: MUTANT_TEXT_BYTES_MAX,
        }
    }
}

/// The candidates of one procedure as the operators push them, each
/// counted against the budget; past it, the rest are not kept, and the
/// limit reached is remembered.
pub(crate) struct Candidates {
    list: Vec<Candidate>,
    /// Candidates this procedure may still add, and which bound that is.
    left: usize,
    left_is: MutantLimit,
    text_bytes_left: usize,
    over: Option<MutantLimit>,
}

impl Candidates {
    pub(crate) fn new(budget: &MutantBudget) -> Candidates {
        let (left, left_is) = if budget.mutants_left < MUTANTS_PER_PROCEDURE_MAX {
            (budget.mutants_left, MutantLimit::MutantsPerRun)
        } else {
            (MUTANTS_PER_PROCEDURE_MAX, MutantLimit::MutantsPerProcedure)
        };
        Candidates {
            list: Vec::new(),
            left,
            left_is,
            text_bytes_left: budget.text_bytes_left,
            over: None,
        }
    }

    /// Keeps `candidate` if the budget allows it.
    pub(crate) fn push(&mut self, candidate: Candidate) {
        if self.over.is_some() {
            return;
        }
        if self.left == 0 {
            self.over = Some(self.left_is);
        } else if candidate.text.len() > self.text_bytes_left {
            self.over = Some(MutantLimit::MutantTextBytes);
        } else {
            self.left -= 1;
            self.text_bytes_left -= candidate.text.len();
            self.list.push(candidate);
        }
    }

    /// Whether a bound has been reached: an operator may stop early.
    pub(crate) fn is_over(&self) -> bool {
        self.over.is_some()
    }
}

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
    /// A fence column's assignment (a token, an incarnation, a generation,
    /// an attempt) moved out of the compare-and-set that takes the row into
    /// a later UPDATE keyed by the row alone: a window in which the row is
    /// taken under the previous fence.
    StampLater,
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
            Operator::StampLater => "stamp-later",
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
/// order (by position, then operator, then variant), or the bound of
/// `budget` that generating them reached (what was generated is then
/// dropped). What they cost is taken from `budget`.
pub fn mutants(
    name: &str,
    source: &str,
    context: &Context,
    budget: &mut MutantBudget,
) -> Result<Mutants, OverBudget> {
    let Ok(original) = Procedure::parse(name, source) else {
        return Ok(Mutants::default());
    };
    let mut generated = Candidates::new(budget);
    operators::all(&original, context, &mut generated);
    if let Some(limit) = generated.over {
        return Err(OverBudget {
            limit,
            procedure: name.to_string(),
        });
    }
    budget.mutants_left -= generated.list.len();
    budget.text_bytes_left = generated.text_bytes_left;
    let mut candidates = generated.list;
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
    Ok(out)
}
