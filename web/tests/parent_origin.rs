//! A frame's `?parent=` read by the browser's own URL parser, in a real
//! browser: the origin kept is the one the browser writes in a message's
//! `event.origin`, so the two compare equal whatever form the course page
//! wrote it in.

#![cfg(target_arch = "wasm32")]

use fencelab_web::embed::protocol::{checked_origin, parent_origin};
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
fn a_parent_is_kept_as_the_browser_writes_its_origin() {
    for (given, origin) in [
        // Forms the hand-written checks pass as they are, which no
        // message's origin would ever equal.
        ("http://127.1:8080", "http://127.0.0.1:8080"),
        ("http://0x7f.0.0.1", "http://127.0.0.1"),
        ("http://[0:0:0:0:0:0:0:1]:8080", "http://[::1]:8080"),
        // And the ordinary ones, unchanged.
        ("https://Course.Example:443", "https://course.example"),
        ("http://localhost:3000", "http://localhost:3000"),
    ] {
        assert_eq!(parent_origin(given).as_deref(), Ok(origin), "{given}");
    }
    // The browser's form of one the checks pass differs from theirs, which
    // is why the browser has the last word.
    assert_eq!(
        checked_origin("http://127.1:8080").as_deref(),
        Ok("http://127.1:8080")
    );
}

#[wasm_bindgen_test]
fn what_the_checks_refuse_stays_refused_with_their_reason() {
    let error = parent_origin("https://course.example/lesson").unwrap_err();
    assert!(error.contains("more than an origin"), "{error}");
    let error = parent_origin("javascript:alert(1)").unwrap_err();
    assert!(error.contains("is not an origin"), "{error}");
    // A host the URL parser refuses (an IPv4 number out of range) is
    // refused, not kept in a form no message carries.
    let error = parent_origin("http://1.2.3.999").unwrap_err();
    assert!(error.contains("this browser can read"), "{error}");
}
