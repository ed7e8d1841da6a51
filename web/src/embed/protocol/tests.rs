//! The protocol's validation on hostile and honest input: origins as the
//! browser writes them and everything else refused with a sentence; host
//! messages read or refused with their id; frame messages as posted.

use super::*;
use fencelab_model::{ScenarioReport, ScenarioResult};

#[test]
fn a_parent_is_an_http_origin_exactly_as_the_browser_writes_it() {
    for (given, origin) in [
        ("https://course.example", "https://course.example"),
        ("HTTPS://Course.Example", "https://course.example"),
        ("http://127.0.0.1:8080", "http://127.0.0.1:8080"),
        ("https://course.example:443", "https://course.example"),
        ("http://localhost:80", "http://localhost"),
        // A port is its number: leading zeros name the same one (found by
        // the host_message fuzz target: `:0443` read as `:443`, which then
        // read back as no port).
        ("https://le:0443", "https://le"),
        ("http://localhost:080", "http://localhost"),
        (
            "https://course.example:08443",
            "https://course.example:8443",
        ),
        ("http://[::1]:3000", "http://[::1]:3000"),
        (
            "https://xn--bcher-kva.example",
            "https://xn--bcher-kva.example",
        ),
    ] {
        assert_eq!(parent_origin(given).as_deref(), Ok(origin), "{given}");
    }
}

#[test]
fn a_parent_that_is_not_exactly_an_origin_is_refused_with_why() {
    for (given, why) in [
        ("*", "is not an origin"),
        ("course.example", "is not an origin"),
        ("javascript://alert(1)", "not an http or https origin"),
        ("file:///etc", "not an http or https origin"),
        (
            "https://course.example/",
            "write only https://course.example",
        ),
        ("https://course.example/lesson", "a path, query or fragment"),
        ("https://course.example?x", "a path, query or fragment"),
        ("https://user@course.example", "does not name a host"),
        ("https://", "does not name a host"),
        ("https://a..b", "does not name a host"),
        ("https://bücher.example", "xn-- form"),
        ("https://course.example:0", "no valid port"),
        ("https://course.example:65536", "no valid port"),
        ("https://course.example:+80", "no valid port"),
        ("https://course.example:", "no valid port"),
    ] {
        let error = parent_origin(given).expect_err(given);
        assert!(error.contains(why), "{given}: {error}");
    }
    let long = format!("https://{}.example", "a".repeat(400));
    assert!(
        parent_origin(&long)
            .unwrap_err()
            .contains("longer than the 300")
    );
    // The host_message fuzz target's second finding: 290 characters of
    // three bytes each before a path were quoted whole (over 1 KiB).
    let before_a_path = format!("https://{}/x", "\u{fffd}".repeat(290));
    let error = parent_origin(&before_a_path).unwrap_err();
    assert!(error.contains("a path, query or fragment"), "{error}");
    assert!(error.len() <= 1024, "{} bytes: {error}", error.len());
}

/// A host message posted as `json` says, read as the page reads the
/// posted object (serde_json here, serde-wasm-bindgen in the page).
fn read(json: &str) -> Result<HostRequest, Refusal> {
    read_host(&mut serde_json::Deserializer::from_str(json))
}

