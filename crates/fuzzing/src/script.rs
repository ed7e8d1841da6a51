//! The take-home script writer (`fencelab_model::export`) under any text in
//! any field of a plan.
//!
//! Three properties, each asserted:
//! - lines 1-2 are the template's ([`FIRST_LINES`]) and the script is ASCII,
//!   so no encoding declaration but the script's own can be read;
//! - exercise text reaches the script only through the literal writer: the
//!   script with every string literal blanked is the script of the same
//!   plan with every text replaced by a placeholder, blanked the same way
//!   (a text that ended its literal early, or reached a comment or code,
//!   would leave a difference);
//! - each literal reads back as its text ([`read_literal`] undoes exactly
//!   the escapes `py_str` may write, and nothing else).
//!
//! Python itself reads the corpus's scripts in `cargo test`
//! (tests/take_home_corpus.rs, through tests/scripts/check_script.py).

use arbitrary::Unstructured;
use fencelab_model::Exercise;
use fencelab_model::exercise::Journal;
use fencelab_model::export::{FIRST_LINES, py_str, python_script};
use fencelab_model::history::{ResultRows, Values};
use fencelab_model::replay::{Action, Expected, Plan, PlanStep};
use fencelab_model::report::Verdict;
use fencelab_model::schedule::Schedule;
use fencelab_model::value::{Blob, RealBits, Value};

/// Steps of a generated plan, at most: enough for every action kind to
/// follow every other.
const PLAN_STEPS_MAX: usize = 24;

/// A plan read from the fuzzer's bytes: every text any string the bytes
/// give, every shape of step.
pub fn plan_from_bytes(data: &[u8]) -> Plan {
    let mut u = Unstructured::new(data);
    let text = |u: &mut Unstructured| u.arbitrary::<String>().unwrap_or_default();
    let exercise = text(&mut u);
    let scenario = text(&mut u);
    let schema = text(&mut u);
    let problem = u.arbitrary::<bool>().unwrap_or(false).then(|| text(&mut u));
    let verdict = match u.int_in_range(0..=3u8).unwrap_or(0) {
        0 => Verdict::Passed,
        1 => Verdict::Failed,
        2 => Verdict::Error,
        _ => Verdict::LimitShown,
    };
    let journal = if u.arbitrary::<bool>().unwrap_or(false) {
        Journal::Wal
    } else {
        Journal::Delete
    };
    let mut steps = Vec::new();
    while steps.len() < PLAN_STEPS_MAX && !u.is_empty() {
        let who = text(&mut u);
        let line = text(&mut u);
        let action = match u.int_in_range(0..=5u8).unwrap_or(0) {
            0 => Action::Open {
                process: text(&mut u),
            },
            1 => Action::Close {
                process: text(&mut u),
            },
            2 => Action::Rollback {
                process: text(&mut u),
            },
            3 => Action::Note,
            4 => Action::Direct {
                sql: text(&mut u),
                changed: u.arbitrary().unwrap_or(0),
            },
            _ => Action::Run {
                process: text(&mut u),
                sql: text(&mut u),
                parameters: values(&mut u),
                expected: match u.int_in_range(0..=2u8).unwrap_or(0) {
                    0 => Expected::Waits,
                    1 => Expected::Fails {
                        stale_snapshot: u.arbitrary().unwrap_or(false),
                    },
                    _ => Expected::Ran {
                        changed: u.arbitrary().unwrap_or(0),
                        returned: rows(&mut u),
                    },
                },
            },
        };
        steps.push(PlanStep {
            event: steps.len(),
            who,
            line,
            action,
        });
    }
    Plan {
        exercise,
        scenario,
        schedule: Schedule::default(),
        journal,
        schema,
        steps,
        verdict,
        problem,
    }
}

fn value(u: &mut Unstructured) -> Value {
    match u.int_in_range(0..=4u8).unwrap_or(0) {
        0 => Value::Null,
        1 => Value::Integer(u.arbitrary().unwrap_or(0)),
        2 => Value::Real(RealBits::new(u.arbitrary().unwrap_or(0.0))),
        3 => Value::Text(u.arbitrary().unwrap_or_default()),
        _ => Value::blob(u.arbitrary::<Vec<u8>>().unwrap_or_default().as_slice()),
    }
}

fn values(u: &mut Unstructured) -> Values {
    let count = u.int_in_range(0..=3u8).unwrap_or(0);
    (0..count)
        .map(|_| (u.arbitrary::<String>().unwrap_or_default(), value(u)))
        .collect()
}

