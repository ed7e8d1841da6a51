//! The authoring view's state and its reducer, a plain function of (state,
//! action) tested natively: the draft's text, what the model's loader makes
//! of it on every change (the same messages as `fencelab check`), and what
//! the worker's check of it found.
//!
//! Every change parses the draft at once; a draft that loads is then
//! checked by the worker (`Request::Author`) after a pause in typing (the
//! app's effect waits for `check_wanted` to settle), and only the newest
//! request's answer is kept. Must never read storage, the URL or the clock:
//! the component's effects do, and hand over what they read.

use fencelab_model::report::ExerciseCheck;
use fencelab_model::{Exercise, LoadError};
use fencelab_protocol::{Request, Response};
use std::rc::Rc;

/// The file name the draft's errors carry.
pub const DRAFT_FILE: &str = "draft.toml";
/// How long after the last change the draft is checked: a whole check
/// (every scenario against the reference, the start and each variant).
pub const CHECK_DELAY_MS: u32 = 400;

/// The draft as the model's loader read it.
#[derive(Clone, Debug, PartialEq)]
pub struct Draft {
    pub id: String,
    pub title: String,
}

/// An error to underline in the editor: 1-based line and column, and the
/// loader's sentence (file:line:column: field: message, as the CLI prints).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Diagnostic {
    pub line: usize,
    pub column: usize,
    pub message: String,
}

