//! The exercises that ship with fencelab, compiled in so the CLI, the wasm
//! tests and the page all use the same files.

use crate::exercise::{Exercise, LoadError};

/// Every bundled exercise file: its name under `crates/core/exercises/` and
/// its text, in course order.
pub const FILES: &[(&str, &str)] = &[(
    "01-claim-compare-and-set.toml",
    include_str!("../exercises/01-claim-compare-and-set.toml"),
)];

/// Loads every bundled exercise.
pub fn exercises() -> Result<Vec<Exercise>, LoadError> {
    FILES
        .iter()
        .map(|(name, text)| Exercise::from_toml(name, text))
        .collect()
}