fn rows(u: &mut Unstructured) -> ResultRows {
    let width = usize::from(u.int_in_range(0..=3u8).unwrap_or(0));
    let height = u.int_in_range(0..=3u8).unwrap_or(0);
    ResultRows {
        columns: (0..width)
            .map(|_| u.arbitrary::<String>().unwrap_or_default())
            .collect(),
        rows: (0..height)
            .map(|_| (0..width).map(|_| value(u)).collect())
            .collect(),
    }
}

/// `plan` with every text replaced by a placeholder of its own (distinct,
/// so no two parameter names merge, and in order, so a map's entries keep
/// theirs), numbers and shapes kept.
pub fn placeholders(plan: &Plan) -> Plan {
    let mut next = 0usize;
    // Zero-padded, so placeholders sort as the names they replace did: a
    // map's entries keep their order.
    let mut fresh = || {
        next += 1;
        format!("p{next:08}")
    };
    let value = |v: &Value, fresh: &mut dyn FnMut() -> String| match v {
        Value::Text(_) => Value::Text(fresh()),
        Value::Blob(_) => Value::Blob(Blob { blob: "00".into() }),
        other => other.clone(),
    };
    let steps = plan
        .steps
        .iter()
        .map(|step| PlanStep {
            event: step.event,
            who: fresh(),
            line: fresh(),
            action: match &step.action {
                Action::Open { .. } => Action::Open { process: fresh() },
                Action::Close { .. } => Action::Close { process: fresh() },
                Action::Rollback { .. } => Action::Rollback { process: fresh() },
                Action::Note => Action::Note,
                Action::Direct { changed, .. } => Action::Direct {
                    sql: fresh(),
                    changed: *changed,
                },
                Action::Run {
                    parameters,
                    expected,
                    ..
                } => Action::Run {
                    process: fresh(),
                    sql: fresh(),
                    parameters: parameters
                        .values()
                        .map(|v| (fresh(), value(v, &mut fresh)))
                        .collect(),
                    expected: match expected {
                        Expected::Ran { changed, returned } => Expected::Ran {
                            changed: *changed,
                            returned: ResultRows {
                                columns: returned.columns.iter().map(|_| fresh()).collect(),
                                rows: returned
                                    .rows
                                    .iter()
                                    .map(|row| row.iter().map(|v| value(v, &mut fresh)).collect())
                                    .collect(),
                            },
                        },
                        other => other.clone(),
                    },
                },
            },
        })
        .collect();
    Plan {
        exercise: fresh(),
        scenario: fresh(),
        schedule: plan.schedule.clone(),
        journal: plan.journal,
        schema: fresh(),
        steps,
        verdict: plan.verdict,
        problem: plan.problem.as_ref().map(|_| fresh()),
    }
}

/// `script` with every double-quoted literal's body removed, the template's
/// own strings included: scanned the same way on two scripts, the results
/// are equal exactly when the scripts differ only inside such literals.
///
/// It jumps from quote to quote with memchr: libFuzzer's comparison
/// tracing made a character-by-character scan most of each execution
/// (perf: 95 % of the target's time, 1,400 executions a second).
pub fn blank_literals(script: &str) -> Vec<u8> {
    let bytes = script.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut at = 0;
    while let Some(open) = memchr::memchr(b'"', &bytes[at..]) {
        out.extend_from_slice(&bytes[at..=at + open]);
        at += open + 1;
        // Inside a literal: skip each escape's next byte, stop at the quote.
        while at < bytes.len() {
            match memchr::memchr2(b'\\', b'"', &bytes[at..]) {
                Some(found) if bytes[at + found] == b'\\' => at += found + 2,
                Some(found) => {
                    out.push(b'"');
                    at += found + 1;
                    break;
                }
                None => at = bytes.len(),
            }
        }
        at = at.min(bytes.len());
    }
    out.extend_from_slice(&bytes[at..]);
    out
}

/// The text of a literal `py_str` wrote, undoing only the escapes it
/// writes; `None` for anything else (a quote left bare, another escape, a
/// character outside printable ASCII).
pub fn read_literal(literal: &str) -> Option<String> {
    let body = literal.strip_prefix('"')?.strip_suffix('"')?;
    let mut out = String::new();
    let mut chars = body.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                let hex = |chars: &mut std::str::Chars, digits: usize| {
                    let code: String = chars.by_ref().take(digits).collect();
                    (code.len() == digits)
                        .then(|| u32::from_str_radix(&code, 16).ok())
                        .flatten()
                        .and_then(char::from_u32)
                };
                out.push(match chars.next()? {
                    '\\' => '\\',
                    '"' => '"',
                    'n' => '\n',
                    'r' => '\r',
                    't' => '\t',
                    'x' => hex(&mut chars, 2)?,
                    'u' => hex(&mut chars, 4)?,
                    'U' => hex(&mut chars, 8)?,
                    _ => return None,
                });
            }
            '"' => return None,
            ' '..='~' => out.push(c),
            _ => return None,
        }
    }
    Some(out)
}

