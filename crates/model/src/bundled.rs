//! The exercises that ship with fencelab, compiled in so the CLI, the wasm
//! tests and the page all use the same files.

use crate::exercise::{Exercise, LoadError};

/// Both lists from one list of names, so they cannot disagree.
macro_rules! bundled_files {
    ($($name:literal,)*) => {
        /// Every bundled exercise file's name under `crates/model/exercises/`,
        /// in course order, without its text: what a program that fetches
        /// the files (the authoring view's templates, from the site's
        /// `templates/` folder) links instead of [`FILES`].
        pub const FILE_NAMES: &[&str] = &[$($name,)*];

        /// Every bundled exercise file: its name under
        /// `crates/model/exercises/` and its text, in course order.
        pub const FILES: &[(&str, &str)] = &[$(($name, include_str!(concat!("../exercises/", $name))),)*];
    };
}

bundled_files! {
    "01-claim-compare-and-set.toml",
    "02-complete-under-the-token.toml",
    "03-leases-and-the-handover.toml",
    "04-the-stalled-worker.toml",
    "05-retry-budget-and-dead-letters.toml",
    "06-monotonic-not-dense.toml",
    "07-actor-leases.toml",
    "08-execution-attempts.toml",
    "09-session-incarnations.toml",
    "10-a-generation-per-resource.toml",
    "11-decide-in-the-transaction.toml",
    "12-authority-does-not-dedupe.toml",
    "13-counterexamples-bound-the-protection.toml",
    "14-the-rescuer-and-the-finished-job.toml",
    "15-the-lock-granted-too-late.toml",
    "16-the-storage-that-checks-the-token.toml",
    "17-the-stale-receipt.toml",
    "18-the-key-checked-then-inserted.toml",
    "19-the-leader-that-kept-acting.toml",
    "20-the-epoch-that-went-back.toml",
    "21-the-unlock-that-came-back.toml",
    "22-the-suspended-leader.toml",
    "23-the-rescue-of-running-jobs.toml",
    "24-the-lock-with-a-random-version.toml",
    "25-insert-if-absent.toml",
    "26-the-counter-that-burns-numbers.toml",
    "27-read-decide-write.toml",
    "28-skip-locked-and-the-fence.toml",
    "29-a-lock-is-not-a-fence.toml",
}

/// The bundled exercises, loaded with everything checked but their schemas
/// (which take SQLite: `fencelab_core::bundled::exercises()` checks those,
/// and the test suite runs it). This is what a page's main thread shows,
/// from its build script's [`loaded_json`].
#[cfg(feature = "toml")]
pub fn catalog() -> Result<Vec<Exercise>, LoadError> {
    FILES
        .iter()
        .map(|(name, text)| Exercise::from_toml(name, text))
        .collect()
}

/// [`catalog`]'s result as JSON: the loaded form a build script writes to
/// `OUT_DIR` as [`LOADED_FILE`] (web/build.rs, which the worker's build
/// script includes), so a program can start from the exercises already
/// parsed and validated instead of parsing their TOML on every start. A
/// file that does not load is kept as its error. The .toml files stay the
/// one source: the script depends on this crate, which compiles them in, so
/// cargo reruns it whenever they change. Writing the file, and stopping the
/// build if it cannot be made, is the build script's part: this crate never
/// touches a file system and never panics here.
#[cfg(feature = "toml")]
pub fn loaded_json() -> Result<String, serde_json::Error> {
    serde_json::to_string(&catalog())
}

/// The file a build script writes [`loaded_json`] to, under `OUT_DIR`.
pub const LOADED_FILE: &str = "bundled-exercises.json";

/// The text the calling crate's build script wrote ([`loaded_json`], as
/// [`LOADED_FILE`]), a `&'static str`: [`from_loaded_json`] reads it into
/// what [`catalog`] gives, without parsing any TOML. Use it once per crate:
/// each use compiles the text in.
#[macro_export]
macro_rules! loaded_json_at_build_time {
    () => {
        include_str!(concat!(env!("OUT_DIR"), "/bundled-exercises.json"))
    };
}

/// Reads what [`loaded_json`] wrote: the same result [`catalog`] gives.
/// Text from anywhere else (or bytes that are not UTF-8) is an error naming
/// where it stops being one, never a panic. Bytes are taken as they are:
/// the page and its worker fetch the file as bytes, since a JavaScript
/// string would have to be encoded to UTF-8 again, by a loop of JavaScript
/// over every character, on the way into the wasm. They are read as `str`
/// (`serde_json::from_str`), as every other JSON the page and the worker
/// read: `from_slice` would compile the whole model's readers a second
/// time, for bytes (48 KB more of the page's wasm, raw).
pub fn from_loaded_json(json: impl AsRef<[u8]>) -> Result<Vec<Exercise>, LoadError> {
    let bytes = json.as_ref();
    let unreadable = |line: usize, column: usize, why: String| LoadError {
        file: "the bundled exercises".into(),
        line,
        column,
        field: "(loaded form)".into(),
        message: format!("the build's loaded exercises cannot be read: {why}"),
    };
    let text = std::str::from_utf8(bytes).map_err(|error| {
        let before = &bytes[..error.valid_up_to()];
        let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
        let column = before.iter().rev().take_while(|&&b| b != b'\n').count() + 1;
        unreadable(line, column, error.to_string())
    })?;
    serde_json::from_str(text)
        .unwrap_or_else(|error| Err(unreadable(error.line(), error.column(), error.to_string())))
}

#[cfg(all(test, feature = "toml"))]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn the_loaded_form_reads_back_as_exactly_what_the_loader_gives() {
        let loaded = super::catalog();
        assert!(loaded.is_ok(), "{loaded:?}");
        let json = super::loaded_json().expect("the catalog serialises to JSON");
        assert_eq!(super::from_loaded_json(&json), loaded);
    }

    #[test]
    fn a_damaged_loaded_form_is_an_error_not_a_panic() {
        let error = super::from_loaded_json("{\"Ok\": [").unwrap_err();
        assert_eq!(error.line, 1);
        assert!(
            error.message.contains("cannot be read"),
            "{}",
            error.message
        );
        let json = super::loaded_json().expect("the catalog serialises to JSON");
        let key = "\"title\":\"";
        let at = json.find(key).expect("a title") + key.len();
        let mut bytes = json.into_bytes();
        // A byte no UTF-8 text holds, as the first title's first.
        bytes[at] = 0xff;
        let error = super::from_loaded_json(&bytes).unwrap_err();
        assert!(
            error.message.contains("cannot be read"),
            "{}",
            error.message
        );
        assert_eq!((error.line, error.column), (1, at + 1), "{}", error.message);
    }
}
