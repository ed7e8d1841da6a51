//! The panic notice, in a real browser: what the panic hook shows when the
//! page's wasm panics. (The hook itself only logs and calls `show`.)

#![cfg(target_arch = "wasm32")]

use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
fn a_panic_notice_offers_a_reload_and_leaves_the_saved_work_alone() {
    let window = web_sys::window().expect("a browser window");
    let document = window.document().expect("a document");
    let storage = window.local_storage().ok().flatten().expect("localStorage");
    storage
        .set_item("fencelab:panic-test", "my edit")
        .expect("a saved entry");

    fencelab_web::panic::show("index out of bounds");

    let notice = document
        .get_element_by_id("panic-notice")
        .expect("the notice is shown");
    assert_eq!(notice.get_attribute("role").as_deref(), Some("alert"));
    let text = notice.text_content().unwrap_or_default();
    assert!(text.contains("index out of bounds"), "{text}");
    assert!(text.contains("Your work is saved"), "{text}");
    let reload = document
        .get_element_by_id("panic-reload")
        .expect("a reload button");
    assert_eq!(reload.tag_name(), "BUTTON");

    // A second panic does not stack a second notice.
    fencelab_web::panic::show("again");
    let text = document
        .get_element_by_id("panic-notice")
        .and_then(|n| n.text_content())
        .unwrap_or_default();
    assert!(!text.contains("again"), "{text}");

    assert_eq!(
        storage
            .get_item("fencelab:panic-test")
            .ok()
            .flatten()
            .as_deref(),
        Some("my edit")
    );
}
