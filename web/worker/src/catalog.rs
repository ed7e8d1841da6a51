//! Where the worker's bundled exercises come from. In the browser, the
//! build's loaded form of them (web/src/catalog.rs) is a file of the site,
//! whose address web/start-worker.js gives as the worker's name
//! (`./catalog-HASH.json`; not as a query in the worker's own address,
//! which the service worker's cached answer drops): the page fetched it
//! already, so the worker reads the browser's cached copy, and neither wasm
//! file carries it. Natively (the prerender, the tests) it is compiled in,
//! as the build script wrote it (`Server::bundled`).
//!
//! The name's second word is the address of the exercise reader's loader
//! (`./reader_loader-HASH.js`, web/reader), which `reading.rs` starts when
//! a text first needs it.

use crate::serve::Server;

/// The address of the bundled exercises' file, from the worker's name
/// (`self.name`, its first word): a file beside the worker's,
/// `./NAME.json`, where NAME is letters, digits, `-`, `_` and `.`.
/// Anything else is refused by name: the worker fetches nothing else.
pub fn address(name: &str) -> Result<String, String> {
    let Some(value) = name.split(' ').next().filter(|value| !value.is_empty()) else {
        return Err(
            "the worker was started without the address of its exercises \
                    (web/start-worker.js gives it as the worker's name)"
                .to_string(),
        );
    };
    beside(value, ".json").ok_or_else(|| {
        format!(
            "the worker's exercises must be a `./NAME.json` file beside it, not `{}`",
            fencelab_model::text::visible(value)
        )
    })
}

/// The address of the exercise reader's script, from the worker's name
/// (its second word): `./NAME.js` beside the worker's, as for
/// [`address`]. The worker starts nothing else.
pub fn reader_address(name: &str) -> Result<String, String> {
    let Some(value) = name.split(' ').nth(1) else {
        return Err(
            "the worker was started without the address of the exercise reader \
                    (web/start-worker.js gives it as its name's second word)"
                .to_string(),
        );
    };
    beside(value, ".js").ok_or_else(|| {
        format!(
            "the exercise reader must be a `./NAME.js` file beside the worker, not `{}`",
            fencelab_model::text::visible(value)
        )
    })
}

/// `value` if it is `./NAME<extension>`, NAME of letters, digits, `-`, `_`
/// and `.`, not starting with `.`.
fn beside(value: &str, extension: &str) -> Option<String> {
    let name = value.strip_prefix("./")?;
    let plain = name
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'));
    (plain && name.ends_with(extension) && name.len() > extension.len() && !name.starts_with('.'))
        .then(|| value.to_string())
}

/// A server for the exercises in `fetched` (the file's bytes, or why it
/// could not be had), and the sentence the page must hear if there are
/// none: then every request that names an exercise fails, as for any
/// exercise the server does not have.
pub fn server(fetched: Result<Vec<u8>, String>) -> (Server, Option<String>) {
    let loaded = fetched.and_then(|bytes| {
        fencelab_model::bundled::from_loaded_json(bytes).map_err(|error| error.to_string())
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
        assert!(script.contains("var reader = \"./reader_loader.js\";"));
        assert!(script.contains("var name = catalog + \" \" + reader;"));
        assert!(script.contains("new Worker(address, { type: \"module\", name: name })"));

        let name = "./catalog.json ./reader_loader.js";
        assert_eq!(address(name).unwrap(), "./catalog.json");
        assert_eq!(reader_address(name).unwrap(), "./reader_loader.js");
        let hashed = "./catalog-0123456789abcdef.json ./reader_loader-0123456789abcdef.js";
        assert_eq!(address(hashed).unwrap(), "./catalog-0123456789abcdef.json");
        assert_eq!(
            reader_address(hashed).unwrap(),
            "./reader_loader-0123456789abcdef.js"
        );
        assert!(address("").unwrap_err().contains("without the address"));
        assert!(
            reader_address("./catalog.json")
                .unwrap_err()
                .contains("without the address of the exercise reader")
        );
        for hostile in [
            "https://example.com/x.js",
            "./../x.js",
            "./x.json",
            "./.js",
            "./x.js?y",
        ] {
            let refused = reader_address(&format!("./catalog.json {hostile}")).unwrap_err();
            assert!(
                refused.contains("must be a `./NAME.js` file"),
                "{hostile}: {refused}"
            );
        }
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
        let (served, failure) = server(Ok(crate::serve::loaded_json().as_bytes().to_vec()));
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
        let (_, failure) = server(Ok(b"{\"not\": \"a list\"".to_vec()));
        assert!(failure.unwrap().contains("cannot be read"));
    }
}
