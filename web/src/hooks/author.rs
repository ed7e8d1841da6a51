//! The authoring view's effects (`components/author_app.rs` is its root),
//! one hook per seam with the outside: the worker and the debounced check
//! sent to it, the page around the draft (the link taken out of the
//! address, the theme, the title), and where the draft goes without being
//! asked (storage, and the clipboard for a share link). Each reads what it
//! needs from the author's state and dispatches what it read.

use crate::author::saved;
use crate::author::state::{Author, AuthorAction, CHECK_DELAY_MS};
use crate::hooks::address::drop_fragment;
use crate::hooks::document::apply_theme;
use crate::state::Theme;
use crate::worker_client::WorkerClient;
use gloo_timers::callback::Timeout;
use yew::prelude::*;

/// The worker, started once: every change of the draft sent to be loaded
/// at once, and the check of the newest draft that loads sent after a pause
/// in typing.
#[hook]
pub fn use_author_worker(author: &UseReducerHandle<Author>) {
    let client = {
        let dispatcher = author.dispatcher();
        use_memo((), move |_| {
            WorkerClient::start(
                crate::worker_client::answer_ms_from_address(),
                move |response| dispatcher.dispatch(AuthorAction::Worker(Box::new(response))),
            )
        })
    };
    let load = author.load.clone();
    {
        let client = client.clone();
        use_effect_with(author.load_wanted, move |_| {
            if let Some(load) = load {
                client.send(load);
            }
        });
    }
    let request = author.request.clone();
    use_effect_with(author.check_wanted, move |_| {
        let timer =
            request.map(|request| Timeout::new(CHECK_DELAY_MS, move || client.send(request)));
        move || drop(timer)
    });
}

/// The page around the draft: the link taken out of the address once read,
/// the theme chosen, and a title naming the draft.
#[hook]
pub fn use_author_page(author: &UseReducerHandle<Author>, theme: Theme) {
    use_effect_with((), |_| clear_fragment());
    use_effect_with(theme, |theme| apply_theme(*theme));
    let title = author
        .parsed
        .as_ref()
        .and_then(|parsed| parsed.as_ref().ok())
        .map(|d| d.title.clone());
    use_effect_with(title, |title| {
        if let Some(document) = web_sys::window().and_then(|w| w.document()) {
            let title = title.as_deref().unwrap_or("A draft");
            document.set_title(&format!("{title} · authoring · fencelab"));
        }
    });
}

/// Where the draft goes without being asked: storage on every change, and
/// the clipboard when a share link is made (refused copies are fine: the
/// field shows the link).
#[hook]
pub fn use_draft_leaving(author: &UseReducerHandle<Author>) {
    use_effect_with(author.text.clone(), |text| saved::save(text));
    use_effect_with(author.share.clone(), |share| {
        if let (Some(Ok(url)), Some(window)) = (share, web_sys::window()) {
            let _ = window.navigator().clipboard().write_text(url);
        }
    });
}

/// Removes the link from the address once read: the draft is autosaved, so
/// a reload shows it as edited since.
fn clear_fragment() {
    if let Some(window) = web_sys::window() {
        drop_fragment(&window);
    }
}
