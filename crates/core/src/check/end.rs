//! How a run ends ([`End`]), and the ends that the interpreter
//! (`run.rs`) and the depth-first search (`explore.rs`) both stop a run
//! with: a scenario that does not fit the texts, a bound of the check
//! reached, a denial. It knows neither the interpreter nor any strategy,
//! so both can use it without using each other.

use crate::report::{ErrorKind, Failure, Limit, Misfit, ScenarioError};
use crate::sandbox::Denial;

/// How a run ended.
#[derive(Clone, Debug, Default)]
pub(super) enum End {
    #[default]
    Completed,
    /// Cut: the state reached had been reached before at no greater depth.
    Pruned,
    Failed(Box<Failure>),
    /// Boxed: a typed error is large, and an end is returned on every step.
    Error(Box<ScenarioError>),
    /// Driving by hand: the schedule ran out where these processes may move.
    Awaiting(Vec<String>),
    /// Stopped after the requested history event.
    Stopped,
}

/// The end of a run whose scenario does not fit the texts.
pub(super) fn misfit(misfit: Misfit) -> End {
    End::Error(Box::new(ScenarioError::of(ErrorKind::Misfit { misfit })))
}

/// The end of a run that reached a bound of the check.
pub(super) fn limit_hit(limit: Limit) -> End {
    End::Error(Box::new(ScenarioError::of(ErrorKind::Limit { limit })))
}

/// The bound of a check that held more than `bytes_max` of explored states
/// and history.
pub(super) fn memory_exceeded(bytes_max: u64) -> Limit {
    Limit::Memory {
        maximum_bytes: bytes_max,
    }
}

/// The error of what the sandbox denied the check itself, in a statement
/// the scenario wrote (`sql`: direct SQL, a query) or between statements:
/// its SQLite step budget is a limit; anything else a denial, in its own
/// words.
pub(super) fn denied(denial: Denial, sql: Option<String>) -> ScenarioError {
    let kind = match denial {
        Denial::CheckBudget { steps_max } => ErrorKind::Limit {
            limit: Limit::SqliteSteps { maximum: steps_max },
        },
        denial => ErrorKind::Denied { denial, sql },
    };
    ScenarioError::of(kind)
}
