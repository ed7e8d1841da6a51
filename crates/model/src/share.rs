//! Share links: the exercise, the edited procedures and optionally what the
//! timeline showed (a scenario, the schedule replayed or driven so far, the
//! step selected) and how many hints were shown, as JSON, deflated and base64url-encoded into the
//! URL fragment (`#s1=...`), so nothing is sent to any server.
//!
//! A link carries its format twice: in the prefix and in the JSON. Reading
//! one is bounded: the fragment's length and the inflated size are capped, so
//! a hostile link cannot exhaust memory. Must never panic on a link.
//!
//! The page writes and reads them; `fencelab run --site URL` writes them for
//! a grader's counterexamples. Both call this one encoder, so a link the
//! command line prints opens in the page.

use crate::hunt::HuntText;
use crate::schedule::Schedule;
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The edited procedures' texts, by procedure name.
pub type Edits = BTreeMap<String, String>;

/// The link format this build writes and reads.
pub const LINK_FORMAT: u32 = 1;
const PREFIX: &str = "s1=";
/// The most bytes a link's JSON may inflate to.
pub const LINK_INFLATED_BYTES_MAX: usize = 128 * 1024;
/// The longest fragment read.
const LINK_FRAGMENT_CHARS_MAX: usize = 64 * 1024;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Link {
    pub format: u32,
    pub exercise: String,
    pub edits: Edits,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scenario: Option<String>,
    /// Written as its text (`"a b b a"`), as links always were.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schedule: Option<Schedule>,
    /// The schedule is a drive's moves so far, to be continued by hand,
    /// not a schedule to replay to its end.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub drive: bool,
    /// The drive is a hunt in a challenge on this broken text ("break it
    /// yourself"): the schedule is the break found, judged again on
    /// opening. Links from before challenges have none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hunt: Option<HuntText>,
    /// The step selected in the timeline (0-based).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step: Option<usize>,
    /// How many hints were shown.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub hints: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl Link {
    /// What the timeline showed when the link was made, if anything.
    pub fn shown(&self) -> Option<Shown> {
        Some(Shown {
            scenario: self.scenario.clone()?,
            schedule: self.schedule.clone(),
            drive: self.drive && self.schedule.is_some(),
            hunt: self
                .hunt
                .clone()
                .filter(|_| self.drive && self.schedule.is_some()),
            step: self.step,
        })
    }
}

/// What the timeline showed, as a link or the saved work brings it back: a
/// scenario, and the schedule replayed (or driven so far, `drive`), and the
/// step selected. Without a schedule it is the scenario as checked.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Shown {
    pub scenario: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schedule: Option<Schedule>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub drive: bool,
    /// The drive is a hunt in a challenge on this text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hunt: Option<HuntText>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step: Option<usize>,
}

/// The fragment (without `#`) that carries `link`.
pub fn encode(link: &Link) -> String {
    pack(PREFIX, &serde_json::to_vec(link).unwrap_or_default())
}

/// `bytes` deflated and base64url-encoded after `prefix`: how every link
/// the page writes carries its data (share links, exercise links).
pub fn pack(prefix: &str, bytes: &[u8]) -> String {
    let deflated = miniz_oxide::deflate::compress_to_vec(bytes, 9);
    format!("{prefix}{}", URL_SAFE_NO_PAD.encode(deflated))
}

/// The bytes [`pack`] wrote as `data` (the fragment after its prefix),
/// inflated to at most `inflated_max`; else one sentence about "this
/// `what`" saying why not.
pub fn unpack(data: &str, what: &str, inflated_max: usize) -> Result<Vec<u8>, String> {
    let deflated = URL_SAFE_NO_PAD
        .decode(data.trim_end_matches('='))
        .map_err(|_| format!("this {what} is damaged: its data is not valid base64url"))?;
    miniz_oxide::inflate::decompress_to_vec_with_limit(&deflated, inflated_max).map_err(|_| {
        format!(
            "this {what} is damaged or too large: it does not inflate to at most {inflated_max} bytes"
        )
    })
}

/// Whether a fragment is meant as a share link at all.
pub fn is_link(fragment: &str) -> bool {
    fragment.starts_with("s") && fragment.contains('=')
}

