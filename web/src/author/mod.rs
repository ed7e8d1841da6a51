//! The authoring view (`?author=1`): a course author edits an exercise's
//! TOML with the loader's errors underlined as they type, sees what
//! `fencelab check` says of it on every pause, previews it as a learner
//! sees it, and keeps it (autosaved, downloaded, or shared as a link that
//! carries the whole file).
//!
//! Its own state and reducer (`state.rs`), apart from the learner's; its
//! components are `components/author_*.rs`. It reaches the worker through
//! the same engine as the learner's page, with `Request::Author`, and
//! never installs the draft there: a preview opens the learner's page in a
//! new tab with a link carrying the draft, which installs it as a site's
//! own exercise is installed.

pub mod link;
pub mod notice;
pub mod saved;
pub mod state;
pub mod templates;

/// Whether the page's address asks for the authoring view (`?author=1`).
pub fn requested() -> bool {
    web_sys::window()
        .and_then(|w| w.location().search().ok())
        .and_then(|search| web_sys::UrlSearchParams::new_with_str(&search).ok())
        .and_then(|params| params.get("author"))
        .is_some_and(|value| value == "1")
}
