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
use serde::de::{Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

/// The protocol version this frame speaks; a host message must carry it.
/// Adding a message or a field keeps the version; changing or removing
/// one makes the next.
pub const PROTOCOL_VERSION: u64 = 1;
/// The most bytes of names and texts one host message may hold.
pub const HOST_MESSAGE_BYTES_MAX: usize = 256 * 1024;
/// The most procedures one `set-procedures` may name.
pub const PROCEDURES_PER_MESSAGE_MAX: usize = 32;
/// The longest request id, procedure name or scenario name read.
pub const NAME_CHARS_MAX: usize = 200;
/// The largest numeric request id: the largest integer a JavaScript number
/// holds exactly, so the reply's id is the one the host sent.
pub const ID_NUMBER_MAX: u64 = (1 << 53) - 1;
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
    /// For an `error`, what kind it is (`limit`, `call`, `unusable`,
    /// `step`, `misfit`, `rule`, `refused`, `engine`: the model's
    /// `ErrorKind`), so a host can tell a limit reached from an SQL error
    /// without reading the sentence; `null` otherwise.
    pub error_kind: Option<&'static str>,
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
        /// Whether these texts are the learner's own: edited by them, not
        /// as the page or the host put them in the editors, and not the
        /// exercise's starting texts. A host that grades counts only
        /// these (a SCORM package reports no score before one).
        own_texts: bool,
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
    /// The `checked` message of `report`, the verdicts of `texts`, which
    /// are the learner's own or not.
    pub fn checked(report: &ExerciseReport, texts: &Edits, own_texts: bool) -> FrameMessage {
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
                    error_kind: s.error().map(|e| e.kind_name()),
                })
                .collect(),
            passed: report.passed,
            failed: report.failed,
            total: report.scenarios.len(),
            procedures: texts.clone(),
            own_texts,
        }
    }

    /// The message as posted: itself, with the protocol version in a
    /// `fencelab` field.
    pub fn envelope(&self) -> Envelope<'_> {
        Envelope {
            fencelab: PROTOCOL_VERSION,
            message: self,
        }
    }

    /// The posted message as JSON text, as a host's `JSON.stringify` of it
    /// reads.
    #[cfg(test)]
    pub fn to_json(&self) -> String {
        serde_json::to_string(&self.envelope()).unwrap_or_default()
    }
}

/// A frame message with the protocol version (see [`FrameMessage::envelope`]).
#[derive(Serialize)]
pub struct Envelope<'a> {
    fencelab: u64,
    #[serde(flatten)]
    message: &'a FrameMessage,
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

/// Reads a host message, or says why it cannot. `posted` is the message
/// itself: in the page, the posted object through serde-wasm-bindgen
/// (`bridge.rs`); in the tests, its JSON text through serde_json. Only the
/// fields the protocol knows are read, each as the one shape it reads there
/// or as something else, so the refusal can say which field is wrong.
pub fn read_host<'de, D: Deserializer<'de>>(posted: D) -> Result<HostRequest, Refusal> {
    let posted = Posted::deserialize(posted).map_err(|error| {
        // The reader's own words, cut short: they may quote the message.
        let error: String = error.to_string().chars().take(NAME_CHARS_MAX).collect();
        Refusal {
            message: format!("{} ({error})", not_an_object().message),
            ..not_an_object()
        }
    })?;
    posted.request()
}

/// The refusal of a message that is not an object of fields. A list is
/// one to JavaScript, so the page's bridge asks before reading.
pub fn not_an_object() -> Refusal {
    Refusal {
        id: None,
        message: "a message must be an object of fields".into(),
    }
}

/// A host message as posted: the fields the protocol reads.
#[derive(Default)]
struct Posted {
    id: Sent,
    version: Sent,
    kind: Sent,
    scenario: Sent,
    procedures: Option<SentTexts>,
    /// The bytes of every string read, names and texts.
    bytes: usize,
}