#[test]
fn host_messages_are_read_with_their_id() {
    assert_eq!(
        read(r#"{"fencelab":1,"type":"set-procedures","id":7,"procedures":{"claim":"SELECT 1;"}}"#),
        Ok(HostRequest {
            id: RequestId::Number(7),
            command: Command::SetProcedures(Edits::from([("claim".into(), "SELECT 1;".into())])),
        })
    );
    assert_eq!(
        read(r#"{"fencelab":1,"type":"reset","id":"r-1","later":"ignored"}"#),
        Ok(HostRequest {
            id: RequestId::Text("r-1".into()),
            command: Command::Reset,
        })
    );
    assert_eq!(
        read(r#"{"fencelab":1,"type":"check","id":0}"#).map(|r| r.command),
        Ok(Command::Check)
    );
    assert_eq!(
        read(r#"{"fencelab":1,"type":"show-scenario","id":1,"scenario":"one winner"}"#)
            .map(|r| r.command),
        Ok(Command::ShowScenario("one winner".into()))
    );
}

#[test]
fn a_host_message_that_cannot_be_read_is_refused_with_its_id_when_it_has_one() {
    let n = Some(RequestId::Number(3));
    for (json, id, why) in [
        (r#""not an object""#, None, "must be an object"),
        ("[1,2]", None, "must be an object"),
        (r#""reset""#, None, "must be an object"),
        (r#"{"fencelab":1,"type":"reset"}"#, None, "needs an `id`"),
        (
            r#"{"fencelab":1,"type":"reset","id":-1}"#,
            None,
            "needs an `id`",
        ),
        (
            r#"{"fencelab":1,"type":"reset","id":1.5}"#,
            None,
            "needs an `id`",
        ),
        (
            r#"{"fencelab":1,"type":"reset","id":null}"#,
            None,
            "needs an `id`",
        ),
        (
            r#"{"fencelab":1,"type":"reset","id":9007199254740992}"#,
            None,
            "needs an `id`",
        ),
        (
            r#"{"type":"reset","id":3}"#,
            n.clone(),
            "needs a `fencelab` field",
        ),
        (
            r#"{"fencelab":"1","type":"reset","id":3}"#,
            n.clone(),
            "needs a `fencelab` field",
        ),
        (
            r#"{"fencelab":2,"type":"reset","id":3}"#,
            n.clone(),
            "version 1, and the message is version 2",
        ),
        (r#"{"fencelab":1,"id":3}"#, n.clone(), "needs a `type`"),
        (
            r#"{"fencelab":1,"type":"delete-everything","id":3}"#,
            n.clone(),
            "`delete-everything` is not a message",
        ),
        (
            r#"{"fencelab":1,"type":"set-procedures","id":3}"#,
            n.clone(),
            "needs `procedures`",
        ),
        (
            r#"{"fencelab":1,"type":"set-procedures","id":3,"procedures":["x"]}"#,
            n.clone(),
            "needs `procedures`",
        ),
        (
            r#"{"fencelab":1,"type":"set-procedures","id":3,"procedures":{"claim":1}}"#,
            n.clone(),
            "the text of `claim` must be a string",
        ),
        (
            r#"{"fencelab":1,"type":"show-scenario","id":3}"#,
            n.clone(),
            "needs a `scenario`",
        ),
        (
            r#"{"fencelab":1,"type":"show-scenario","id":3,"scenario":7}"#,
            n.clone(),
            "needs a `scenario`",
        ),
    ] {
        let refusal = read(json).expect_err(json);
        assert_eq!(refusal.id, id, "{json}");
        assert!(refusal.message.contains(why), "{json}: {}", refusal.message);
    }
}

#[test]
fn host_messages_are_bounded_in_every_dimension() {
    let long_id = format!(
        r#"{{"fencelab":1,"type":"reset","id":"{}"}}"#,
        "i".repeat(201)
    );
    assert!(
        read(&long_id)
            .unwrap_err()
            .message
            .contains("needs an `id`")
    );

    // Fields the frame does not read are passed over, however large.
    let padded = format!(
        r#"{{"fencelab":1,"type":"reset","id":1,"pad":"{}"}}"#,
        "x".repeat(HOST_MESSAGE_BYTES_MAX)
    );
    assert_eq!(read(&padded).map(|r| r.command), Ok(Command::Reset));
    let texts: Vec<String> = (0..20)
        .map(|i| format!(r#""p{i}":"{}""#, "x".repeat(PROCEDURE_TEXT_BYTES_MAX - 100)))
        .collect();
    let huge = format!(
        r#"{{"fencelab":1,"type":"set-procedures","id":1,"procedures":{{{}}}}}"#,
        texts.join(",")
    );
    let refusal = read(&huge).unwrap_err();
    assert!(
        refusal.message.contains("more than the 262144 read"),
        "{}",
        refusal.message
    );
    // Refused with its id, so the host's request settles.
    assert_eq!(refusal.id, Some(RequestId::Number(1)));
    let many_fields: Vec<String> = (0..100).map(|i| format!(r#""f{i}":0"#)).collect();
    let many_fields = format!(
        r#"{{"fencelab":1,"type":"reset","id":1,{}}}"#,
        many_fields.join(",")
    );
    assert!(read(&many_fields).is_err(), "a message of 103 fields");
    let long_string = format!(r#""{}""#, "q".repeat(10_000));
    let refusal = read(&long_string).unwrap_err();
    assert!(
        refusal.message.len() < 400,
        "a refusal quotes the message: {} bytes",
        refusal.message.len()
    );
    let deep_field = format!(
        r#"{{"fencelab":1,"type":"reset","id":{}{}}}"#,
        "[".repeat(10_000),
        "]".repeat(10_000)
    );
    assert!(
        read(&deep_field).is_err(),
        "deep nesting in a field is refused, not a stack overflow"
    );

    let text = "x".repeat(PROCEDURE_TEXT_BYTES_MAX + 1);
    let big_text = format!(
        r#"{{"fencelab":1,"type":"set-procedures","id":1,"procedures":{{"claim":"{text}"}}}}"#
    );
    assert!(
        read(&big_text)
            .unwrap_err()
            .message
            .contains("a procedure may have at most 16384")
    );

    let many: Vec<String> = (0..=PROCEDURES_PER_MESSAGE_MAX)
        .map(|i| format!(r#""p{i}":"""#))
        .collect();
    let many = format!(
        r#"{{"fencelab":1,"type":"set-procedures","id":1,"procedures":{{{}}}}}"#,
        many.join(",")
    );
    assert!(
        read(&many)
            .unwrap_err()
            .message
            .contains("33 procedures, more than the 32")
    );

    let long_name = format!(
        r#"{{"fencelab":1,"type":"set-procedures","id":1,"procedures":{{"{}":""}}}}"#,
        "n".repeat(201)
    );
    assert!(
        read(&long_name)
            .unwrap_err()
            .message
            .contains("longer than 200")
    );

    let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
    assert!(
        read(&deep).is_err(),
        "deep nesting is refused, not a stack overflow"
    );
}

/// An oversized message is refused with its id, so the host's request
/// settles: wherever the id is among the fields, and whichever text is too
/// large (one alone larger than a message, or a procedure's name).
#[test]
fn an_oversized_message_is_refused_with_its_id() {
    let one_text = "x".repeat(HOST_MESSAGE_BYTES_MAX + 1);
    for (message, id) in [
        (
            format!(
                r#"{{"fencelab":1,"type":"set-procedures","procedures":{{"claim":"{one_text}"}},"id":"last"}}"#
            ),
            Some(RequestId::Text("last".into())),
        ),
        (
            format!(
                r#"{{"id":7,"fencelab":1,"type":"set-procedures","procedures":{{"{one_text}":"x"}}}}"#
            ),
            Some(RequestId::Number(7)),
        ),
        (
            format!(r#"{{"id":7,"fencelab":1,"type":"show-scenario","scenario":"{one_text}"}}"#),
            Some(RequestId::Number(7)),
        ),
        // An id that is itself past its bound cannot be repeated.
        (
            format!(r#"{{"id":"{one_text}","fencelab":1,"type":"reset"}}"#),
            None,
        ),
    ] {
        let refusal = read(&message).unwrap_err();
        assert_eq!(refusal.id, id, "{}", &refusal.message);
        assert!(
            refusal.message.contains("more than the 262144 read"),
            "{}",
            refusal.message
        );
    }
}

#[test]
fn frame_messages_carry_the_version_and_their_type() {
    let json = FrameMessage::Resize { height: 640 }.to_json();
    assert_eq!(json, r#"{"fencelab":1,"type":"resize","height":640}"#);
    let json = FrameMessage::Error {
        id: None,
        message: "why".into(),
    }
    .to_json();
    assert_eq!(
        json,
        r#"{"fencelab":1,"type":"error","id":null,"message":"why"}"#
    );
    let json = FrameMessage::Ok {
        id: RequestId::Text("a".into()),
    }
    .to_json();
    assert_eq!(json, r#"{"fencelab":1,"type":"ok","id":"a"}"#);
}

#[test]
fn checked_says_every_verdict_and_sentence_with_totals() {
    let exercise = &fencelab_model::bundled::catalog().unwrap()[0];
    let scenario = |i: usize, result: ScenarioResult| ScenarioReport {
        result,
        ..ScenarioReport::errored(
            &exercise.scenarios[i],
            fencelab_model::ScenarioError::of(fencelab_model::report::ErrorKind::Unusable {
                message: "unused".into(),
            }),
        )
    };
    let report = ExerciseReport::new(
        &exercise.id,
        vec![
            scenario(0, ScenarioResult::Passed),
            scenario(1, ScenarioResult::LimitShown),
            ScenarioReport::errored(
                &exercise.scenarios[2],
                fencelab_model::ScenarioError::of(fencelab_model::report::ErrorKind::Unusable {
                    message: "no such table: leases".into(),
                }),
            ),
        ],
    );
    let texts = Edits::from([("claim".to_string(), "SELECT 1;".to_string())]);
    let json: serde_json::Value =
        serde_json::from_str(&FrameMessage::checked(&report, &texts, true).to_json()).unwrap();
    assert_eq!(json["type"], "checked");
    assert_eq!(
        json["procedures"],
        serde_json::json!({ "claim": "SELECT 1;" }),
        "the texts the verdicts are of"
    );
    assert_eq!(json["exercise"], exercise.id.as_str());
    assert_eq!(json["own_texts"], true, "whose texts they are, as given");
    assert_eq!(
        (
            json["passed"].as_u64(),
            json["failed"].as_u64(),
            json["total"].as_u64()
        ),
        (Some(2), Some(1), Some(3))
    );
    let verdicts: Vec<(&str, bool)> = json["scenarios"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["verdict"].as_str().unwrap(),
                s["passes"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        verdicts,
        [("passed", true), ("limit_shown", true), ("error", false)]
    );
    assert_eq!(json["scenarios"][0]["message"], serde_json::Value::Null);
    assert!(
        json["scenarios"][2]["message"]
            .as_str()
            .unwrap()
            .contains("no such table: leases")
    );
    assert_eq!(
        json["scenarios"][2]["name"],
        exercise.scenarios[2].name.as_str()
    );
    let kinds: Vec<&serde_json::Value> = json["scenarios"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| &s["error_kind"])
        .collect();
    assert_eq!(
        kinds,
        [
            &serde_json::Value::Null,
            &serde_json::Value::Null,
            &serde_json::json!("unusable")
        ],
        "an error says its kind; a pass has none"
    );
    // A limit reached is told from an SQL error by its kind alone.
    let limited = ExerciseReport::new(
        &exercise.id,
        vec![ScenarioReport::errored(
            &exercise.scenarios[0],
            fencelab_model::ScenarioError::of(fencelab_model::report::ErrorKind::Limit {
                limit: fencelab_model::report::Limit::Schedules { maximum: 5 },
            }),
        )],
    );
    let json: serde_json::Value =
        serde_json::from_str(&FrameMessage::checked(&limited, &texts, false).to_json()).unwrap();
    assert_eq!(json["scenarios"][0]["verdict"], "error");
    assert_eq!(json["scenarios"][0]["error_kind"], "limit");
    assert_eq!(json["own_texts"], false);
}
