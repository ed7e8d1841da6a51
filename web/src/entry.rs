//! An entry the page keeps in localStorage (a learner's saved work,
//! `state::Saved`; the author's draft, `author::saved`): JSON that carries
//! the version of its format. Every kind is read back here, by one rule: its
//! size, its JSON, then its version, each refusal a sentence.

use serde::de::DeserializeOwned;

/// A kind of entry as a reader checks it.
pub struct EntryFormat {
    /// What a sentence calls the format (`save` format, `draft` format).
    pub name: &'static str,
    /// The version this build writes and reads.
    pub version: u32,
    /// Entries larger than this, in bytes, are not read.
    pub bytes_max: usize,
}

/// An entry of a format of its own.
pub trait Versioned: DeserializeOwned {
    const FORMAT: EntryFormat;

    /// The version the entry says it is in.
    fn version(&self) -> u32;
}

/// Reads `text` as an entry of `T`'s format, or says in a sentence why it
/// cannot.
pub fn read<T: Versioned>(text: &str) -> Result<T, String> {
    let EntryFormat {
        name,
        version,
        bytes_max,
    } = T::FORMAT;
    if text.len() > bytes_max {
        return Err(format!(
            "it is {} bytes, more than the {bytes_max} read",
            text.len()
        ));
    }
    let entry: T = serde_json::from_str(text).map_err(|e| crate::share::json_error_in_words(&e))?;
    if entry.version() != version {
        return Err(format!(
            "it is in {name} format {}, and this page reads format {version}",
            entry.version()
        ));
    }
    Ok(entry)
}
