//! What the authoring view tells the author above the editor, as facts:
//! reading the draft at start leaves an [`AuthorNotice`], and the notices
//! component words it (components/notices.rs), as the playground's
//! `state::Notice` is worded there.

/// One thing the authoring view tells the author, with the facts it is
/// told from.
#[derive(Clone, Debug, PartialEq)]
pub enum AuthorNotice {
    /// The saved draft could not be read (`message`); it is kept in this
    /// browser's storage under `key`.
    DraftSetAside { message: String, key: String },
    /// The link's exercise took the editor; the earlier saved draft, which
    /// differed, is kept in this browser's storage under `key`.
    EarlierDraftKept { key: String },
    /// The exercise link in the address could not be opened, and why: the
    /// saved draft is shown instead.
    LinkUnreadable(String),
}
