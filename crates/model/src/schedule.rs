//! Schedules: which process moved at each choice inside a scenario's
//! concurrent sections, written with the scenario's process names (`a b a b`).
//!
//! A schedule is the whole of a run's nondeterminism: the same procedures,
//! scenario and schedule replay the same history, natively and in wasm. It
//! prints in test failures, in the CLI and in share links, and parses back.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::str::FromStr;

/// The longest schedule accepted from text, in moves.
pub const SCHEDULE_MOVES_MAX: usize = 4_096;

/// The processes that moved, in order.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Schedule {
    moves: Vec<String>,
}

/// A schedule text that cannot be used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScheduleError {
    pub message: String,
}

impl fmt::Display for ScheduleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ScheduleError {}

impl Schedule {
    pub fn new() -> Schedule {
        Schedule::default()
    }

    /// Parses `a b a b`: process names separated by white space. A name is
    /// letters, digits, `_` and `-`.
    pub fn parse(text: &str) -> Result<Schedule, ScheduleError> {
        let mut moves = Vec::new();
        for word in text.split_whitespace() {
            if !word
                .chars()
                .all(|c| c.is_alphanumeric() || c == '_' || c == '-')
            {
                return Err(ScheduleError {
                    message: format!(
                        "`{word}` is not a process name: a schedule is the scenario's process \
                         names separated by spaces, such as `a b a b`"
                    ),
                });
            }
            if moves.len() == SCHEDULE_MOVES_MAX {
                return Err(ScheduleError {
                    message: format!("a schedule has at most {SCHEDULE_MOVES_MAX} moves"),
                });
            }
            moves.push(word.to_string());
        }
        Ok(Schedule { moves })
    }

    pub fn moves(&self) -> &[String] {
        &self.moves
    }

    pub fn len(&self) -> usize {
        self.moves.len()
    }

    pub fn is_empty(&self) -> bool {
        self.moves.is_empty()
    }

    /// The process that moves at choice `index`.
    pub fn get(&self, index: usize) -> Option<&str> {
        self.moves.get(index).map(String::as_str)
    }

    pub fn push(&mut self, process: impl Into<String>) {
        self.moves.push(process.into());
    }

    /// Takes back the last move (undo, when driving by hand).
    pub fn pop(&mut self) -> Option<String> {
        self.moves.pop()
    }

    pub fn clear(&mut self) {
        self.moves.clear();
    }
}

impl<S: Into<String>> FromIterator<S> for Schedule {
    fn from_iter<I: IntoIterator<Item = S>>(iter: I) -> Self {
        Schedule {
            moves: iter.into_iter().map(Into::into).collect(),
        }
    }
}

impl fmt::Display for Schedule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.moves.join(" "))
    }
}

impl FromStr for Schedule {
    type Err = ScheduleError;
    fn from_str(text: &str) -> Result<Schedule, ScheduleError> {
        Schedule::parse(text)
    }
}

/// A schedule serializes as its text, `"a b a b"`.
impl Serialize for Schedule {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Schedule {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        Schedule::parse(&text).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn parses_and_prints_the_same_text() {
        let schedule = Schedule::parse("  a b\ta  b ").unwrap();
        assert_eq!(schedule.moves(), ["a", "b", "a", "b"]);
        assert_eq!(schedule.to_string(), "a b a b");
        assert_eq!(Schedule::parse("").unwrap(), Schedule::new());
        let json = serde_json::to_string(&schedule).unwrap();
        assert_eq!(json, "\"a b a b\"");
        assert_eq!(serde_json::from_str::<Schedule>(&json).unwrap(), schedule);
    }

    #[test]
    fn anything_but_names_is_refused() {
        let error = Schedule::parse("a b; DROP").unwrap_err();
        assert!(
            error.message.contains("`b;` is not a process name"),
            "{error}"
        );
        let long = "a ".repeat(SCHEDULE_MOVES_MAX + 1);
        assert!(Schedule::parse(&long).is_err());
    }
}
