//! The embedding protocol's messages and their validation, as plain data:
//! what the frame posts to the page that embeds it, what that page may ask
//! of the frame, and the one origin the frame talks to. docs/EMBEDDING.md
//! is the reference for authors; this file is the implementation it
//! describes, tested natively.
//!
//! Every message in either direction is an object with the protocol's
//! version in a `fencelab` field and its kind in `type`. A host message is
//! untrusted input: its size, its number of procedures and the length of
//! every text and name are bounded, and whatever cannot be read becomes a
//! [`Refusal`] whose sentence says why. Must never panic and never touch the
//! DOM (`bridge.rs` does).

use fencelab_model::procedure::PROCEDURE_TEXT_BYTES_MAX;
use fencelab_model::{Break, ExerciseReport, FailureKind, Schedule, Verdict};
use fencelab_protocol::Edits;
use serde::Serialize;
use serde_json::{Map, Value};

/// The protocol version this frame speaks; a host message must carry it.
/// Adding a message or a field keeps the version; changing or removing
/// one makes the next.
pub const PROTOCOL_VERSION: u64 = 1;
/// The longest host message read, as JSON text.
pub const HOST_MESSAGE_BYTES_MAX: usize = 256 * 1024;
/// The most procedures one `set-procedures` may name.
pub const PROCEDURES_PER_MESSAGE_MAX: usize = 32;
/// The longest request id, procedure name or scenario name read.
pub const NAME_CHARS_MAX: usize = 200;
/// The longest `?parent=` value read.
const PARENT_CHARS_MAX: usize = 300;

/// The id a host gave its request, repeated in the reply: a string or a
/// non-negative integer, as the host chose.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum RequestId {
    Number(u64),
    Text(String),
}

/// What the host may ask of the frame.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// Replace these editable procedures' texts (others keep theirs).
    SetProcedures(Edits),
    /// Put the starting texts back.
    Reset,
    /// Check now.
    Check,
    /// Show this scenario's timeline.
    ShowScenario(String),
}

/// A host message that was read: its id and what it asks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostRequest {
    pub id: RequestId,
    pub command: Command,
}

/// A host message that could not be read: why, and its id when that much
/// could be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    pub id: Option<RequestId>,
    pub message: String,
}

/// One editable procedure and its current text.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ProcedureText {
    pub name: String,
    pub text: String,
}

/// One scenario's verdict as the host receives it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ScenarioVerdict {
    pub name: String,
    /// `passed`, `failed`, `error`, or `limit_shown` (a scenario that
    /// shows where the protection ends, as intended: it passes).
    pub verdict: Verdict,
    pub passes: bool,
    /// The failure's or the error's sentence; `null` when it passes.
    pub message: Option<String>,
}

/// What the frame posts to its parent.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "type", rename_all = "kebab-case")]
pub enum FrameMessage {
    /// The exercise is open and the checking engine has started.
    Ready {
        exercise: String,
        title: String,
        procedures: Vec<ProcedureText>,
        sqlite_version: String,
    },
    /// The verdicts of the texts now in the editors.
    Checked {
        exercise: String,
        scenarios: Vec<ScenarioVerdict>,
        passed: usize,
        failed: usize,
        total: usize,
        /// The texts these verdicts are of: a host that keeps the
        /// learner's work (a SCORM package's `suspend_data`) has them
        /// with every check.
        procedures: Edits,
    },
    /// Solved, in one of two kinds: the learner's own texts pass every
    /// scenario (`repair`, the first time in this frame), or the learner
    /// broke a guarantee of a broken text by driving its processes
    /// (`hunt`, the first time for that text and scenario in this frame,
    /// and only to a page that asked for hunts: one written before them
    /// would take it for a repair).
    Solved {
        exercise: String,
        /// The texts in the editors: the repair, or the broken text.
        procedures: Edits,
        #[serde(flatten)]
        kind: Solution,
    },
    /// The frame's content height changed.
    Resize { height: u32 },
    /// A host request was done.
    Ok { id: RequestId },
    /// A host request was refused, or a host message could not be read.
    Error {
        id: Option<RequestId>,
        message: String,
    },
}

/// What a `solved` message says was done, in its `kind` field.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Solution {
    /// The learner's own texts pass every scenario.
    Repair,
    /// A break found by hand in a challenge ("break it yourself").
    Hunt {
        scenario: String,
        /// The named broken variant the challenge gave; `null` for the
        /// exercise's starting text.
        variant: Option<String>,
        /// The broken guarantee's sentence, as the learner read it.
        guarantee: String,
        /// `invariant`, `expectation` or `deadlock`.
        broke: FailureKind,
        /// The learner's moves, as a schedule (`a b b a`).
        schedule: Schedule,
        moves: usize,
        /// The moves of the shortest break the checker's exploration found;
        /// `null` when it could not be measured.
        shortest_moves: Option<usize>,
    },
}

