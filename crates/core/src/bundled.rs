//! The exercises that ship with fencelab (their files are in
//! `crates/model/exercises/`), loaded with their schemas tried on SQLite.

pub use fencelab_model::bundled::{FILES, catalog};

use crate::exercise::load;
use fencelab_model::exercise::{Exercise, LoadError};

/// Loads every bundled exercise, schemas checked.
pub fn exercises() -> Result<Vec<Exercise>, LoadError> {
    FILES.iter().map(|(name, text)| load(name, text)).collect()
}
