//! The PostgreSQL verdicts the site recorded of an exercise's dialect
//! (issue 53, item 4; `fencelab record`, run when the site is built with a
//! server at hand): the page cannot run PostgreSQL, so it fetches what was
//! recorded (`postgres/ID.json`) for the open exercise that has a dialect,
//! once, and shows it beside its live SQLite verdicts. The app's effect
//! fetches; this reads what arrived.

use super::Playground;
use fencelab_model::report::{RECORDED_DIR, Recorded, recorded_file};
use std::rc::Rc;

/// What the site holds of one exercise's recorded PostgreSQL verdicts.
#[derive(Clone, Debug, PartialEq)]
pub enum RecordedVerdicts {
    /// Asked of the site; no answer yet.
    Fetching,
    /// The site has none: it was built without a PostgreSQL server.
    None,
    Found(Rc<Recorded>),
    /// The site answered with something that is not a recording of this
    /// exercise, or not at all: why.
    Unreadable(String),
}

/// The site's answer for a recording, as the app fetched it: its text, or
/// `None` when the site has no such file.
pub type RecordedFetched = Result<Option<String>, String>;

/// The address of `exercise`'s recording, relative to the page.
pub fn recorded_path(exercise: &str) -> String {
    format!("./{RECORDED_DIR}/{}", recorded_file(exercise))
}

impl Playground {
    /// The exercise whose recording the app should fetch: the open one,
    /// when it has a PostgreSQL dialect and nothing was asked for it yet;
    /// never in an embed, which shows the live verdicts only (a course's
    /// package carries no recordings, and its LMS answers 404 for them).
    pub fn recording_wanted(&self) -> Option<String> {
        let exercise = self.exercise()?;
        (!self.embed && exercise.postgres.is_some() && !self.recorded.contains_key(&exercise.id))
            .then(|| exercise.id.clone())
    }

    /// The app started fetching `exercise`'s recording.
    pub(super) fn recording_asked(&mut self, exercise: String) {
        self.recorded
            .entry(exercise)
            .or_insert(RecordedVerdicts::Fetching);
    }

    /// The site's answer for `exercise`'s recording.
    pub(super) fn recording_arrived(&mut self, exercise: String, fetched: RecordedFetched) {
        let verdicts = match fetched {
            Ok(None) => RecordedVerdicts::None,
            Ok(Some(text)) => match serde_json::from_str::<Recorded>(&text) {
                Ok(recorded) if recorded.exercise == exercise => {
                    RecordedVerdicts::Found(Rc::new(recorded))
                }
                Ok(recorded) => RecordedVerdicts::Unreadable(format!(
                    "it records exercise `{}`, not this one",
                    recorded.exercise
                )),
                Err(error) => {
                    RecordedVerdicts::Unreadable(format!("it is not a recording: {error}"))
                }
            },
            Err(message) => RecordedVerdicts::Unreadable(message),
        };
        self.recorded.insert(exercise, verdicts);
    }

    /// The open exercise's recorded verdicts: none when it has no dialect.
    pub fn recorded_verdicts(&self) -> Option<RecordedVerdicts> {
        let exercise = self.exercise()?;
        exercise.postgres.as_ref()?;
        if self.embed {
            return None;
        }
        Some(
            self.recorded
                .get(&exercise.id)
                .cloned()
                .unwrap_or(RecordedVerdicts::Fetching),
        )
    }
}
