//! What the page tells the learner above the exercise, as facts: the
//! reducer pushes a [`Notice`], and the notices component words it
//! (components/notices.rs). The state never holds a notice's sentence, so
//! its tests match on what happened, not on how it is said.

use fencelab_model::LoadError;

/// One thing the page tells the learner, with the facts it is told from.
#[derive(Clone, Debug, PartialEq)]
pub enum Notice {
    /// The share link in the address could not be read, and why: the
    /// learner's own work is shown instead.
    LinkUnreadable(String),
    /// An embed's `?parent=` is not an origin, and why: the exercise works,
    /// but no results are sent.
    ParentNotOrigin(String),
    /// The saved work of the exercise could not be read (`message`); it was
    /// set aside under `aside_key`, and the exercise starts afresh.
    SavedWorkSetAside { message: String, aside_key: String },
    /// A link's version is in the editors; `saved_aside`: the learner's own
    /// saved version is one click away.
    LinkShown { saved_aside: bool },
    /// The worker itself failed, or a message could not be read (no request
    /// asked): the worker's own sentence.
    WorkerFailed(String),
    /// The newest check could not be run: the worker said why.
    CheckFailed(String),
    /// The site serves an index that cannot be used, and why.
    SiteUnusable(String),
    /// A file of the site could not be fetched, or the worker could not
    /// answer for it: it is left out.
    FileFailed { file: String, message: String },
    /// A file of the site does not load: the loader's error, naming its
    /// file, line and column. It is left out.
    Unloadable(LoadError),
    /// The link's draft is shown in place of the site's `file`, which has
    /// the same `id`.
    DraftInPlace { file: String, id: String },
    /// `file`'s `id` is another exercise's already: it is left out.
    IdTaken { file: String, id: String },
    /// A listed exercise whose schema does not load: the loader's error. It
    /// cannot be checked.
    Unchecked(LoadError),
    /// A share link names an exercise this page does not have: the
    /// learner's own work is shown instead.
    LinkedExerciseMissing(String),
    /// The address names an exercise this page does not have; `embed`: in a
    /// frame, which shows this alone.
    Missing { exercise: String, embed: bool },
}
