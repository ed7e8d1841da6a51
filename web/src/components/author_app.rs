//! The authoring view's root (`?author=1`): owns its state
//! (author/state.rs), reads the link or the saved draft once, and calls its
//! effects, each a hook of its own in `hooks/author.rs` (the worker and the
//! debounced check sent to it, the page's title and theme, autosaving the
//! draft and copying its share link); and the actions that leave the page
//! (preview in a new tab, download, a share link) and opening a file from
//! disk.
//!
//! The layout: the editor beside what `fencelab check` says, which stays in
//! view on a wide screen; one after the other on a phone.

use crate::author::link;
use crate::author::notice::AuthorNotice;
use crate::author::saved::{self, SavedDraft};
use crate::author::state::{Author, AuthorAction};
use crate::author::templates::{self, Source, Template};
use crate::components::author_editor::AuthorEditor;
use crate::components::author_results::{AuthorResults, AuthorResultsProps};
use crate::components::notices::Notices;
use crate::components::setting_switch::SettingSwitch;
use crate::download::download;
use crate::hooks::address::page_address;
use crate::hooks::author::{use_author_page, use_author_worker, use_draft_leaving};
use crate::state::Theme;
use crate::{mount, storage};
use std::rc::Rc;
use web_sys::{File, HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

/// Mounts the authoring view in the page's root, replacing whatever it
/// held (the first exercise's prerendered page): the authoring wasm's
/// `main` (src/author_main.rs), which web/boot.js starts for `?author=1`.
pub fn start() {
    let Some(document) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    let Some(root) = mount::root(&document) else {
        return;
    };
    mount::afresh(&root);
    yew::Renderer::<AuthorApp>::with_root(root).render();
}

/// The largest file opened from disk: what the exercise loader reads.
const OPENED_BYTES_MAX: usize = fencelab_model::exercise::EXERCISE_FILE_BYTES_MAX;

/// Reads a file the author chose, within [`OPENED_BYTES_MAX`], as text.
async fn read_opened(file: File) -> Result<String, String> {
    let name = file.name();
    if file.size() > OPENED_BYTES_MAX as f64 {
        return Err(format!(
            "{name} is {} bytes; an exercise file may hold at most {OPENED_BYTES_MAX}, so the \
             draft is unchanged",
            file.size()
        ));
    }
    wasm_bindgen_futures::JsFuture::from(file.text())
        .await
        .ok()
        .and_then(|text| text.as_string())
        .ok_or_else(|| format!("{name} could not be read as text; the draft is unchanged"))
}

/// The draft to start from: a link's (`#x1=`), else the saved draft, else
/// the starter; and what reading them left to say. A link's exercise takes
/// the editor, so a different saved draft is set aside first.
fn read_draft() -> (String, Vec<AuthorNotice>) {
    let fragment = web_sys::window()
        .and_then(|w| w.location().hash().ok())
        .unwrap_or_default();
    let fragment = fragment.trim_start_matches('#');
    let mut notices = Vec::new();
    let saved = saved::load();
    if let SavedDraft::SetAside { message, key } = &saved {
        notices.push(AuthorNotice::DraftSetAside {
            message: message.clone(),
            key: key.clone(),
        });
    }
    if link::is_exercise_link(fragment) {
        match link::decode(fragment) {
            Ok(text) => {
                if matches!(&saved, SavedDraft::Text(before) if *before != text)
                    && let Some(key) = saved::set_aside_saved()
                {
                    notices.push(AuthorNotice::EarlierDraftKept { key });
                }
                return (text, notices);
            }
            Err(message) => notices.push(AuthorNotice::LinkUnreadable(message)),
        }
    }
    match saved {
        SavedDraft::Text(text) => (text, notices),
        _ => (templates::starter(), notices),
    }
}

/// Opens the learner's page in a new tab with a link carrying `text`.
fn preview(text: &str) -> Result<(), String> {
    let fragment = link::encode(text)?;
    let window = web_sys::window().ok_or("there is no window")?;
    window
        .open_with_url_and_target(&format!("{}#{fragment}", page_address()), "_blank")
        .map(drop)
        .map_err(|_| "the browser refused to open a tab".to_string())
}

#[function_component(AuthorApp)]
pub fn author_app() -> Html {
    let author = use_reducer(|| {
        let (text, notices) = read_draft();
        let bundled = crate::catalog::bundled()
            .map(|all| all.into_iter().map(|e| e.id).collect())
            .unwrap_or_default();
        Author::new(text, notices, bundled)
    });
    let initial = use_memo((), {
        let text = author.text.clone();
        move |_| text
    });
    let templates = use_memo((), |_| templates::templates());
    let theme = use_state(storage::theme);
    let action_error = use_state(|| None::<String>);
    use_author_worker(&author);
    use_author_page(&author, *theme);
    use_draft_leaving(&author);

    let on_change = {
        let dispatcher = author.dispatcher();
        Callback::from(move |text: String| dispatcher.dispatch(AuthorAction::Edited(text)))
    };
    let on_run = {
        let dispatcher = author.dispatcher();
        Callback::from(move |_: ()| dispatcher.dispatch(AuthorAction::CheckNow))
    };
    let on_theme = {
        let theme = theme.clone();
        Callback::from(move |chosen: Theme| {
            storage::save_theme(chosen);
            theme.set(chosen);
        })
    };
    let on_dismiss = {
        let dispatcher = author.dispatcher();
        Callback::from(move |_: ()| dispatcher.dispatch(AuthorAction::DismissNotices))
    };
    let tools = tools(&author, &templates, &action_error);
    let author: &Author = &author;

    html! {
        <div class="app author">
            <header class="masthead">
                <p class="brand">{ "fencelab · authoring" }</p>
                <p class="tagline">{ "Write an exercise: its errors are underlined as you type, and what fencelab check says appears beside it." }</p>
                <SettingSwitch<Theme> id="theme" label="Theme" class="theme-switch" value={*theme} on_change={on_theme} />
            </header>
            <main id="workspace" class="author-layout">
                <Notices<AuthorNotice> notices={author.notices.clone()} on_dismiss={on_dismiss} />
                { tools }
                <div class="author-work">
                    <AuthorEditor initial={AttrValue::from((*initial).clone())} replace={author.replace.clone()}
                        diagnostics={author.diagnostics()} on_change={on_change}
                        on_run={on_run} />
                    <AuthorResults ..AuthorResultsProps::of(author) />
                </div>
            </main>
        </div>
    }
}

/// The tools above the editor: start again from a template or a file,
/// preview, download, share, and what became of the last of them.
fn tools(
    author: &UseReducerHandle<Author>,
    templates: &Rc<Vec<Template>>,
    action_error: &UseStateHandle<Option<String>>,
) -> Html {
    let on_template = on_template(author.dispatcher(), templates.clone(), action_error.clone());
    let on_open_file = on_open_file(author.dispatcher(), action_error.clone());
    let on_share = {
        let dispatcher = author.dispatcher();
        Callback::from(move |_: MouseEvent| {
            dispatcher.dispatch(AuthorAction::Share {
                base: page_address(),
            })
        })
    };
    let on_download = {
        let (name, text) = (author.file_name(), author.text.clone());
        let action_error = action_error.clone();
        Callback::from(move |_: MouseEvent| {
            action_error.set(
                download(&name, &text, "application/toml")
                    .err()
                    .map(|e| format!("The file could not be offered for download ({e:?}).")),
            )
        })
    };
    let on_preview = {
        let text = author.text.clone();
        let action_error = action_error.clone();
        Callback::from(move |_: MouseEvent| {
            action_error.set(preview(&text).err().map(|e| format!("No preview: {e}.")))
        })
    };
    let author: &Author = author;
    let blocked = author.preview_blocked();
    html! {
        <div class="author-tools">
            <label for="template">{ "Start again from" }</label>
            <select id="template" onchange={on_template}>
                <option value="" selected=true>{ "a template…" }</option>
                { for templates.iter().enumerate().map(|(i, t)| html! {
                    <option value={i.to_string()}>{ t.name.clone() }</option>
                }) }
            </select>
            <label for="open-file">{ "or open a file" }</label>
            <input id="open-file" type="file" accept=".toml,text/plain" onchange={on_open_file} />
            <button id="preview" onclick={on_preview} disabled={blocked.is_some()}
                title={blocked.clone().unwrap_or_else(|| "Open the draft as a learner sees it, in a new tab".into())}>
                { "Preview as a learner" }
            </button>
            <button id="download" onclick={on_download}>{ format!("Download {}", author.file_name()) }</button>
            <button id="share" onclick={on_share}>{ "Share as a link" }</button>
            if let Some(reason) = &blocked {
                <p class="muted" id="preview-blocked">{ reason.clone() }</p>
            }
            if let Some(message) = &**action_error {
                <p class="error" role="alert">{ message.clone() }</p>
            }
            { match &author.share {
                Some(Ok(url)) => html! { <>
                    <label for="share-url">{ "Link carrying the whole exercise (copied to the clipboard when allowed):" }</label>
                    <input id="share-url" type="text" readonly=true value={url.clone()} />
                </> },
                Some(Err(message)) => html! { <p class="error" role="alert">{ format!("No link: {message}.") }</p> },
                None => html! {},
            } }
        </div>
    }
}

/// The template chosen replaces the draft, as one undoable change; the
/// choice goes back to "a template…". A bundled file is fetched from the
/// site first (the service worker has it offline); one that cannot be
/// fetched says why and leaves the draft as it is.
fn on_template(
    dispatcher: UseReducerDispatcher<Author>,
    templates: Rc<Vec<Template>>,
    action_error: UseStateHandle<Option<String>>,
) -> Callback<Event> {
    Callback::from(move |event: Event| {
        let chosen = event
            .target_dyn_into::<HtmlSelectElement>()
            .and_then(|select| {
                let index = select.value().parse::<usize>().ok();
                select.set_value("");
                index
            })
            .and_then(|index| templates.get(index).cloned());
        match chosen.map(|t| t.source) {
            Some(Source::Text(text)) => {
                action_error.set(None);
                dispatcher.dispatch(AuthorAction::Replace(text.to_string()));
            }
            Some(Source::Bundled(file)) => {
                let (dispatcher, action_error) = (dispatcher.clone(), action_error.clone());
                wasm_bindgen_futures::spawn_local(async move {
                    let address = templates::address(file);
                    let fetched = crate::site::text_of(&address).await.and_then(|text| {
                        text.ok_or_else(|| "the site does not serve it".to_string())
                    });
                    match fetched {
                        Ok(text) => {
                            action_error.set(None);
                            dispatcher.dispatch(AuthorAction::Replace(templates::copied(&text)));
                        }
                        Err(message) => action_error.set(Some(format!(
                            "The template {address} could not be opened: {message}."
                        ))),
                    }
                });
            }
            None => {}
        }
    })
}

/// A file from disk replaces the draft as one undoable change, as a
/// template does; one that cannot be read says why.
fn on_open_file(
    dispatcher: UseReducerDispatcher<Author>,
    action_error: UseStateHandle<Option<String>>,
) -> Callback<Event> {
    Callback::from(move |event: Event| {
        let Some(input) = event.target_dyn_into::<HtmlInputElement>() else {
            return;
        };
        let chosen = input.files().and_then(|files| files.get(0));
        // The same file can be chosen again after an edit.
        input.set_value("");
        let Some(file) = chosen else {
            return;
        };
        let dispatcher = dispatcher.clone();
        let action_error = action_error.clone();
        wasm_bindgen_futures::spawn_local(async move {
            match read_opened(file).await {
                Ok(text) => {
                    action_error.set(None);
                    dispatcher.dispatch(AuthorAction::Replace(text));
                }
                Err(message) => action_error.set(Some(format!("Not opened: {message}."))),
            }
        });
    })
}
