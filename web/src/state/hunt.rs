//! "Break it yourself": the challenge mode. The learner gets a broken text
//! (the exercise's starting text, or one of its named broken variants),
//! the counterexamples stay hidden, and the learner drives the processes of
//! a scenario until a guarantee breaks. Whether it broke, and how long the
//! shortest break is, is the worker's `Hunted` verdict (the core's
//! `HuntVerdict`); this file only keeps what the challenge is and which
//! breaks the learner found, apart from repairs (`progress.rs`).
//!
//! While a challenge is open nothing shows a checked scenario: the
//! scenario list gives way to the hunt panel, stopping a drive goes back to
//! it, and a check's answer never puts its counterexample in view.

use super::{Given, Playground, View};
use fencelab_model::{Break, HuntVerdict};
use serde::{Deserialize, Serialize};

pub use fencelab_model::hunt::HuntText;

/// What the editors hold while `text` is the page's, unedited.
fn given(text: &HuntText) -> Given {
    match text {
        HuntText::Start => Given::Start,
        HuntText::Variant(name) => Given::Variant(name.clone()),
    }
}

/// An open challenge.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Challenge {
    pub text: HuntText,
    /// The moves in view came from a link (or the saved view): a break they
    /// make was shown to the learner, not found, until the learner moves.
    pub replayed: bool,
}

/// A break the learner found by hand, as progress keeps it: the text and
/// the scenario, with the fewest moves it took.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FoundBreak {
    pub text: HuntText,
    pub scenario: String,
    pub moves: usize,
}

/// Keeps `found` among `breaks`, in order: one entry per text and scenario,
/// with the fewest moves any break of it took. Returns whether it is a new
/// one. A new one goes where it sorts (no sort of the whole list: its code
/// would be the playground's only one).
pub fn record(breaks: &mut Vec<FoundBreak>, found: FoundBreak) -> bool {
    match breaks
        .iter_mut()
        .find(|b| b.text == found.text && b.scenario == found.scenario)
    {
        Some(known) => {
            known.moves = known.moves.min(found.moves);
            false
        }
        None => {
            let at = breaks.partition_point(|known| *known < found);
            breaks.insert(at, found);
            true
        }
    }
}

/// A scenario a challenge's text breaks in some order of its processes:
/// one to hunt in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HuntTarget {
    pub scenario: String,
    pub summary: String,
    /// The processes the learner moves.
    pub processes: Vec<String>,
    /// The fewest moves of a break the learner found here, if any.
    pub found_moves: Option<usize>,
}

/// What a challenge offers, from the newest check of its text.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HuntTargets {
    pub targets: Vec<HuntTarget>,
    /// Scenarios that hold in every order on this text.
    pub holding: usize,
    /// Limit scenarios whose limit shows: no guarantee of theirs breaks.
    pub limits: usize,
    /// Scenarios that break on this text with no order to choose (nothing
    /// runs concurrently): nothing to hunt.
    pub unhuntable: usize,
    /// Scenarios that could not be judged on this text.
    pub errored: usize,
}

impl HuntTargets {
    /// The scenarios not offered and why, in a sentence: "Of its 11
    /// scenarios, 7 hold in every order on this text, and 4 show a limit,
    /// which is never a break." With `others`, beside the ones offered: "Of
    /// the other 9 scenarios, ...". `None` when every one is offered.
    pub fn unoffered(&self, others: bool) -> Option<String> {
        let kinds = [
            (
                self.holding,
                "holds in every order on this text",
                "hold in every order on this text",
            ),
            (
                self.limits,
                "shows a limit, which is never a break",
                "show a limit, which is never a break",
            ),
            (
                self.unhuntable,
                "breaks with nothing running at the same time, so there is no order to choose",
                "break with nothing running at the same time, so there is no order to choose",
            ),
            (self.errored, "could not be judged", "could not be judged"),
        ];
        let counted: Vec<(usize, &str, &str)> =
            kinds.into_iter().filter(|(n, ..)| *n > 0).collect();
        let total: usize = counted.iter().map(|(n, ..)| n).sum();
        let whose = if others { "the other" } else { "its" };
        match counted.as_slice() {
            [] => None,
            [(1, one, _)] => Some(format!(
                "The {} scenario {one}.",
                if others { "other" } else { "only" }
            )),
            [(_, _, many)] if others => Some(format!("The other {total} scenarios {many}.")),
            [(_, _, many)] => Some(format!("All {total} of its scenarios {many}.")),
            [rest @ .., last] => {
                let said = |(n, one, many): &(usize, &str, &str)| {
                    format!("{n} {}", if *n == 1 { one } else { many })
                };
                let rest: Vec<String> = rest.iter().map(said).collect();
                Some(format!(
                    "Of {whose} {total} scenarios, {}, and {}.",
                    rest.join(", "),
                    said(last)
                ))
            }
        }
    }
}