impl Solution {
    /// The `hunt` kind of a break found in `scenario` of a challenge on the
    /// starting text (no `variant`) or a named variant.
    pub fn hunt(scenario: &str, variant: Option<&str>, found: &Break) -> Solution {
        Solution::Hunt {
            scenario: scenario.to_string(),
            variant: variant.map(str::to_string),
            guarantee: found.failure.to_string(),
            broke: found.kind(),
            schedule: found.schedule.clone(),
            moves: found.moves(),
            shortest_moves: found.shortest_moves,
        }
    }
}

impl FrameMessage {
    /// The `checked` message of `report`, the verdicts of `texts`.
    pub fn checked(report: &ExerciseReport, texts: &Edits) -> FrameMessage {
        FrameMessage::Checked {
            exercise: report.exercise.clone(),
            scenarios: report
                .scenarios
                .iter()
                .map(|s| ScenarioVerdict {
                    name: s.name.clone(),
                    verdict: s.verdict(),
                    passes: s.passed(),
                    message: s.problem(),
                })
                .collect(),
            passed: report.passed,
            failed: report.failed,
            total: report.scenarios.len(),
            procedures: texts.clone(),
        }
    }

    /// The message as posted: its JSON text with the protocol version.
    pub fn to_json(&self) -> String {
        #[derive(Serialize)]
        struct Envelope<'a> {
            fencelab: u64,
            #[serde(flatten)]
            message: &'a FrameMessage,
        }
        serde_json::to_string(&Envelope {
            fencelab: PROTOCOL_VERSION,
            message: self,
        })
        .unwrap_or_default()
    }
}

/// The origin in a frame's `?parent=`, as the browser writes origins
/// (`https://course.example`, `http://127.0.0.1:8080`), so it compares
/// equal to a message's `origin`: first the checks of [`checked_origin`]
/// (an http(s) scheme and a host with an optional port, nothing else),
/// then, in a browser, the browser's own URL parser, the one that writes
/// `event.origin` (`http://127.1` is `http://127.0.0.1` to it, and
/// `http://[0:0::1]` is `http://[::1]`).
pub fn parent_origin(text: &str) -> Result<String, String> {
    let checked = checked_origin(text)?;
    as_the_browser_writes(&checked)
        .ok_or_else(|| format!("`{checked}` is not an origin this browser can read"))
}

/// The origin of `origin` by the browser's URL parser (WHATWG URL).
#[cfg(target_arch = "wasm32")]
fn as_the_browser_writes(origin: &str) -> Option<String> {
    web_sys::Url::new(origin).ok().map(|url| url.origin())
}

/// Natively (the reducer's tests) there is no browser to ask: the checked
/// form stands.
#[cfg(not(target_arch = "wasm32"))]
fn as_the_browser_writes(origin: &str) -> Option<String> {
    Some(origin.to_string())
}

/// The hand-written checks on a `?parent=`, stricter than a URL parser:
/// an http(s) scheme and a host with an optional port, nothing else,
/// lowercased, a default port dropped; each refusal says what is wrong.
pub fn checked_origin(text: &str) -> Result<String, String> {
    let shown: String = text.chars().take(80).collect();
    if text.chars().count() > PARENT_CHARS_MAX {
        return Err(format!(
            "`{shown}…` is longer than the {PARENT_CHARS_MAX} characters an origin may have"
        ));
    }
    let lower = text.to_ascii_lowercase();
    let (scheme, rest) = lower
        .split_once("://")
        .ok_or_else(|| format!("`{shown}` is not an origin like https://course.example"))?;
    let default_port: u16 = match scheme {
        "http" => 80,
        "https" => 443,
        _ => {
            return Err(format!(
                "`{shown}` is not an http or https origin (like https://course.example)"
            ));
        }
    };
    if let Some(at) = rest.find(['/', '?', '#']) {
        // What comes before the path is quoted as `shown` is, cut at 80
        // characters: a refusal never quotes the whole text.
        let mut host: String = rest[..at].chars().take(80).collect();
        if host.len() < at {
            host.push('…');
        }
        return Err(format!(
            "`{shown}` has more than an origin (a path, query or fragment from `{}` on); write only {scheme}://{host}",
            &rest[at..at + 1],
        ));
    }
    let (host, port) = match rest.rfind(':') {
        Some(colon) if !rest[colon..].contains(']') => (&rest[..colon], Some(&rest[colon + 1..])),
        _ => (rest, None),
    };
    let host_ok = if let Some(inner) = host.strip_prefix('[').and_then(|h| h.strip_suffix(']')) {
        !inner.is_empty()
            && inner
                .chars()
                .all(|c| c.is_ascii_hexdigit() || c == ':' || c == '.')
    } else {
        !host.is_empty()
            && host.split('.').all(|label| {
                !label.is_empty() && label.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
            })
    };
    if !host_ok {
        return Err(format!(
            "`{shown}` does not name a host (letters, digits, hyphens and dots; a non-ASCII name in its xn-- form)"
        ));
    }
    let port = match port {
        None => String::new(),
        Some(port) => match port.parse::<u16>() {
            Ok(n) if n > 0 && port.chars().all(|c| c.is_ascii_digit()) => {
                // By its number: `:0443` is https's default too, as the
                // browser's own `location.origin` says.
                if n == default_port {
                    String::new()
                } else {
                    format!(":{n}")
                }
            }
            _ => return Err(format!("`{shown}` has no valid port (1 to 65535)")),
        },
    };
    Ok(format!("{scheme}://{host}{port}"))
}