/// One field's value as posted: the shapes a field of the protocol may
/// have, or anything else (read no further).
#[derive(Default)]
enum Sent {
    Unsigned(u64),
    Text(String),
    /// A string longer than a whole message may be, by its length in
    /// bytes: not kept, since the message will be refused for it.
    Oversized(usize),
    #[default]
    Other,
}

/// The `procedures` field as posted: its entries up to the bound, and how
/// many it has; `None` in [`Posted`] when it is not an object of fields.
struct SentTexts {
    texts: Vec<(String, Sent)>,
    count: usize,
}

impl Posted {
    /// The request the fields make, or why they make none.
    fn request(self) -> Result<HostRequest, Refusal> {
        let refuse = |id: Option<&RequestId>, message: String| Refusal {
            id: id.cloned(),
            message,
        };
        // The id first, whatever else the message holds: a refusal that
        // repeats it settles the host's request, one without it leaves the
        // host waiting. It was read in the one pass over the message's
        // fields (at most FIELDS_PER_MESSAGE_MAX, in any order), and is
        // kept only within its own bounds, so an oversized message has a
        // readable id unless the id itself is what is too long.
        let request_id = match self.id {
            Sent::Unsigned(n) if n <= ID_NUMBER_MAX => Some(RequestId::Number(n)),
            Sent::Text(text) if text.chars().count() <= NAME_CHARS_MAX => {
                Some(RequestId::Text(text))
            }
            _ => None,
        };
        if self.bytes > HOST_MESSAGE_BYTES_MAX {
            return Err(refuse(
                request_id.as_ref(),
                format!(
                    "the message's names and texts are {} bytes, more than the {HOST_MESSAGE_BYTES_MAX} read",
                    self.bytes
                ),
            ));
        }
        let request_id = request_id.ok_or_else(|| {
            refuse(
                None,
                format!(
                    "a message needs an `id`: an integer from 0 to {ID_NUMBER_MAX} or a string of at most {NAME_CHARS_MAX} characters"
                ),
            )
        })?;
        let id = Some(&request_id);
        let refused = |message: String| refuse(id, message);
        check_version(&self.version).map_err(refused)?;
        let command = command(&self.kind, self.procedures, self.scenario).map_err(refused)?;
        Ok(HostRequest {
            id: request_id,
            command,
        })
    }
}

/// Why a message's `fencelab` field is not this frame's protocol version.
fn check_version(version: &Sent) -> Result<(), String> {
    match version {
        Sent::Unsigned(PROTOCOL_VERSION) => Ok(()),
        Sent::Unsigned(other) => Err(format!(
            "this frame speaks fencelab protocol version {PROTOCOL_VERSION}, and the message is version {other}"
        )),
        _ => Err(format!(
            "a message needs a `fencelab` field with the protocol version ({PROTOCOL_VERSION})"
        )),
    }
}

/// The command a message's `type` names, with the fields it needs (its
/// `procedures` or `scenario`), or why there is none.
fn command(kind: &Sent, texts: Option<SentTexts>, scenario: Sent) -> Result<Command, String> {
    match kind {
        Sent::Text(kind) if kind == "set-procedures" => {
            Ok(Command::SetProcedures(procedures(texts)?))
        }
        Sent::Text(kind) if kind == "reset" => Ok(Command::Reset),
        Sent::Text(kind) if kind == "check" => Ok(Command::Check),
        Sent::Text(kind) if kind == "show-scenario" => match scenario {
            Sent::Text(name) if name.chars().count() <= NAME_CHARS_MAX => {
                Ok(Command::ShowScenario(name))
            }
            _ => Err(format!(
                "`show-scenario` needs a `scenario`: a name of at most {NAME_CHARS_MAX} characters"
            )),
        },
        Sent::Text(other) => {
            let other: String = other.chars().take(NAME_CHARS_MAX).collect();
            Err(format!(
                "`{other}` is not a message this frame takes (it takes set-procedures, reset, check and show-scenario)"
            ))
        }
        _ => Err("a message needs a `type`, a string".into()),
    }
}

