//! Messages about saved work, links and the site's exercises: what was set
//! aside, what a link showed, what could not be loaded, and the way back to
//! the learner's own version. Each playground [`Notice`], and each of the
//! authoring view's [`AuthorNotice`]s (about its draft), is worded here, and
//! only here.

use crate::author::notice::AuthorNotice;
use crate::state::Notice;
use std::fmt;
use yew::prelude::*;

/// `T`: the playground's [`Notice`] or the authoring view's
/// [`AuthorNotice`]; only the playground goes back to saved work.
#[derive(Properties, PartialEq)]
pub struct NoticesProps<T: PartialEq> {
    pub notices: Vec<T>,
    #[prop_or_default]
    pub can_go_back: bool,
    #[prop_or_default]
    pub on_back: Callback<()>,
    #[prop_or_default]
    pub on_keep: Callback<()>,
    pub on_dismiss: Callback<()>,
}

#[function_component(Notices)]
pub fn notices<T: PartialEq + fmt::Display + 'static>(props: &NoticesProps<T>) -> Html {
    if props.notices.is_empty() && !props.can_go_back {
        return html! {};
    }
    let back = props.on_back.reform(|_: MouseEvent| ());
    let keep = props.on_keep.reform(|_: MouseEvent| ());
    let dismiss = props.on_dismiss.reform(|_: MouseEvent| ());
    html! {
        <section class="notices" role="status" aria-label="Notices">
            { for props.notices.iter().map(|n| html! { <p class="notice">{ "ℹ " }{ n.to_string() }</p> }) }
            <div class="notice-actions">
                if props.can_go_back {
                    <button id="back-to-saved" onclick={back}>{ "Back to my saved version" }</button>
                    <button id="keep-linked" onclick={keep}>{ "Keep this version" }</button>
                }
                if !props.notices.is_empty() {
                    <button onclick={dismiss}>{ "Dismiss" }</button>
                }
            </div>
        </section>
    }
}

/// A notice's sentence, as the page shows it.
impl fmt::Display for Notice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Notice::LinkUnreadable(message) => write!(
                f,
                "This link could not be opened: {message}. Your own work is shown instead."
            ),
            Notice::ParentNotOrigin(why) => write!(
                f,
                "This frame cannot report to the page that embeds it: its address's `parent` is not an origin ({why}). The exercise works, but no results are sent."
            ),
            Notice::SavedWorkSetAside { message, aside_key } => write!(
                f,
                "Your saved work for this exercise could not be read ({message}). It was set aside under the key `{aside_key}` in this browser's storage, and the exercise starts from its starting text."
            ),
            Notice::LinkShown { saved_aside } => {
                f.write_str("You are looking at the version in the link you opened.")?;
                if *saved_aside {
                    f.write_str(
                        " Your own saved version is one click away: \"Back to my saved version\". \
                         Until you choose \"Keep this version\", your saved work is left as it was.",
                    )?;
                }
                Ok(())
            }
            Notice::WorkerFailed(message) => f.write_str(message),
            Notice::CheckFailed(message) => {
                write!(f, "Your procedures could not be checked: {message}")
            }
            Notice::SiteUnusable(message) => {
                write!(
                    f,
                    "This site's own exercises could not be loaded: {message}."
                )
            }
            Notice::FileFailed { file, message } => {
                write!(f, "{file} could not be loaded ({message}); it is left out.")
            }
            Notice::Unloadable(error) => write!(f, "{error}. This exercise is left out."),
            Notice::DraftInPlace { file, id } => write!(
                f,
                "This is the draft from the link, shown in place of the site's {file} \
                 (the same id, “{id}”)."
            ),
            Notice::IdTaken { file, id } => write!(
                f,
                "{file}: the id “{id}” is already another exercise's; this one is left out."
            ),
            Notice::Unchecked(error) => write!(f, "{error}. This exercise cannot be checked."),
            Notice::LinkedExerciseMissing(exercise) => write!(
                f,
                "This link names an exercise this page does not have (“{exercise}”); \
                 your own work is shown instead."
            ),
            Notice::Missing {
                exercise,
                embed: true,
            } => write!(
                f,
                "There is no exercise “{exercise}” here. Check the exercise= id in this \
                 frame's address against the ids the site serves."
            ),
            Notice::Missing {
                exercise,
                embed: false,
            } => write!(
                f,
                "There is no exercise “{exercise}” on this page. Choose one of these:"
            ),
        }
    }
}