impl From<&LoadError> for Diagnostic {
    fn from(error: &LoadError) -> Diagnostic {
        Diagnostic {
            line: error.line.max(1),
            column: error.column.max(1),
            message: error.to_string(),
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Author {
    /// The draft, as the editor has it.
    pub text: String,
    /// (generation, text): a text the editor should take as one undoable
    /// change (a template chosen).
    pub replace: Option<(u64, String)>,
    /// What the loader makes of `text`, without SQLite.
    pub parsed: Result<Draft, LoadError>,
    /// The check of the newest draft that loaded, once answered.
    pub check: Option<Rc<ExerciseCheck>>,
    /// Why the worker could not load the newest draft (its schema, tried on
    /// SQLite), at its place in the file.
    pub worker_error: Option<LoadError>,
    /// The worker could not answer at all, and why.
    pub failed: Option<String>,
    /// The newest check request, sent once `check_wanted` has settled.
    pub request: Option<Request>,
    /// Counts the changes that want a check, for the debounce.
    pub check_wanted: u64,
    /// The seq of the request whose answer is awaited.
    pub pending: Option<u64>,
    next_seq: u64,
    /// The ids of the bundled exercises, which a draft may not take if it
    /// is to be previewed.
    bundled_ids: Vec<String>,
    pub notices: Vec<String>,
    /// The share link made for the text as it is, or why none can be.
    pub share: Option<Result<String, String>>,
}

pub enum AuthorAction {
    Edited(String),
    /// Start again from this text (a template), as one undoable change.
    Replace(String),
    /// Check now, without waiting for the pause (Ctrl/Cmd+Enter).
    CheckNow,
    Worker(Box<Response>),
    /// Make a share link for the draft on this page's address.
    Share {
        base: String,
    },
    DismissNotices,
}

impl Author {
    /// The view over `text` (what the link, the saved draft or the starter
    /// gave), with the notices its reading left.
    pub fn new(text: String, notices: Vec<String>, bundled_ids: Vec<String>) -> Author {
        let mut author = Author {
            parsed: parse(&text),
            text,
            replace: None,
            check: None,
            worker_error: None,
            failed: None,
            request: None,
            check_wanted: 0,
            pending: None,
            next_seq: 0,
            bundled_ids,
            notices,
            share: None,
        };
        author.want_check();
        author
    }

    /// The errors to underline: the loader's, else the worker's.
    pub fn diagnostics(&self) -> Vec<Diagnostic> {
        match (&self.parsed, &self.worker_error) {
            (Err(error), _) | (Ok(_), Some(error)) => vec![error.into()],
            (Ok(_), None) => Vec::new(),
        }
    }

    /// Whether a check of the text as it is has yet to arrive.
    pub fn checking(&self) -> bool {
        self.pending.is_some()
    }

    /// Why the draft cannot be previewed as a learner sees it, if it cannot.
    pub fn preview_blocked(&self) -> Option<String> {
        match &self.parsed {
            Err(_) => Some("Preview needs a draft that loads: mend the error first.".into()),
            Ok(draft) if self.bundled_ids.contains(&draft.id) => Some(format!(
                "`{}` is a bundled exercise's id: give the draft an id of its own to preview it.",
                draft.id
            )),
            Ok(_) => None,
        }
    }

    /// The draft's file name for a download: its id, or `draft.toml`.
    pub fn file_name(&self) -> String {
        match &self.parsed {
            Ok(draft) => format!("{}.toml", draft.id),
            Err(_) => DRAFT_FILE.to_string(),
        }
    }

    /// A new request for the text as it is, when it loads; none otherwise
    /// (its error is already shown, and the worker would only repeat it).
    fn want_check(&mut self) {
        self.check_wanted += 1;
        self.worker_error = None;
        self.failed = None;
        if self.parsed.is_err() {
            self.request = None;
            self.pending = None;
            self.check = None;
            return;
        }
        self.next_seq += 1;
        let seq = self.next_seq;
        self.pending = Some(seq);
        self.request = Some(Request::Author {
            seq,
            file: DRAFT_FILE.to_string(),
            source: self.text.clone(),
        });
    }

    fn answered(&mut self, response: Response) {
        match response {
            Response::Authored { seq, result } if Some(seq) == self.pending => {
                self.pending = None;
                match result {
                    Ok(check) => self.check = Some(Rc::new(check)),
                    Err(error) => {
                        self.check = None;
                        self.worker_error = Some(error);
                    }
                }
            }
            Response::Failed { seq, message } if Some(seq) == self.pending || seq == 0 => {
                self.pending = None;
                self.failed = Some(message);
            }
            // Stale answers, and what the authoring view never asks for.
            _ => {}
        }
    }
}

/// The model's loader over `text` (no SQLite on the page: the schema is
/// tried by the worker).
fn parse(text: &str) -> Result<Draft, LoadError> {
    Exercise::from_toml(DRAFT_FILE, text).map(|exercise| Draft {
        id: exercise.id,
        title: exercise.title,
    })
}

pub fn reduce(author: &mut Author, action: AuthorAction) {
    match action {
        AuthorAction::Edited(text) => {
            if text == author.text {
                return;
            }
            author.parsed = parse(&text);
            author.text = text;
            author.share = None;
            author.want_check();
        }
        AuthorAction::Replace(text) => {
            let generation = author.replace.as_ref().map_or(1, |(g, _)| g + 1);
            author.replace = Some((generation, text.clone()));
            reduce(author, AuthorAction::Edited(text));
        }
        AuthorAction::CheckNow => author.want_check(),
        AuthorAction::Worker(response) => author.answered(*response),
        AuthorAction::Share { base } => {
            author.share = Some(
                super::link::encode(&author.text)
                    .map(|fragment| format!("{base}?author=1#{fragment}")),
            );
        }
        AuthorAction::DismissNotices => author.notices.clear(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fencelab_model::report::{ExerciseReport, KillMatrix};

    fn starter() -> Author {
        Author::new(
            super::super::templates::starter(),
            Vec::new(),
            vec!["claim-compare-and-set".into()],
        )
    }

    fn seq_of(author: &Author) -> u64 {
        match &author.request {
            Some(Request::Author { seq, source, file }) => {
                assert_eq!(source, &author.text);
                assert_eq!(file, DRAFT_FILE);
                *seq
            }
            other => panic!("a check request, not {other:?}"),
        }
    }

    fn checked(exercise: &str) -> ExerciseCheck {
        ExerciseCheck {
            title: "Draft".into(),
            reference: ExerciseReport::new(exercise, Vec::new()),
            start: Vec::new(),
            matrix: KillMatrix::new(vec!["one".into()]),
            stale_equivalents: Vec::new(),
        }
    }

    #[test]
    fn a_draft_that_loads_is_checked_and_only_the_newest_answer_is_kept() {
        let mut author = starter();
        assert_eq!(author.parsed.as_ref().map(|d| d.id.as_str()), Ok("starter"));
        let first = seq_of(&author);
        let edited = author.text.replace("Two helpers", "Three helpers");
        reduce(&mut author, AuthorAction::Edited(edited));
        let second = seq_of(&author);
        assert!(second > first);
        reduce(
            &mut author,
            AuthorAction::Worker(Box::new(Response::Authored {
                seq: first,
                result: Ok(checked("stale")),
            })),
        );
        assert!(
            author.check.is_none() && author.checking(),
            "a stale answer is dropped"
        );
        reduce(
            &mut author,
            AuthorAction::Worker(Box::new(Response::Authored {
                seq: second,
                result: Ok(checked("starter")),
            })),
        );
        assert_eq!(
            author.check.as_ref().map(|c| c.reference.exercise.as_str()),
            Some("starter")
        );
        assert!(!author.checking());
        assert!(author.diagnostics().is_empty());
    }

    #[test]
    fn a_toml_error_is_a_diagnostic_at_its_line_and_nothing_is_sent() {
        let mut author = starter();
        let wanted = author.check_wanted;
        let broken = author
            .text
            .replacen("title = \"Two helpers, one ticket\"", "title = ", 1);
        reduce(&mut author, AuthorAction::Edited(broken.clone()));
        assert!(author.request.is_none() && !author.checking());
        assert!(
            author.check_wanted > wanted,
            "the pending check is cancelled"
        );
        let diagnostics = author.diagnostics();
        let line = broken.lines().position(|l| l == "title = ").unwrap() + 1;
        assert_eq!(diagnostics.len(), 1);
        assert_eq!(diagnostics[0].line, line, "{diagnostics:?}");
        assert!(
            diagnostics[0]
                .message
                .starts_with(&format!("draft.toml:{line}:")),
            "{}",
            diagnostics[0].message
        );
        assert!(author.preview_blocked().is_some());
        assert_eq!(author.file_name(), "draft.toml");
    }

    #[test]
    fn the_workers_schema_error_is_shown_at_its_place_until_the_next_edit() {
        let mut author = starter();
        let seq = seq_of(&author);
        let error = LoadError {
            file: DRAFT_FILE.into(),
            line: 31,
            column: 10,
            field: "schema".into(),
            message: "near \"tokens\": syntax error".into(),
        };
        reduce(
            &mut author,
            AuthorAction::Worker(Box::new(Response::Authored {
                seq,
                result: Err(error.clone()),
            })),
        );
        assert_eq!(author.diagnostics(), vec![Diagnostic::from(&error)]);
        assert_eq!(author.diagnostics()[0].column, 10);
        let edited = format!("{}\n", author.text);
        reduce(&mut author, AuthorAction::Edited(edited));
        assert!(
            author.diagnostics().is_empty(),
            "a new draft, not yet checked"
        );
        let seq = seq_of(&author);
        reduce(
            &mut author,
            AuthorAction::Worker(Box::new(Response::Failed {
                seq,
                message: "the worker stopped".into(),
            })),
        );
        assert_eq!(author.failed.as_deref(), Some("the worker stopped"));
    }

    #[test]
    fn a_template_replaces_the_text_and_a_bundled_id_blocks_the_preview() {
        let mut author = starter();
        assert_eq!(author.preview_blocked(), None);
        assert_eq!(author.file_name(), "starter.toml");
        let (_, claim) = fencelab_model::bundled::FILES[0];
        reduce(&mut author, AuthorAction::Replace(claim.to_string()));
        assert_eq!(author.replace, Some((1, claim.to_string())));
        assert_eq!(author.text, claim);
        assert!(
            author
                .preview_blocked()
                .is_some_and(|b| b.contains("claim-compare-and-set")),
            "{:?}",
            author.preview_blocked()
        );
        reduce(&mut author, AuthorAction::Replace(claim.to_string()));
        assert_eq!(author.replace.as_ref().map(|r| r.0), Some(2));
    }

    #[test]
    fn a_share_link_carries_the_text_and_opens_in_the_authoring_view() {
        let mut author = starter();
        reduce(
            &mut author,
            AuthorAction::Share {
                base: "https://example.org/fencelab/".into(),
            },
        );
        let Some(Ok(url)) = &author.share else {
            panic!("a link: {:?}", author.share);
        };
        let fragment = url
            .strip_prefix("https://example.org/fencelab/?author=1#")
            .expect("the authoring view's address");
        assert_eq!(
            super::super::link::decode(fragment).as_deref(),
            Ok(author.text.as_str())
        );
        reduce(&mut author, AuthorAction::Edited("x".into()));
        assert_eq!(author.share, None, "a link is of the text it was made for");
    }
}