/// Every text of `plan` that the script holds as a literal.
fn texts(plan: &Plan) -> Vec<&str> {
    let mut all = vec![plan.exercise.as_str(), &plan.scenario, &plan.schema];
    all.extend(plan.problem.as_deref());
    for step in &plan.steps {
        all.push(&step.who);
        all.push(&step.line);
        match &step.action {
            Action::Open { process } | Action::Close { process } | Action::Rollback { process } => {
                all.push(process)
            }
            Action::Note => {}
            Action::Direct { sql, .. } => all.push(sql),
            Action::Run {
                process,
                sql,
                parameters,
                expected,
            } => {
                all.extend([process.as_str(), sql]);
                for (name, value) in parameters {
                    all.push(name);
                    if let Value::Text(text) = value {
                        all.push(text);
                    }
                }
                if let Expected::Ran { returned, .. } = expected {
                    all.extend(returned.columns.iter().map(String::as_str));
                }
            }
        }
    }
    all
}

/// The target's body: the script of any plan keeps the template's shape.
pub fn take_home_script(data: &[u8]) {
    let plan = plan_from_bytes(data);
    let script = python_script(&plan, "fencelab (fuzzed)");
    assert!(
        script.starts_with(FIRST_LINES),
        "lines 1-2 are not the template's"
    );
    assert!(
        script.is_ascii(),
        "the script holds a character outside ASCII"
    );
    let shape = python_script(&placeholders(&plan), "fencelab (fuzzed)");
    assert_eq!(
        blank_literals(&script),
        blank_literals(&shape),
        "exercise text reached the script outside a literal"
    );
    for text in texts(&plan) {
        assert_eq!(
            read_literal(&py_str(text)).as_deref(),
            Some(text),
            "a literal does not read back as its text"
        );
    }
}

/// An exercise's texts as seeds: a plan of each bundled exercise's id,
/// schema and scenario names, the bytes `plan_from_bytes` reads them from.
pub fn seed_of(exercise: &Exercise) -> Vec<u8> {
    // arbitrary's String reads a length then that many bytes of UTF-8 (the
    // length taken from the end of the data once the data runs short), so
    // a seed is just the texts one after another: the fuzzer finds the
    // framing from there.
    let mut bytes = Vec::new();
    for text in [&exercise.id, &exercise.title, &exercise.schema] {
        bytes.extend_from_slice(text.as_bytes());
    }
    for scenario in &exercise.scenarios {
        bytes.extend_from_slice(scenario.name.as_bytes());
    }
    bytes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_literal_reads_back_as_every_kind_of_text() {
        for text in [
            "",
            "plain",
            "\"\"\" ''' \\\" \\",
            "line\r\nbreak\rcr",
            "\u{0}\u{1}\u{7f}\u{85}\u{a0}",
            "\u{2028}\u{2029}\u{feff}\u{202e}\u{fffe}\u{ffff}",
            "-*- coding: unicode_escape -*- vim: set fileencoding=latin-1 :",
            "😀 \u{10ffff}",
        ] {
            let literal = py_str(text);
            assert!(literal.is_ascii(), "{literal}");
            assert_eq!(read_literal(&literal).as_deref(), Some(text), "{literal}");
        }
    }

    #[test]
    fn text_outside_a_literal_is_seen() {
        let script = "X = \"a\"\n# note\n";
        assert_ne!(
            blank_literals(script),
            blank_literals("X = \"a\"\n# other\n")
        );
        assert_eq!(
            blank_literals(script),
            blank_literals("X = \"b\\\"c\"\n# note\n")
        );
        // A quote that ends a literal early leaves the rest outside it.
        assert_ne!(
            blank_literals(script),
            blank_literals("X = \"b\"c\"\n# note\n")
        );
    }

    #[test]
    fn any_bytes_make_a_script_of_the_templates_shape() {
        for data in [
            &b""[..],
            b"\x00\x01\x02",
            b"-*- coding:unicode_escape -*-\"\\n+__import__('os')",
            &[0xff; 64],
        ] {
            take_home_script(data);
        }
    }
}