/// Reads a host message from its JSON text (the page's bridge turns the
/// posted object into JSON), or says why it cannot.
pub fn read_host_message(json: &str) -> Result<HostRequest, Refusal> {
    let refuse = |id: Option<&RequestId>, message: String| Refusal {
        id: id.cloned(),
        message,
    };
    if json.len() > HOST_MESSAGE_BYTES_MAX {
        return Err(refuse(
            None,
            format!(
                "the message is {} bytes as JSON, more than the {HOST_MESSAGE_BYTES_MAX} read",
                json.len()
            ),
        ));
    }
    let value: Value = serde_json::from_str(json)
        .map_err(|_| refuse(None, "the message could not be read as JSON".into()))?;
    let Value::Object(fields) = value else {
        return Err(refuse(None, "a message must be an object".into()));
    };
    let request_id = match fields.get("id") {
        Some(Value::Number(n)) => n.as_u64().map(RequestId::Number),
        Some(Value::String(s)) if s.chars().count() <= NAME_CHARS_MAX => {
            Some(RequestId::Text(s.clone()))
        }
        _ => None,
    }
    .ok_or_else(|| {
        refuse(
            None,
            format!(
                "a message needs an `id`: a non-negative integer or a string of at most {NAME_CHARS_MAX} characters"
            ),
        )
    })?;
    let id = Some(&request_id);
    match fields.get("fencelab").and_then(Value::as_u64) {
        Some(PROTOCOL_VERSION) => {}
        Some(other) => {
            return Err(refuse(
                id,
                format!(
                    "this frame speaks fencelab protocol version {PROTOCOL_VERSION}, and the message is version {other}"
                ),
            ));
        }
        None => {
            return Err(refuse(
                id,
                format!(
                    "a message needs a `fencelab` field with the protocol version ({PROTOCOL_VERSION})"
                ),
            ));
        }
    }
    let command = match fields.get("type").and_then(Value::as_str) {
        Some("set-procedures") => Command::SetProcedures(procedures(&fields).map_err(|m| refuse(id, m))?),
        Some("reset") => Command::Reset,
        Some("check") => Command::Check,
        Some("show-scenario") => Command::ShowScenario(
            name(fields.get("scenario"))
                .ok_or_else(|| refuse(id, format!("`show-scenario` needs a `scenario`: a name of at most {NAME_CHARS_MAX} characters")))?,
        ),
        Some(other) => {
            let other: String = other.chars().take(NAME_CHARS_MAX).collect();
            return Err(refuse(
                id,
                format!(
                    "`{other}` is not a message this frame takes (it takes set-procedures, reset, check and show-scenario)"
                ),
            ));
        }
        None => return Err(refuse(id, "a message needs a `type`, a string".into())),
    };
    Ok(HostRequest {
        id: request_id,
        command,
    })
}

/// A name of bounded length.
fn name(value: Option<&Value>) -> Option<String> {
    value
        .and_then(Value::as_str)
        .filter(|s| s.chars().count() <= NAME_CHARS_MAX)
        .map(str::to_string)
}

/// The texts of a `set-procedures`, by procedure name.
fn procedures(fields: &Map<String, Value>) -> Result<Edits, String> {
    let Some(Value::Object(texts)) = fields.get("procedures") else {
        return Err(
            "`set-procedures` needs `procedures`: an object of texts by procedure name".into(),
        );
    };
    if texts.len() > PROCEDURES_PER_MESSAGE_MAX {
        return Err(format!(
            "`procedures` names {} procedures, more than the {PROCEDURES_PER_MESSAGE_MAX} read",
            texts.len()
        ));
    }
    let mut edits = Edits::new();
    for (procedure, text) in texts {
        if procedure.chars().count() > NAME_CHARS_MAX {
            return Err(format!(
                "a procedure name is longer than {NAME_CHARS_MAX} characters"
            ));
        }
        let Value::String(text) = text else {
            return Err(format!("the text of `{procedure}` must be a string"));
        };
        if text.len() > PROCEDURE_TEXT_BYTES_MAX {
            return Err(format!(
                "the text of `{procedure}` is {} bytes; a procedure may have at most {PROCEDURE_TEXT_BYTES_MAX}",
                text.len()
            ));
        }
        edits.insert(procedure.clone(), text.clone());
    }
    Ok(edits)
}

#[cfg(test)]
mod tests;