/// The texts of a `set-procedures`, by procedure name.
fn procedures(sent: Option<SentTexts>) -> Result<Edits, String> {
    let Some(SentTexts { texts, count }) = sent else {
        return Err(
            "`set-procedures` needs `procedures`: an object of texts by procedure name".into(),
        );
    };
    if count > PROCEDURES_PER_MESSAGE_MAX {
        return Err(format!(
            "`procedures` names {count} procedures, more than the {PROCEDURES_PER_MESSAGE_MAX} read"
        ));
    }
    let mut edits = Edits::new();
    for (procedure, text) in texts {
        if procedure.chars().count() > NAME_CHARS_MAX {
            return Err(format!(
                "a procedure name is longer than {NAME_CHARS_MAX} characters"
            ));
        }
        let Sent::Text(text) = text else {
            return Err(format!("the text of `{procedure}` must be a string"));
        };
        if text.len() > PROCEDURE_TEXT_BYTES_MAX {
            return Err(format!(
                "the text of `{procedure}` is {} bytes; a procedure may have at most {PROCEDURE_TEXT_BYTES_MAX}",
                text.len()
            ));
        }
        edits.insert(procedure, text);
    }
    Ok(edits)
}

/// The most fields of a host message read before it is refused: the
/// protocol's five, and room for fields of later versions.
const FIELDS_PER_MESSAGE_MAX: usize = 64;

impl<'de> Deserialize<'de> for Posted {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(PostedVisitor)
    }
}

struct PostedVisitor;

impl<'de> Visitor<'de> for PostedVisitor {
    type Value = Posted;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("an object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut fields: A) -> Result<Posted, A::Error> {
        let mut posted = Posted::default();
        let mut read = 0;
        while let Some(key) = fields.next_key::<Sent>()? {
            read += 1;
            if read > FIELDS_PER_MESSAGE_MAX {
                return Err(serde::de::Error::custom(format!(
                    "more than {FIELDS_PER_MESSAGE_MAX} fields"
                )));
            }
            let Sent::Text(key) = key else {
                fields.next_value::<IgnoredAny>()?;
                continue;
            };
            let slot = match key.as_str() {
                "id" => &mut posted.id,
                "fencelab" => &mut posted.version,
                "type" => &mut posted.kind,
                "scenario" => &mut posted.scenario,
                "procedures" => {
                    posted.procedures = fields.next_value::<TextsOrOther>()?.0;
                    continue;
                }
                _ => {
                    fields.next_value::<IgnoredAny>()?;
                    continue;
                }
            };
            *slot = fields.next_value()?;
        }
        posted.bytes = [&posted.id, &posted.kind, &posted.scenario]
            .into_iter()
            .map(Sent::bytes)
            .sum::<usize>()
            + posted.procedures.as_ref().map_or(0, |p| {
                p.texts
                    .iter()
                    .map(|(name, text)| name.len() + text.bytes())
                    .sum()
            });
        Ok(posted)
    }
}

impl Sent {
    fn bytes(&self) -> usize {
        match self {
            Sent::Text(text) => text.len(),
            Sent::Oversized(bytes) => *bytes,
            _ => 0,
        }
    }

    /// A string as a field's value: kept, unless it alone is more than a
    /// message may hold.
    fn text(text: impl AsRef<str> + Into<String>) -> Sent {
        match text.as_ref().len() {
            bytes if bytes > HOST_MESSAGE_BYTES_MAX => Sent::Oversized(bytes),
            _ => Sent::Text(text.into()),
        }
    }
}

impl<'de> Deserialize<'de> for Sent {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(SentVisitor)
    }
}

/// Reads a scalar as what it is; a list or an object is passed over
/// without reading what it holds.
struct SentVisitor;