impl Playground {
    /// The scenarios to hunt in, once the newest check of the challenge's
    /// text has answered: those it fails and whose processes interleave.
    /// Only the verdict is read, never the counterexample.
    pub fn hunt_targets(&self) -> Option<HuntTargets> {
        let challenge = self.open.challenge.as_ref()?;
        let report = self
            .open
            .report
            .as_ref()
            .filter(|_| !self.open.checking())?;
        let mut offer = HuntTargets::default();
        for scenario in &report.scenarios {
            let processes = self.interleaved(&scenario.name);
            if scenario.verdict() == fencelab_model::Verdict::LimitShown {
                offer.limits += 1;
            } else if scenario.passed() {
                offer.holding += 1;
            } else if scenario.failure().is_none() {
                offer.errored += 1;
            } else if processes.is_empty() {
                offer.unhuntable += 1;
            } else {
                offer.targets.push(HuntTarget {
                    scenario: scenario.name.clone(),
                    summary: scenario.summary.clone(),
                    processes,
                    found_moves: self
                        .open
                        .hunted
                        .iter()
                        .find(|b| b.text == challenge.text && b.scenario == scenario.name)
                        .map(|b| b.moves),
                });
            }
        }
        Some(offer)
    }

    /// The challenge's texts, if the exercise has them: the starting texts,
    /// or a named variant's.
    fn hunt_texts(&self, text: &HuntText) -> Option<fencelab_protocol::Edits> {
        match text {
            HuntText::Start => Some(self.starts()),
            HuntText::Variant(name) => self.variant_texts(name),
        }
    }

    /// Opens a challenge on `text`: its texts go in the editors (one
    /// undoable change), nothing is in view until a scenario is chosen.
    pub(super) fn hunt_start(&mut self, text: HuntText) {
        if self.open.opening.is_some() {
            return;
        }
        let Some(texts) = self.hunt_texts(&text) else {
            return;
        };
        self.give_texts(texts, given(&text));
        // A variant's explanation would give the break away.
        self.open.loaded_variant = None;
        self.open.step_wanted = None;
        self.open.view = View::Nothing;
        self.announcement = format!(
            "Break it yourself: {} is in the editor. Choose a scenario, then move its processes until a guarantee breaks.",
            text.label()
        );
        self.open.challenge = Some(Challenge {
            text,
            replayed: false,
        });
    }

    /// The challenge the saved work had open, before any scenario was
    /// chosen (a hunt under way comes back with its view): open again if
    /// the editors still hold its text, as they do unless the entry is
    /// stale (an edit ends a challenge).
    pub(super) fn challenge_again(&mut self, text: HuntText) {
        if self.open.challenge.is_some()
            || self.hunt_texts(&text).as_ref() != Some(&self.open.texts)
        {
            return;
        }
        self.open.challenge = Some(Challenge {
            text,
            replayed: false,
        });
    }

    /// Leaves the challenge; the checked scenarios come back.
    pub(super) fn hunt_leave(&mut self) {
        if self.open.challenge.take().is_some() {
            self.open.view = View::Nothing;
            self.announcement = "You left the challenge. The scenarios' verdicts are back.".into();
        }
    }

