//! A share link pasted into this tab changes only the fragment, which
//! loads nothing: the page reloads so the link is read like any opened
//! link. Any other change of the fragment is left alone.

use wasm_bindgen::prelude::*;
use yew::prelude::*;

#[hook]
pub fn use_share_link_reload() {
    use_effect_with((), |_| {
        let listener = Closure::<dyn FnMut()>::new(reload_on_share_link);
        super::listen_on_window("hashchange", listener)
    });
}

fn reload_on_share_link() {
    if let Some(window) = web_sys::window() {
        let hash = window.location().hash().unwrap_or_default();
        if crate::share::is_link(hash.trim_start_matches('#')) {
            let _ = window.location().reload();
        }
    }
}