impl<'de> Visitor<'de> for SentVisitor {
    type Value = Sent;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("any value")
    }
    fn visit_u64<E>(self, n: u64) -> Result<Sent, E> {
        Ok(Sent::Unsigned(n))
    }
    fn visit_i64<E>(self, n: i64) -> Result<Sent, E> {
        Ok(u64::try_from(n).map_or(Sent::Other, Sent::Unsigned))
    }
    fn visit_f64<E>(self, _: f64) -> Result<Sent, E> {
        Ok(Sent::Other)
    }
    fn visit_bool<E>(self, _: bool) -> Result<Sent, E> {
        Ok(Sent::Other)
    }
    fn visit_unit<E>(self) -> Result<Sent, E> {
        Ok(Sent::Other)
    }
    fn visit_none<E>(self) -> Result<Sent, E> {
        Ok(Sent::Other)
    }
    fn visit_str<E>(self, text: &str) -> Result<Sent, E> {
        Ok(Sent::text(text))
    }
    fn visit_string<E>(self, text: String) -> Result<Sent, E> {
        Ok(Sent::text(text))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut items: A) -> Result<Sent, A::Error> {
        while items.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Sent::Other)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut entries: A) -> Result<Sent, A::Error> {
        while entries.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(Sent::Other)
    }
}

/// The `procedures` field: its entries when it is an object (`None` when
/// it is anything else).
struct TextsOrOther(Option<SentTexts>);

impl<'de> Deserialize<'de> for TextsOrOther {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(TextsVisitor)
    }
}

struct TextsVisitor;

impl<'de> Visitor<'de> for TextsVisitor {
    type Value = TextsOrOther;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("an object of texts")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut entries: A) -> Result<TextsOrOther, A::Error> {
        let mut texts = Vec::new();
        let mut count = 0;
        // Past the bound the entries are counted, not read.
        while count < PROCEDURES_PER_MESSAGE_MAX {
            let Some((name, text)) = entries.next_entry::<Sent, Sent>()? else {
                return Ok(TextsOrOther(Some(SentTexts { texts, count })));
            };
            count += 1;
            match name {
                Sent::Text(name) => texts.push((name, text)),
                // A name longer than a message may be is counted, not
                // kept: its bytes make the message refused as too large,
                // with its id.
                Sent::Oversized(bytes) => texts.push((String::new(), Sent::Oversized(bytes))),
                _ => {
                    return Err(serde::de::Error::custom(
                        "a procedure's name is not a string",
                    ));
                }
            }
        }
        while entries.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {
            count += 1;
        }
        Ok(TextsOrOther(Some(SentTexts { texts, count })))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, items: A) -> Result<TextsOrOther, A::Error> {
        SentVisitor.visit_seq(items).map(|_| TextsOrOther(None))
    }
    fn visit_u64<E>(self, _: u64) -> Result<TextsOrOther, E> {
        Ok(TextsOrOther(None))
    }
    fn visit_i64<E>(self, _: i64) -> Result<TextsOrOther, E> {
        Ok(TextsOrOther(None))
    }
    fn visit_f64<E>(self, _: f64) -> Result<TextsOrOther, E> {
        Ok(TextsOrOther(None))
    }
    fn visit_bool<E>(self, _: bool) -> Result<TextsOrOther, E> {
        Ok(TextsOrOther(None))
    }
    fn visit_unit<E>(self) -> Result<TextsOrOther, E> {
        Ok(TextsOrOther(None))
    }
    fn visit_none<E>(self) -> Result<TextsOrOther, E> {
        Ok(TextsOrOther(None))
    }
    fn visit_str<E>(self, _: &str) -> Result<TextsOrOther, E> {
        Ok(TextsOrOther(None))
    }
    fn visit_string<E>(self, _: String) -> Result<TextsOrOther, E> {
        Ok(TextsOrOther(None))
    }
}

#[cfg(test)]
mod tests;
