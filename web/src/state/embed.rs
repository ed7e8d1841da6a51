//! The frame's side of the embedding protocol, in the reducer: the host's
//! requests go through the same actions as the learner's clicks
//! (`set-procedures` replaces the editors' texts the way Reset does, as one
//! undoable change), and what the host should hear follows from the playground
//! after every action (`ready` once the exercise is open and the engine has
//! started, `checked` for every newest report, `solved` the first time the
//! learner's own texts pass). The messages wait in `Embedding::posts` for
//! the app's effect to post; this file never touches the DOM.

use super::{Action, FoundBreak, Given, HuntText, Playground, reduce};
use crate::embed::protocol::{
    self, Command, FrameMessage, HostRequest, ProcedureText, Refusal, Solution,
};
use fencelab_protocol::Edits;
use std::rc::Rc;

/// Messages kept for the app to post; it posts them within one render.
const POSTS_KEPT: usize = 16;

/// A frame embedded by a page that asked for results: to whom they go and
/// what has been said.
#[derive(Clone, Debug, PartialEq)]
pub struct Embedding {
    /// The parent's origin (`?parent=`, validated): the only one posted to
    /// and heard from.
    pub parent: String,
    ready_posted: bool,
    /// The `report_seq` of the last report posted as `checked`.
    checked_posted: u64,
    solved_posted: bool,
    /// The parent asked for hunts too (`?hunts=1`).
    pub hunts: bool,
    /// The breaks posted as `solved` of kind `hunt`.
    hunts_posted: Vec<FoundBreak>,
    /// Messages to post, numbered, oldest first.
    pub posts: Vec<Rc<(u64, FrameMessage)>>,
    next_post: u64,
}

impl Embedding {
    /// An embedding that reports to the page at `parent` (an origin, which
    /// is validated here), or why it cannot.
    pub fn new(parent: &str) -> Result<Embedding, String> {
        Ok(Embedding {
            parent: protocol::parent_origin(parent)?,
            ready_posted: false,
            checked_posted: 0,
            solved_posted: false,
            hunts: false,
            hunts_posted: Vec::new(),
            posts: Vec::new(),
            next_post: 0,
        })
    }

    fn post(&mut self, message: FrameMessage) {
        self.next_post += 1;
        self.posts.push(Rc::new((self.next_post, message)));
        let excess = self.posts.len().saturating_sub(POSTS_KEPT);
        self.posts.drain(..excess);
    }
}

impl Playground {
    /// A message from the parent: done and answered `ok`, or answered
    /// `error` with why.
    pub(super) fn host(&mut self, message: Result<HostRequest, Refusal>) {
        if self.embedding.is_none() {
            return;
        }
        let reply = match message {
            Err(refusal) => FrameMessage::Error {
                id: refusal.id,
                message: refusal.message,
            },
            Ok(HostRequest { id, command }) => match self.obey(command) {
                Ok(()) => FrameMessage::Ok { id },
                Err(message) => FrameMessage::Error {
                    id: Some(id),
                    message,
                },
            },
        };
        if let Some(embedding) = &mut self.embedding {
            embedding.post(reply);
        }
    }

    fn obey(&mut self, command: Command) -> Result<(), String> {
        let Some(exercise) = self.exercise() else {
            return Err("no exercise is open in this frame".into());
        };
        if self.open.opening.is_some() {
            return Err("the exercise is still opening: wait for `ready`".into());
        }
        match command {
            Command::SetProcedures(texts) => {
                let editable: Vec<&str> = exercise
                    .procedures
                    .iter()
                    .filter(|p| p.editable)
                    .map(|p| p.name.as_str())
                    .collect();
                if let Some(unknown) = texts.keys().find(|n| !editable.contains(&n.as_str())) {
                    return Err(format!(
                        "`{unknown}` is not an editable procedure of `{}` (its editable procedures: {})",
                        exercise.id,
                        quoted(&editable)
                    ));
                }
                let mut replaced: Edits = self.open.texts.clone();
                replaced.extend(texts);
                self.replace_texts(replaced);
                self.open.given = Some(Given::Host);
                self.open.loaded_variant = None;
                self.announcement = "The course page put new text in the editor.".into();
            }
            Command::Reset => reduce(self, Action::Reset),
            Command::Check => reduce(self, Action::RunNow),
            Command::ShowScenario(name) => {
                if !exercise.scenarios.iter().any(|s| s.name == name) {
                    let names: Vec<&str> =
                        exercise.scenarios.iter().map(|s| s.name.as_str()).collect();
                    return Err(format!(
                        "`{name}` is not a scenario of `{}` (its scenarios: {})",
                        exercise.id,
                        quoted(&names)
                    ));
                }
                reduce(self, Action::Select(name));
            }
        }
        Ok(())
    }

    /// After every action: what the host has not yet heard and should.
    pub(super) fn tell_parent(&mut self) {
        let Some(embedding) = &self.embedding else {
            return;
        };
        let open = &self.open;
        let mut messages = Vec::new();
        let mut ready_posted = embedding.ready_posted;
        if !ready_posted
            && open.opening.is_none()
            && let (Some(exercise), Some(sqlite_version)) = (self.exercise(), &self.sqlite_version)
        {
            ready_posted = true;
            messages.push(FrameMessage::Ready {
                exercise: exercise.id.clone(),
                title: exercise.title.clone(),
                procedures: open
                    .texts
                    .iter()
                    .map(|(name, text)| ProcedureText {
                        name: name.clone(),
                        text: text.clone(),
                    })
                    .collect(),
                sqlite_version: sqlite_version.clone(),
            });
        }
        let fresh = open.report.as_ref().filter(|_| {
            ready_posted
                && open.report_seq == open.check_wanted
                && open.report_seq != embedding.checked_posted
        });
        let checked_posted = match fresh {
            Some(report) => {
                messages.push(FrameMessage::checked(report, &open.texts, self.own_texts()));
                open.report_seq
            }
            None => embedding.checked_posted,
        };
        let solved = ready_posted && !embedding.solved_posted && self.solved();
        if solved {
            messages.push(FrameMessage::Solved {
                exercise: self.exercise_id(),
                procedures: open.texts.clone(),
                kind: Solution::Repair,
            });
        }
        // A break found by hand, said once per text and scenario.
        let hunt = self
            .found_break()
            .filter(|_| ready_posted && embedding.hunts)
            .filter(|(found, _)| {
                !embedding
                    .hunts_posted
                    .iter()
                    .any(|p| p.text == found.text && p.scenario == found.scenario)
            });
        if let Some((found, found_break)) = &hunt {
            let variant = match &found.text {
                HuntText::Start => None,
                HuntText::Variant(name) => Some(name.as_str()),
            };
            messages.push(FrameMessage::Solved {
                exercise: self.exercise_id(),
                procedures: open.texts.clone(),
                kind: Solution::hunt(&found.scenario, variant, found_break),
            });
        }
        let hunt = hunt.map(|(found, _)| found);
        if let Some(embedding) = &mut self.embedding {
            embedding.ready_posted = ready_posted;
            embedding.checked_posted = checked_posted;
            embedding.solved_posted |= solved;
            embedding.hunts_posted.extend(hunt);
            for message in messages {
                embedding.post(message);
            }
        }
    }
}

fn quoted(names: &[&str]) -> String {
    names
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}