    /// Whether the texts in the editors are still the challenge's own, as
    /// the page gave them: only then is a break the learner's find.
    fn hunting_given_text(&self) -> bool {
        self.open
            .challenge
            .as_ref()
            .is_some_and(|c| !c.replayed && self.open.given.as_ref() == Some(&given(&c.text)))
    }

    /// The break in view that the learner found by hand, if any: as
    /// progress keeps it, and as the worker judged it.
    pub fn found_break(&self) -> Option<(FoundBreak, &Break)> {
        let View::Driving(drive) = &self.open.view else {
            return None;
        };
        let found = drive.verdict.as_ref()?.found()?;
        if !self.hunting_given_text() {
            return None;
        }
        let kept = FoundBreak {
            text: self.open.challenge.as_ref()?.text.clone(),
            scenario: drive.scenario.clone(),
            moves: found.moves(),
        };
        Some((kept, found))
    }

    /// A hunt's verdict has arrived for the drive in view.
    pub(super) fn hunted(&mut self, verdict: HuntVerdict) {
        let View::Driving(drive) = &mut self.open.view else {
            return;
        };
        self.announcement = match &verdict {
            HuntVerdict::Broken(found) => found.to_string(),
            HuntVerdict::Held => "The scenario ran to its end and every guarantee held: this order breaks nothing. Undo some moves and try another.".into(),
            HuntVerdict::Unjudged { error } => format!("This order could not be judged: {error}"),
            HuntVerdict::Going => std::mem::take(&mut self.announcement),
        };
        drive.verdict = Some(std::rc::Rc::new(verdict));
        if let Some((found, _)) = self.found_break() {
            record(&mut self.open.hunted, found);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(text: HuntText, scenario: &str, moves: usize) -> FoundBreak {
        FoundBreak {
            text,
            scenario: scenario.into(),
            moves,
        }
    }

    #[test]
    fn a_break_is_kept_once_per_text_and_scenario_with_its_fewest_moves() {
        let mut breaks = Vec::new();
        assert!(record(&mut breaks, found(HuntText::Start, "one winner", 9)));
        assert!(!record(
            &mut breaks,
            found(HuntText::Start, "one winner", 6)
        ));
        assert!(!record(
            &mut breaks,
            found(HuntText::Start, "one winner", 8)
        ));
        let variant = HuntText::Variant("read, then write".into());
        assert!(record(&mut breaks, found(variant.clone(), "one winner", 7)));
        assert_eq!(
            breaks,
            [
                found(HuntText::Start, "one winner", 6),
                found(variant, "one winner", 7)
            ]
        );
    }

    /// A new break goes where it sorts, among breaks recorded in any order.
    #[test]
    fn breaks_are_kept_in_order_of_text_then_scenario() {
        let variant = HuntText::Variant("read, then write".into());
        let mut breaks = Vec::new();
        for (text, scenario) in [
            (variant.clone(), "one winner"),
            (HuntText::Start, "the stalled worker"),
            (variant.clone(), "a retry lands whole"),
            (HuntText::Start, "one winner"),
        ] {
            assert!(record(&mut breaks, found(text, scenario, 5)));
        }
        let mut sorted = breaks.clone();
        sorted.sort();
        assert_eq!(breaks, sorted);
        assert_eq!(breaks[0], found(HuntText::Start, "one winner", 5));
    }

    #[test]
    fn a_found_break_reads_back_from_json_and_refuses_unknown_fields() {
        let json = r#"{"text":{"variant":"read, then write"},"scenario":"one winner","moves":6}"#;
        let read: FoundBreak = serde_json::from_str(json).unwrap();
        assert_eq!(read.text, HuntText::Variant("read, then write".into()));
        assert_eq!(serde_json::to_string(&read).unwrap(), json);
        assert_eq!(
            serde_json::to_string(&HuntText::Start).unwrap(),
            r#""start""#
        );
        assert!(serde_json::from_str::<FoundBreak>(&json.replace("moves", "steps")).is_err());
    }
}
