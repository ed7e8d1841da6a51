//! Where the worker's bundled exercises come from. In the browser, the
//! build's loaded form of them (web/src/catalog.rs) is a file of the site,
//! whose address web/start-worker.js gives as the worker's name
//! (`./catalog-HASH.json`; not as a query in the worker's own address,
//! which the service worker's cached answer drops): the page fetched it
//! already, so the worker reads the browser's cached copy, and neither wasm
//! file carries it. Natively (the prerender, the tests) it is compiled in,
//! as the build script wrote it (`Server::bundled`).

use crate::serve::Server;

/// The address of the bundled exercises' file, from the worker's name
/// (`self.name`): a file beside the worker's, `./NAME.json`, where NAME is
/// letters, digits, `-`, `_` and `.`. Anything else is refused by name:
/// the worker fetches nothing else.
pub fn address(value: &str) -> Result<String, String> {
    if value.is_empty() {
        return Err(
            "the worker was started without the address of its exercises \
                    (web/start-worker.js gives it as the worker's name)"
                .to_string(),
        );
    }
    let name = value.strip_prefix("./").unwrap_or_default();
    let plain = name
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'));
    if plain && name.ends_with(".json") && !name.starts_with('.') {
        Ok(value.to_string())
    } else {
        Err(format!(
            "the worker's exercises must be a `./NAME.json` file beside it, not `{}`",
            fencelab_model::text::visible(value)
        ))
    }
}

/// A server for the exercises in `fetched` (the file's text, or why it
/// could not be had), and the sentence the page must hear if there are
/// none: then every request that names an exercise fails, as for any
/// exercise the server does not have.
pub fn server(fetched: Result<String, String>) -> (Server, Option<String>) {
    let loaded = fetched.and_then(|text| {
        fencelab_model::bundled::from_loaded_json(&text).map_err(|error| error.to_string())
    });
    match loaded {
        Ok(exercises) => (Server::new(exercises), None),
        Err(reason) => (
            Server::new(Vec::new()),
            Some(format!(
                "the checking worker could not load the bundled exercises: {reason}"
            )),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_address_start_worker_js_writes_is_read_and_nothing_else() {
        // The lines of web/start-worker.js that name the worker.
        let script = include_str!("../../start-worker.js");
        assert!(script.contains("var catalog = \"./catalog.json\";"));
        assert!(script.contains("new Worker(address, { type: \"module\", name: catalog })"));

        assert_eq!(address("./catalog.json").unwrap(), "./catalog.json");
        let hashed = "./catalog-0123456789abcdef.json";
        assert_eq!(address(hashed).unwrap(), hashed);
        assert!(address("").unwrap_err().contains("without the address"));
        for hostile in [
            "https://example.com/x.json",
            "//example.com/x.json",
            "./../x.json",
            "./sub/x.json",
            "./x.js",
            "x.json",
            "./.json",
            "./x%2F.json",
            "./x.json?y",
            "./\u{202e}x.json",
        ] {
            let refused = address(hostile).unwrap_err();
            assert!(
                refused.contains("must be a `./NAME.json` file"),
                "{hostile}: {refused}"
            );
            assert!(!refused.contains('\u{202e}'), "{refused}");
        }
    }

    #[test]
    fn the_fetched_catalogue_serves_as_the_compiled_one_and_a_bad_one_is_said() {
        let (served, failure) = server(Ok(crate::serve::loaded_json().to_string()));
        assert_eq!(failure, None);
        assert!(!served.exercise_ids().is_empty());
        assert_eq!(served.exercise_ids(), Server::bundled().exercise_ids());

        let (served, failure) = server(Err("catalog-x.json answered 404 Not Found".into()));
        assert!(served.exercise_ids().is_empty());
        assert_eq!(
            failure.as_deref(),
            Some(
                "the checking worker could not load the bundled exercises: \
                 catalog-x.json answered 404 Not Found"
            )
        );
        let (_, failure) = server(Ok("{\"not\": \"a list\"".into()));
        assert!(failure.unwrap().contains("cannot be read"));
    }
}
