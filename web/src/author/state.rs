//! The authoring view's state and its reducer, a plain function of (state,
//! action) tested natively: the draft's text, what the model's loader makes
//! of it on every change (the same messages as `fencelab check`), and what
//! the worker's check of it found.
//!
//! Every change is sent to the worker to be loaded at once (`Request::Author`
//! without `check`, answered `Drafted`: the page links no TOML parser); a
//! draft that loads is then checked by the worker (`Request::Author` with
//! `check`) after a pause in typing (the app's effect waits for
//! `check_wanted` to settle). Only the newest request's answer of each kind
//! is kept. Must never read storage, the URL or the clock: the component's
//! effects do, and hand over what they read.

use super::notice::AuthorNotice;
use fencelab_model::LoadError;
use fencelab_model::report::ExerciseCheck;
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
    /// What the worker's loader made of the newest text it has answered
    /// for, without SQLite; `None` until the first answer.
    pub parsed: Option<Result<Draft, LoadError>>,
    /// The newest load request, sent at once whenever `load_wanted` changes.
    pub load: Option<Request>,
    pub load_wanted: u64,
    /// The seq of the load whose answer is awaited.
    loading: Option<u64>,
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
    pub notices: Vec<AuthorNotice>,
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
    pub fn new(text: String, notices: Vec<AuthorNotice>, bundled_ids: Vec<String>) -> Author {
        let mut author = Author {
            parsed: None,
            load: None,
            load_wanted: 0,
            loading: None,
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
        author.want_load();
        author
    }

    /// The errors to underline: the loader's, else the worker's.
    pub fn diagnostics(&self) -> Vec<Diagnostic> {
        match (&self.parsed, &self.worker_error) {
            (Some(Err(error)), _) | (Some(Ok(_)), Some(error)) => vec![error.into()],
            _ => Vec::new(),
        }
    }

    /// Whether a check of the text as it is has yet to arrive (or what the
    /// loader makes of it, which decides whether one is sent).
    pub fn checking(&self) -> bool {
        self.pending.is_some() || self.loading.is_some()
    }

    /// Why the draft cannot be previewed as a learner sees it, if it cannot.
    pub fn preview_blocked(&self) -> Option<String> {
        match &self.parsed {
            None => Some("Preview needs the draft read first: a moment.".into()),
            Some(Err(_)) => Some("Preview needs a draft that loads: mend the error first.".into()),
            Some(Ok(draft)) if self.bundled_ids.contains(&draft.id) => Some(format!(
                "`{}` is a bundled exercise's id: give the draft an id of its own to preview it.",
                draft.id
            )),
            Some(Ok(_)) => None,
        }
    }

    /// The draft's file name for a download: its id, or `draft.toml`.
    pub fn file_name(&self) -> String {
        match &self.parsed {
            Some(Ok(draft)) => format!("{}.toml", draft.id),
            _ => DRAFT_FILE.to_string(),
        }
    }

    /// Asks the worker's loader for the text as it is (answered `Drafted`).
    fn want_load(&mut self) {
        self.next_seq += 1;
        let seq = self.next_seq;
        self.loading = Some(seq);
        self.load_wanted += 1;
        self.load = Some(Request::Author {
            seq,
            file: DRAFT_FILE.to_string(),
            source: self.text.clone(),
            check: false,
        });
    }

    /// A new request for the text as it is, when it loads; none otherwise
    /// (its error is already shown, and the worker would only repeat it).
    fn want_check(&mut self) {
        self.check_wanted += 1;
        self.worker_error = None;
        self.failed = None;
        if !matches!(self.parsed, Some(Ok(_))) {
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
            check: true,
        });
    }

    fn answered(&mut self, response: Response) {
        match response {
            Response::Drafted { seq, result } if Some(seq) == self.loading => {
                self.loading = None;
                self.parsed = Some(result.map(|exercise| Draft {
                    id: exercise.id,
                    title: exercise.title,
                }));
                self.want_check();
            }
            Response::Failed { seq, message } if Some(seq) == self.loading => {
                self.loading = None;
                self.failed = Some(message);
            }
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

/// The state as a yew reducer: [`reduce`] on a copy.
impl yew::Reducible for Author {
    type Action = AuthorAction;
    fn reduce(self: std::rc::Rc<Self>, action: AuthorAction) -> std::rc::Rc<Self> {
        let mut author = std::rc::Rc::unwrap_or_clone(self);
        reduce(&mut author, action);
        std::rc::Rc::new(author)
    }
}

pub fn reduce(author: &mut Author, action: AuthorAction) {
    match action {
        AuthorAction::Edited(text) => {
            if text == author.text {
                return;
            }
            author.text = text;
            author.share = None;
            // The check waits for what the loader makes of the new text;
            // one already wanted is of the old text.
            author.check_wanted += 1;
            author.request = None;
            author.pending = None;
            author.worker_error = None;
            author.failed = None;
            author.want_load();
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
        let mut author = Author::new(
            super::super::templates::starter(),
            Vec::new(),
            vec!["claim-compare-and-set".into()],
        );
        drafted(&mut author);
        author
    }

    /// Answers the newest load as the worker does, with the model's loader.
    fn drafted(author: &mut Author) {
        let Some(Request::Author {
            seq,
            file,
            source,
            check: false,
        }) = author.load.clone()
        else {
            panic!("a load request, not {:?}", author.load);
        };
        assert_eq!(source, author.text);
        reduce(
            author,
            AuthorAction::Worker(Box::new(Response::Drafted {
                seq,
                result: fencelab_model::Exercise::from_toml(&file, &source).map(Box::new),
            })),
        );
    }

    /// Edits the draft and answers its load.
    fn edit(author: &mut Author, text: String) {
        reduce(author, AuthorAction::Edited(text));
        drafted(author);
    }

    #[test]
    fn nothing_is_read_on_the_page_and_a_stale_load_is_dropped() {
        let mut author = Author::new("format = ".into(), Vec::new(), Vec::new());
        assert_eq!(author.parsed, None, "read by the worker, not here");
        assert!(author.checking() && author.request.is_none());
        assert!(author.preview_blocked().is_some());
        let Some(Request::Author { seq: first, .. }) = author.load.clone() else {
            panic!("a load request");
        };
        let wanted = author.load_wanted;
        reduce(
            &mut author,
            AuthorAction::Edited(super::super::templates::starter()),
        );
        assert!(author.load_wanted > wanted, "every change is sent");
        reduce(
            &mut author,
            AuthorAction::Worker(Box::new(Response::Drafted {
                seq: first,
                result: Err(LoadError {
                    file: DRAFT_FILE.into(),
                    line: 1,
                    column: 10,
                    field: "format".into(),
                    message: "stale".into(),
                }),
            })),
        );
        assert_eq!(author.parsed, None, "an answer for an older text");
        drafted(&mut author);
        assert_eq!(
            author
                .parsed
                .as_ref()
                .map(|p| p.as_ref().map(|d| d.id.as_str())),
            Some(Ok("starter"))
        );
        assert!(author.request.is_some(), "a draft that loads is checked");
    }

    fn seq_of(author: &Author) -> u64 {
        match &author.request {
            Some(Request::Author {
                seq,
                source,
                file,
                check: true,
            }) => {
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
        assert_eq!(
            author
                .parsed
                .as_ref()
                .map(|p| p.as_ref().map(|d| d.id.as_str())),
            Some(Ok("starter"))
        );
        let first = seq_of(&author);
        let edited = author.text.replace("Two helpers", "Three helpers");
        edit(&mut author, edited);
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
        edit(&mut author, broken.clone());
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
        drafted(&mut author);
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
        drafted(&mut author);
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
