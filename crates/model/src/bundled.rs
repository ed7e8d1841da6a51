//! The exercises that ship with fencelab, compiled in so the CLI, the wasm
//! tests and the page all use the same files.

use crate::exercise::{Exercise, LoadError};

/// Every bundled exercise file: its name under `crates/model/exercises/` and
/// its text, in course order.
pub const FILES: &[(&str, &str)] = &[
    (
        "01-claim-compare-and-set.toml",
        include_str!("../exercises/01-claim-compare-and-set.toml"),
    ),
    (
        "02-complete-under-the-token.toml",
        include_str!("../exercises/02-complete-under-the-token.toml"),
    ),
    (
        "03-leases-and-the-handover.toml",
        include_str!("../exercises/03-leases-and-the-handover.toml"),
    ),
    (
        "04-the-stalled-worker.toml",
        include_str!("../exercises/04-the-stalled-worker.toml"),
    ),
    (
        "05-retry-budget-and-dead-letters.toml",
        include_str!("../exercises/05-retry-budget-and-dead-letters.toml"),
    ),
    (
        "06-monotonic-not-dense.toml",
        include_str!("../exercises/06-monotonic-not-dense.toml"),
    ),
    (
        "07-actor-leases.toml",
        include_str!("../exercises/07-actor-leases.toml"),
    ),
    (
        "08-execution-attempts.toml",
        include_str!("../exercises/08-execution-attempts.toml"),
    ),
    (
        "09-session-incarnations.toml",
        include_str!("../exercises/09-session-incarnations.toml"),
    ),
    (
        "10-a-generation-per-resource.toml",
        include_str!("../exercises/10-a-generation-per-resource.toml"),
    ),
    (
        "11-decide-in-the-transaction.toml",
        include_str!("../exercises/11-decide-in-the-transaction.toml"),
    ),
    (
        "12-authority-does-not-dedupe.toml",
        include_str!("../exercises/12-authority-does-not-dedupe.toml"),
    ),
    (
        "13-counterexamples-bound-the-protection.toml",
        include_str!("../exercises/13-counterexamples-bound-the-protection.toml"),
    ),
];

/// The bundled exercises, loaded with everything checked but their schemas
/// (which take SQLite: `fencelab_core::bundled::exercises()` checks those,
/// and the test suite runs it). This is what a page's main thread shows.
pub fn catalog() -> Result<Vec<Exercise>, LoadError> {
    FILES
        .iter()
        .map(|(name, text)| Exercise::from_toml(name, text))
        .collect()
}
