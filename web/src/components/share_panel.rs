//! Share: a link in a text field (and copied), carrying the exercise, the
//! edited procedures, and the selected scenario and schedule. The field's
//! label says whether the link is on the clipboard: being copied, copied,
//! or not copied.
//!
//! Copying may be refused (a cross-origin frame without the clipboard
//! permission, a browser without the Clipboard API): then a notice beside
//! the field says so, and the link is still there to select; the refusal is
//! handled, never an uncaught error.

use wasm_bindgen::JsValue;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct SharePanelProps {
    pub url: Option<String>,
    pub on_share: Callback<()>,
}

/// Copies `text`, or says in a sentence why it could not be.
pub(crate) async fn copy(text: String) -> Result<(), String> {
    let navigator = web_sys::window()
        .map(|w| JsValue::from(w.navigator()))
        .ok_or("there is no window")?;
    let clipboard = js_sys::Reflect::get(&navigator, &JsValue::from_str("clipboard"))
        .ok()
        .filter(|c| !c.is_undefined() && !c.is_null())
        .ok_or("this browser offers no clipboard here")?;
    let clipboard: web_sys::Clipboard = wasm_bindgen::JsCast::unchecked_into(clipboard);
    wasm_bindgen_futures::JsFuture::from(clipboard.write_text(&text))
        .await
        .map(|_| ())
        .map_err(|error| {
            js_sys::Reflect::get(&error, &JsValue::from_str("message"))
                .ok()
                .and_then(|m| m.as_string())
                .unwrap_or_else(|| "the browser refused".into())
        })
}

/// Where copying the newest link stands.
#[derive(Clone, Debug, PartialEq)]
enum Copying {
    Pending,
    Copied,
    /// Why it was not copied, in words.
    Refused(String),
}

/// The link field's label, which says whether the link was copied.
fn label(copying: &Copying) -> &'static str {
    match copying {
        Copying::Pending => "Link (copying it to the clipboard…):",
        Copying::Copied => "Link, copied to the clipboard:",
        Copying::Refused(_) => "Link, not copied to the clipboard:",
    }
}

#[function_component(SharePanel)]
pub fn share_panel(props: &SharePanelProps) -> Html {
    let share = props.on_share.reform(|_: MouseEvent| ());
    // Whether the newest link was copied, and why not if it was not.
    let copying = use_state(|| Copying::Pending);
    {
        let copying = copying.clone();
        use_effect_with(props.url.clone(), move |url| {
            copying.set(Copying::Pending);
            if let Some(url) = url.clone() {
                wasm_bindgen_futures::spawn_local(async move {
                    copying.set(match copy(url).await {
                        Ok(()) => Copying::Copied,
                        Err(why) => Copying::Refused(why),
                    });
                });
            }
        });
    }
    html! {
        <section class="share" aria-labelledby="share-title">
            <h2 id="share-title" class="visually-hidden">{ "Share" }</h2>
            <button id="share" onclick={share}>{ "Share this version" }</button>
            if let Some(url) = &props.url {
                <label for="share-url" id="share-label">{ label(&copying) }</label>
                <input id="share-url" type="text" readonly=true value={url.clone()} />
                if let Copying::Refused(why) = &*copying {
                    <p class="notice copy-refused" role="status">
                        { format!("The link could not be copied to the clipboard ({why}); select it above and copy it yourself.") }
                    </p>
                }
            }
        </section>
    }
}
