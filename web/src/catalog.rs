//! The bundled exercises as the page starts with them: already loaded, by
//! web/build.rs at build time with the model's own loader, and read here
//! from JSON. Parsing their TOML on every start took about 4x longer
//! (15.6 ms against 4.1 ms natively, more in wasm), on the way to the first
//! verdict.
//!
//! In the browser the loaded form is not in the page's wasm: the build
//! writes it once as the site's [`FILE`] (web/prerender), which the page
//! and its worker both fetch; web/start-worker.js starts that fetch from
//! the document's head and web/boot.js hands its bytes over
//! (`globalThis.fencelabCatalog`, an `ArrayBuffer`) before the app starts.
//! Carried in both wasm files it was 41 KB brotli twice. Natively (the
//! prerender) and in the page's own tests it is compiled in, as the build
//! wrote it. Bytes, not text: a JavaScript string is encoded to UTF-8 again
//! on its way into the wasm by a loop of JavaScript over its characters,
//! cold at the start (about 20 ms of the page's start for this file, whose
//! first 200,000 characters are ASCII); bytes are copied as they are.

use fencelab_model::{Exercise, LoadError};

/// The site's file of the bundled exercises' loaded form, by its name
/// before the build names it after its content.
pub const FILE: &str = "catalog.json";

/// The loaded form as this crate's build script wrote it: what the build
/// writes as [`FILE`], and what the page reads where nothing is fetched.
#[cfg(any(test, not(target_arch = "wasm32")))]
pub fn loaded_json() -> &'static str {
    fencelab_model::loaded_json_at_build_time!()
}

/// The bundled exercises, or why they could not be loaded.
pub fn bundled() -> Result<Vec<Exercise>, LoadError> {
    match bytes() {
        Ok(bytes) => fencelab_model::bundled::from_loaded_json(bytes),
        Err(message) => Err(LoadError {
            file: FILE.into(),
            line: 0,
            column: 0,
            field: "(loaded form)".into(),
            message,
        }),
    }
}

#[cfg(any(test, not(target_arch = "wasm32")))]
fn bytes() -> Result<&'static [u8], String> {
    Ok(loaded_json().as_bytes())
}

/// The bytes web/boot.js fetched, taken from the global it left them in on
/// first use (and the global deleted): they are read again whenever the
/// app starts anew, and live as long as the page.
#[cfg(not(any(test, not(target_arch = "wasm32"))))]
fn bytes() -> Result<&'static [u8], String> {
    use wasm_bindgen::{JsCast, JsValue};
    /// Where web/boot.js leaves the bytes, before the app starts.
    const GLOBAL: &str = "fencelabCatalog";
    static BYTES: std::sync::OnceLock<Result<&'static [u8], String>> = std::sync::OnceLock::new();
    BYTES
        .get_or_init(|| {
            let global = js_sys::global();
            let key = JsValue::from_str(GLOBAL);
            let value = js_sys::Reflect::get(&global, &key).unwrap_or(JsValue::UNDEFINED);
            let _ = js_sys::Reflect::delete_property(&global, &key);
            value
                .dyn_into::<js_sys::ArrayBuffer>()
                .map(|buffer| {
                    &*Box::leak(js_sys::Uint8Array::new(&buffer).to_vec().into_boxed_slice())
                })
                .map_err(|_| {
                    format!(
                        "the page started without its exercises: web/boot.js fetches {FILE} and \
                         hands its bytes over as globalThis.{GLOBAL} before the app starts"
                    )
                })
        })
        .clone()
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_build_time_catalogue_is_what_the_loader_gives_now() {
        let loaded = fencelab_model::bundled::catalog();
        assert!(loaded.is_ok(), "{loaded:?}");
        assert_eq!(super::bundled(), loaded);
    }
}
