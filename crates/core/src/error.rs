//! The crate's one public error type, [`Error`]: the model's engine error
//! (fencelab_model::engine), so that a run error carries it typed to the
//! page and the CLI. An `Error` means the engine was asked something it
//! cannot do; a refused claim or a learner's SQL error inside a call is
//! *not* an `Error`: those come back as an [`Outcome`](crate::Outcome).

pub use fencelab_model::engine::Error;

/// The error of SQLite failing to `context` while the engine managed the
/// world.
pub(crate) fn sqlite(context: &str, error: rusqlite::Error) -> Error {
    Error::Sqlite {
        context: context.to_string(),
        message: error.to_string(),
    }
}
