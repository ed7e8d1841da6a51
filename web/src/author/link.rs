//! Links that carry a whole exercise file in the URL fragment (`#x1=...`):
//! the TOML text, byte for byte, deflated and base64url-encoded, so nothing
//! is sent to any server. The authoring view writes them (`?author=1#x1=`
//! opens the text in the editor) and the learner's page opens them as an
//! exercise of its own (installed like a site's own exercise).
//!
//! The format version is the prefix: `x1=` is this build's. Reading is
//! bounded twice: the fragment's length, and the inflated size, which is the
//! exercise file cap itself (no longer text could load anyway). Must never
//! panic on a link.

use crate::share;
use fencelab_model::exercise::EXERCISE_FILE_BYTES_MAX;

/// The prefix of this build's exercise links: format 1.
const PREFIX: &str = "x1=";

/// The longest exercise link written or read, in characters of its
/// fragment: the cap of share links. The largest bundled exercise (63 KB of
/// TOML) takes 12,280; an exercise near the 256 KiB file cap compresses
/// about fivefold, to about 70,000, so this holds any exercise of a
/// sensible size while staying far inside what browsers keep in an address
/// (Chrome keeps 2 MB) and what people paste.
pub const EXERCISE_LINK_CHARS_MAX: usize = 64 * 1024;

/// The file name a linked exercise's errors carry.
pub const LINKED_FILE: &str = "linked-exercise.toml";

/// Whether a fragment (without `#`) is meant as an exercise link.
pub fn is_exercise_link(fragment: &str) -> bool {
    fragment.starts_with('x') && fragment.contains('=')
}

/// The fragment (without `#`) carrying `text`, or why no link can.
pub fn encode(text: &str) -> Result<String, String> {
    if text.len() > EXERCISE_FILE_BYTES_MAX {
        return Err(format!(
            "the exercise is {} bytes, more than the {EXERCISE_FILE_BYTES_MAX} an exercise file may have",
            text.len()
        ));
    }
    let fragment = share::pack(PREFIX, text.as_bytes());
    if fragment.len() > EXERCISE_LINK_CHARS_MAX {
        return Err(format!(
            "its link would be {} characters long, more than the {EXERCISE_LINK_CHARS_MAX} a link may have; download the file instead",
            fragment.len()
        ));
    }
    Ok(fragment)
}

/// The exercise text a fragment (without `#`) carries, or one sentence
/// saying why it cannot be read.
pub fn decode(fragment: &str) -> Result<String, String> {
    let data = fragment.strip_prefix(PREFIX).ok_or_else(|| {
        format!("this exercise link is not in a format this page reads (it reads links starting #{PREFIX})")
    })?;
    if fragment.len() > EXERCISE_LINK_CHARS_MAX {
        return Err(format!(
            "this exercise link is {} characters long, more than the {EXERCISE_LINK_CHARS_MAX} read",
            fragment.len()
        ));
    }
    let bytes = share::unpack(data, "exercise link", EXERCISE_FILE_BYTES_MAX)?;
    String::from_utf8(bytes)
        .map_err(|_| "this exercise link is damaged: its text is not UTF-8".to_string())
}

/// The exercise the page's address carries (`#x1=`), as a site's own file
/// is handed to the learner's reducer: its name and text, or why the link
/// cannot be read. None when the address carries no exercise link.
pub fn linked_file() -> Option<(String, Result<String, String>)> {
    let hash = web_sys::window()?.location().hash().ok()?;
    let fragment = hash.trim_start_matches('#');
    is_exercise_link(fragment).then(|| (LINKED_FILE.to_string(), decode(fragment)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_bundled_exercise_round_trips_byte_for_byte() {
        for (name, text) in fencelab_model::bundled::FILES {
            let fragment = encode(text).expect(name);
            assert!(is_exercise_link(&fragment));
            assert_eq!(decode(&fragment).as_deref(), Ok(*text), "{name}");
        }
        let odd = "format = 1\r\n# ünïcode, tabs\t and no final newline";
        assert_eq!(decode(&encode(odd).unwrap()).as_deref(), Ok(odd));
    }

    #[test]
    fn damaged_oversized_and_other_links_are_sentences() {
        assert!(decode("x1=!!!").unwrap_err().contains("base64url"));
        assert!(decode("x1=AAAA").unwrap_err().contains("damaged"));
        assert!(decode("x9=AAAA").unwrap_err().contains("format"));
        let not_text = share::pack(PREFIX, &[0xff, 0xfe]);
        assert!(decode(&not_text).unwrap_err().contains("UTF-8"));
        // A bomb: a megabyte of spaces deflates to about a kilobyte.
        let fragment = share::pack(PREFIX, &vec![b' '; 1_000_000]);
        assert!(fragment.len() < EXERCISE_LINK_CHARS_MAX);
        assert!(decode(&fragment).unwrap_err().contains("too large"));
        let long = format!("x1={}", "A".repeat(EXERCISE_LINK_CHARS_MAX));
        assert!(decode(&long).unwrap_err().contains("characters long"));
        assert!(!is_exercise_link("s1=abc"));
    }

    #[test]
    fn text_past_the_file_cap_or_the_link_cap_makes_no_link() {
        let huge = "#".repeat(EXERCISE_FILE_BYTES_MAX + 1);
        assert!(encode(&huge).unwrap_err().contains("bytes"));
        // Text that does not compress: its link outgrows the cap first.
        let mut state = 1u64;
        let noise: String = (0..100_000)
            .map(|_| {
                state = state
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                char::from(b'!' + ((state >> 33) % 90) as u8)
            })
            .collect();
        assert!(encode(&noise).unwrap_err().contains("download the file"));
    }
}
