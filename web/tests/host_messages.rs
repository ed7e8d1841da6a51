//! The embedding protocol's messages as a real browser hands them over:
//! posted objects read by serde-wasm-bindgen (`embed/bridge.rs`'s `read`,
//! which the message listener gives `event.data`), and the frame's messages made into plain objects.
//! The sentences are the protocol's own (`embed/protocol.rs`, whose native
//! tests read the same messages as JSON text); here is what only JS values
//! have: numbers that are all doubles, BigInts, Maps, Sets, Dates,
//! undefined, cycles. Every value is passed through `structuredClone`, as
//! `postMessage` passes it.

#![cfg(target_arch = "wasm32")]

use fencelab_web::embed::bridge;
use fencelab_web::embed::protocol::{Command, FrameMessage, RequestId};
use serde::Serialize;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};

wasm_bindgen_test_configure!(run_in_browser);

/// The value a script's `return` gives, as a message event would hold it.
fn js(body: &str) -> JsValue {
    js_sys::Function::new_no_args(&format!("return structuredClone((() => {{ {body} }})());"))
        .call0(&JsValue::NULL)
        .expect("the script runs and its value can be posted")
}

fn read(value: JsValue) -> Result<(RequestId, Command), String> {
    bridge::read(value)
        .map(|request| (request.id, request.command))
        .map_err(|refusal| refusal.message)
}

#[wasm_bindgen_test]
fn posted_objects_are_read_field_by_field() {
    assert_eq!(
        read(js(
            "return { fencelab: 1, type: 'set-procedures', id: 7, procedures: { claim: 'SELECT 1;' } };"
        )),
        Ok((
            RequestId::Number(7),
            Command::SetProcedures([("claim".to_string(), "SELECT 1;".to_string())].into()),
        ))
    );
    // A double that is a whole number is one to JavaScript.
    assert_eq!(
        read(js("return { fencelab: 1.0, type: 'check', id: 3.0 };")),
        Ok((RequestId::Number(3), Command::Check))
    );
    // Whatever the frame does not read is never looked at: a cycle, a
    // deep nest, a Set, a BigInt.
    assert_eq!(
        read(js(
            "const m = { fencelab: 1, type: 'reset', id: 'r', set: new Set([1]), big: 10n ** 30n }; \
             m.self = m; let deep = []; for (let i = 0; i < 1000; i++) deep = [deep]; \
             m.deep = deep; return m;"
        )),
        Ok((RequestId::Text("r".into()), Command::Reset))
    );
}

#[wasm_bindgen_test]
fn what_a_page_can_post_but_the_protocol_does_not_take_is_refused_with_why() {
    for (script, why) in [
        ("return 'reset';", "must be an object"),
        ("return [1, 2];", "must be an object"),
        ("return null;", "must be an object"),
        ("return undefined;", "must be an object"),
        (
            "return { fencelab: 1, type: 'reset', id: 1.5 };",
            "needs an `id`",
        ),
        (
            "return { fencelab: 1, type: 'reset', id: -1 };",
            "needs an `id`",
        ),
        (
            "return { fencelab: 1, type: 'reset', id: undefined };",
            "needs an `id`",
        ),
        (
            "return { fencelab: 1, type: 'reset', id: 9007199254740993n };",
            "needs an `id`",
        ),
        (
            "return { fencelab: '1', type: 'reset', id: 1 };",
            "needs a `fencelab` field",
        ),
        ("return { fencelab: 2, type: 'reset', id: 1 };", "version 2"),
        (
            "return { fencelab: 1, type: new Date(0), id: 1 };",
            "needs a `type`",
        ),
        (
            "return { fencelab: 1, type: 'reset', id: new Map([['id', 1]]) };",
            "needs an `id`",
        ),
        // serde-wasm-bindgen reads no Set as any value: the message is
        // refused whole, with its sentence.
        (
            "return { fencelab: 1, type: 'reset', id: new Set([1]) };",
            "must be an object of fields",
        ),
        (
            "const m = { fencelab: 1, type: 'show-scenario', id: 1 }; m.scenario = m; return m;",
            "needs a `scenario`",
        ),
        (
            "return { fencelab: 1, type: 'set-procedures', id: 1, procedures: ['claim'] };",
            "needs `procedures`",
        ),
        (
            "return { fencelab: 1, type: 'set-procedures', id: 1, procedures: { claim: 7 } };",
            "the text of `claim` must be a string",
        ),
        (
            "const p = {}; for (let i = 0; i < 100000; i++) p['p' + i] = ''; \
             return { fencelab: 1, type: 'set-procedures', id: 1, procedures: p };",
            "100000 procedures, more than the 32",
        ),
    ] {
        let refusal = read(js(script)).expect_err(script);
        assert!(refusal.contains(why), "{script}: {refusal}");
    }
}

#[wasm_bindgen_test]
fn the_frames_messages_are_plain_objects_as_their_json_says() {
    let message = FrameMessage::Checked {
        exercise: "claim-compare-and-set".into(),
        scenarios: Vec::new(),
        passed: 0,
        failed: 0,
        total: 0,
        procedures: [("claim".to_string(), "SELECT 1;".to_string())].into(),
        own_texts: true,
    };
    let serializer = serde_wasm_bindgen::Serializer::json_compatible();
    let value = message
        .envelope()
        .serialize(&serializer)
        .expect("it serializes");
    let own = js_sys::Reflect::get(&value, &"own_texts".into()).unwrap();
    assert_eq!(own.as_bool(), Some(true), "own_texts is a boolean");
    let procedures = js_sys::Reflect::get(&value, &"procedures".into()).unwrap();
    assert!(
        !procedures.is_instance_of::<js_sys::Map>(),
        "maps are plain objects"
    );
    let text = js_sys::JSON::stringify(&value)
        .unwrap()
        .as_string()
        .unwrap();
    let expected = serde_json::to_string(&message.envelope()).unwrap();
    assert_eq!(text, expected);
}
