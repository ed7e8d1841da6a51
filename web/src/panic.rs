//! A panic must never leave a dead page. The hook writes a notice straight
//! into the DOM (yew may be the thing that broke) with a reload button; the
//! learner's work is already in localStorage, saved on every edit, so the
//! reload brings it back.

use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;

pub fn install() {
    std::panic::set_hook(Box::new(|info| {
        let message = info.to_string();
        web_sys::console::error_1(&JsValue::from_str(&message));
        show(&message);
    }));
}

/// Writes the notice and its reload button at the top of the page, once.
pub fn show(message: &str) {
    let Some(document) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    let Some(body) = document.body() else { return };
    if document.get_element_by_id("panic-notice").is_some() {
        return;
    }
    let Ok(notice) = document.create_element("div") else {
        return;
    };
    notice.set_id("panic-notice");
    notice.set_class_name("panic-notice");
    let _ = notice.set_attribute("role", "alert");
    let text = document.create_element("p");
    if let Ok(text) = text {
        text.set_text_content(Some(&format!(
            "Something went wrong inside the playground ({message}). Your work is saved in this browser; reloading brings it back."
        )));
        let _ = notice.append_child(&text);
    }
    if let Ok(button) = document.create_element("button") {
        button.set_id("panic-reload");
        button.set_text_content(Some("Reload the playground"));
        let reload = Closure::<dyn FnMut()>::new(|| {
            if let Some(window) = web_sys::window() {
                let _ = window.location().reload();
            }
        });
        if let Some(button) = button.dyn_ref::<web_sys::HtmlElement>() {
            button.set_onclick(Some(reload.as_ref().unchecked_ref()));
        }
        reload.forget();
        let _ = notice.append_child(&button);
    }
    let _ = body.prepend_with_node_1(&notice);
}