/// Reads a fragment (without `#`), or says in one sentence why it cannot.
pub fn decode(fragment: &str) -> Result<Link, String> {
    let data = fragment.strip_prefix(PREFIX).ok_or_else(|| {
        format!("this link is not in a format this page reads (it reads links starting #{PREFIX})")
    })?;
    if data.len() > LINK_FRAGMENT_CHARS_MAX {
        return Err(format!(
            "this link is {} characters long, more than the {LINK_FRAGMENT_CHARS_MAX} read",
            data.len()
        ));
    }
    let json = unpack(data, "link", LINK_INFLATED_BYTES_MAX)?;
    let link: Link = serde_json::from_slice(&json).map_err(|e| {
        format!(
            "this link's contents cannot be read: {}",
            json_error_in_words(&e)
        )
    })?;
    if link.format != LINK_FORMAT {
        return Err(format!(
            "this link is in format {}, and this page reads format {LINK_FORMAT}",
            link.format
        ));
    }
    Ok(link)
}

/// serde's sentence about JSON that does not fit, without the page's own
/// type names (`expected struct Link` reads `expected an object`).
pub fn json_error_in_words(error: &serde_json::Error) -> String {
    let text = error.to_string();
    let mut out = String::with_capacity(text.len());
    let mut rest = text.as_str();
    while let Some(at) = rest.find("struct ") {
        out.push_str(&rest[..at]);
        let after = &rest[at + "struct ".len()..];
        let name_end = after
            .find(|c: char| !c.is_ascii_alphanumeric() && c != '_')
            .unwrap_or(after.len());
        out.push_str("an object");
        rest = &after[name_end..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn a_link_round_trips() {
        let mut edits = Edits::new();
        edits.insert("claim".into(), "SELECT 1;\n-- ünïcode".into());
        let link = Link {
            format: LINK_FORMAT,
            exercise: "claim-compare-and-set".into(),
            edits,
            scenario: Some("one winner".into()),
            schedule: Some(Schedule::parse("a b").unwrap()),
            drive: true,
            hunt: Some(HuntText::Variant("read, then write".into())),
            step: Some(7),
            hints: 2,
        };
        assert_eq!(decode(&encode(&link)), Ok(link.clone()));
        let shown = link.shown().expect("it shows a drive");
        assert_eq!(shown.hunt, link.hunt, "a found break opens as a hunt");
        // A hunt without a drive's moves is no hunt.
        let moves_dropped = Link {
            schedule: None,
            ..link
        };
        assert_eq!(moves_dropped.shown().and_then(|s| s.hunt), None);
    }

    /// A link written before schedules were typed: the same JSON, with the
    /// schedule as a string. It must keep opening.
    #[test]
    fn a_link_in_the_first_format_still_opens() {
        let json = r#"{"format":1,"exercise":"claim-compare-and-set","edits":{"claim":"SELECT 1;"},"scenario":"one winner","schedule":"a b b a"}"#;
        let deflated = miniz_oxide::deflate::compress_to_vec(json.as_bytes(), 9);
        let fragment = format!("s1={}", URL_SAFE_NO_PAD.encode(deflated));
        let link = decode(&fragment).expect("the link opens");
        assert_eq!(
            link.schedule.map(|s| s.to_string()).as_deref(),
            Some("a b b a")
        );
        assert_eq!(link.scenario.as_deref(), Some("one winner"));
        let mut again = Link {
            format: LINK_FORMAT,
            exercise: "claim-compare-and-set".into(),
            edits: Edits::from([("claim".to_string(), "SELECT 1;".to_string())]),
            scenario: Some("one winner".into()),
            schedule: Some(Schedule::parse("a b b a").unwrap()),
            drive: false,
            hunt: None,
            step: None,
            hints: 0,
        };
        assert_eq!(serde_json::to_string(&again).unwrap(), json);
        again.schedule = None;
        assert!(!serde_json::to_string(&again).unwrap().contains("schedule"));
    }

    #[test]
    fn damaged_and_oversized_links_are_errors() {
        assert!(decode("s1=!!!").is_err());
        assert!(decode("s1=AAAA").is_err());
        assert!(decode("s9=AAAA").unwrap_err().contains("format"));
        let bomb = miniz_oxide::deflate::compress_to_vec(&vec![b' '; 1_000_000], 9);
        let fragment = format!("s1={}", URL_SAFE_NO_PAD.encode(bomb));
        assert!(decode(&fragment).unwrap_err().contains("too large"));
    }
}
