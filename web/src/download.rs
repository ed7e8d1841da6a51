//! Saving a text the page made as a file on the learner's disk: the
//! authoring view's exercise file and the take-home test alike. Touches
//! the document only; never the state.

use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;

/// Offers `text` as a file named `name`, of type `mime`: a Blob behind a
/// temporary link.
pub(crate) fn download(name: &str, text: &str, mime: &str) -> Result<(), JsValue> {
    let document = web_sys::window()
        .and_then(|w| w.document())
        .ok_or("no document")?;
    let parts = js_sys::Array::of1(&JsValue::from_str(text));
    let options = web_sys::BlobPropertyBag::new();
    options.set_type(mime);
    let blob = web_sys::Blob::new_with_str_sequence_and_options(&parts, &options)?;
    let url = web_sys::Url::create_object_url_with_blob(&blob)?;
    let anchor: web_sys::HtmlAnchorElement = document.create_element("a")?.unchecked_into();
    anchor.set_href(&url);
    anchor.set_download(name);
    anchor.click();
    web_sys::Url::revoke_object_url(&url)
}
