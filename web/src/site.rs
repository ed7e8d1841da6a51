//! Fetching a site's own exercises: `exercises/index.toml`, then the files
//! it names, from the page's own origin only (every address is relative to
//! the page, and the index can name nothing but plain file names beside
//! it). What arrives is handed to the reducer as it is: the worker reads
//! the index and each file (`state/site.rs`), and the reducer names the
//! files to fetch once it has read the index.

use crate::state::SiteExercises;
use fencelab_model::site::INDEX_PATH;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

/// The index's text, unread, or why there is none to read.
pub async fn fetch_index() -> SiteExercises {
    match text_of(INDEX_PATH).await {
        Ok(Some(text)) => SiteExercises::Index(text),
        Ok(None) => SiteExercises::NoIndex,
        Err(message) => SiteExercises::Unusable(format!("{INDEX_PATH}: {message}")),
    }
}

/// Every file the index names (`paths`, as the model's `SiteIndex::paths`
/// gives them), fetched in parallel.
pub async fn fetch_files(paths: &[String]) -> SiteExercises {
    // Every request starts before the first answer is awaited.
    let pending: Vec<_> = paths
        .iter()
        .map(|path| (path.clone(), start(path)))
        .collect();
    let mut files = Vec::with_capacity(pending.len());
    for (path, request) in pending {
        let text = match request {
            Ok(request) => read(request).await.and_then(|text| {
                text.ok_or_else(|| "the site does not serve it (404)".to_string())
            }),
            Err(message) => Err(message),
        };
        files.push((path, text));
    }
    SiteExercises::Files(files)
}

/// The text at `path`, relative to the page; `None` when the site has no
/// such file.
pub async fn text_of(path: &str) -> Result<Option<String>, String> {
    read(start(path)?).await
}

fn start(path: &str) -> Result<JsFuture, String> {
    let window = web_sys::window().ok_or("there is no window to fetch from")?;
    Ok(JsFuture::from(window.fetch_with_str(path)))
}

/// The text of a response; `None` when the site has no such file (a 404,
/// or a development server answering with its page instead).
async fn read(request: JsFuture) -> Result<Option<String>, String> {
    let response: web_sys::Response = request
        .await
        .map_err(|error| format!("it could not be fetched ({})", describe(&error)))?
        .dyn_into()
        .map_err(|_| "the answer is not an HTTP response".to_string())?;
    if response.status() == 404 {
        return Ok(None);
    }
    if !response.ok() {
        // A service worker's own answer may carry no status text.
        let status = match response.status_text() {
            text if text.is_empty() => response.status().to_string(),
            text => format!("{} {text}", response.status()),
        };
        return Err(format!("the site answered {status}"));
    }
    let html = response
        .headers()
        .get("content-type")
        .ok()
        .flatten()
        .is_some_and(|kind| kind.starts_with("text/html"));
    if html {
        return Ok(None);
    }
    let text = response.text().map_err(|error| describe(&error))?;
    let text = JsFuture::from(text)
        .await
        .map_err(|error| format!("it could not be read ({})", describe(&error)))?;
    Ok(text.as_string())
}

fn describe(error: &wasm_bindgen::JsValue) -> String {
    error
        .dyn_ref::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .or_else(|| error.as_string())
        .unwrap_or_else(|| "no reason given".into())
}