/// An authoring notice's sentence, as the authoring view shows it.
impl fmt::Display for AuthorNotice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AuthorNotice::DraftSetAside { message, key } => write!(
                f,
                "Your saved draft could not be read ({message}); it is kept in this browser's storage as `{key}`."
            ),
            AuthorNotice::EarlierDraftKept { key } => write!(
                f,
                "The link's exercise is in the editor; your earlier draft is kept in this browser's storage as `{key}`."
            ),
            AuthorNotice::LinkUnreadable(message) => write!(
                f,
                "This link could not be opened: {message}. Your saved draft is shown instead."
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The sentences the reducer's tests read before notices were typed:
    /// the wording is held here, where it is made.
    #[test]
    fn each_notice_is_said_as_before() {
        assert_eq!(
            Notice::SiteUnusable(
                "exercises/index.toml: format 9 is not one this page reads (it reads format 1)"
                    .into()
            )
            .to_string(),
            "This site's own exercises could not be loaded: exercises/index.toml: format 9 is not one this page reads (it reads format 1)."
        );
        assert_eq!(
            Notice::WorkerFailed("the checking worker stopped with an error".into()).to_string(),
            "the checking worker stopped with an error"
        );
        assert_eq!(
            Notice::FileFailed {
                file: "exercises/b.toml".into(),
                message: "the checker was restarted".into()
            }
            .to_string(),
            "exercises/b.toml could not be loaded (the checker was restarted); it is left out."
        );
        assert_eq!(
            Notice::LinkShown { saved_aside: false }.to_string(),
            "You are looking at the version in the link you opened."
        );
        assert_eq!(
            Notice::LinkShown { saved_aside: true }.to_string(),
            "You are looking at the version in the link you opened. Your own saved version is one click away: \"Back to my saved version\". Until you choose \"Keep this version\", your saved work is left as it was."
        );
        assert_eq!(
            Notice::DraftInPlace {
                file: "exercises/mine.toml".into(),
                id: "mine".into()
            }
            .to_string(),
            "This is the draft from the link, shown in place of the site's exercises/mine.toml (the same id, “mine”)."
        );
    }

    /// A learner on the page is told to choose another exercise; only a
    /// frame's author is sent to its address, and no notice on the page
    /// shows markup.
    #[test]
    fn a_missing_exercise_is_said_for_the_page_or_the_frame() {
        let missing = |embed| {
            Notice::Missing {
                exercise: "no-such-exercise".into(),
                embed,
            }
            .to_string()
        };
        assert_eq!(
            missing(false),
            "There is no exercise “no-such-exercise” on this page. Choose one of these:"
        );
        assert!(!missing(false).contains('`'));
        assert!(missing(true).contains("Check the exercise= id in this frame's address"));
        assert_eq!(
            Notice::LinkedExerciseMissing("no-such-exercise".into()).to_string(),
            "This link names an exercise this page does not have (“no-such-exercise”); your own work is shown instead."
        );
    }

    #[test]
    fn each_authoring_notice_is_said_as_before() {
        assert_eq!(
            AuthorNotice::EarlierDraftKept {
                key: "fencelab-draft-aside".into()
            }
            .to_string(),
            "The link's exercise is in the editor; your earlier draft is kept in this browser's storage as `fencelab-draft-aside`."
        );
        assert_eq!(
            AuthorNotice::LinkUnreadable("it is cut short".into()).to_string(),
            "This link could not be opened: it is cut short. Your saved draft is shown instead."
        );
    }
}
