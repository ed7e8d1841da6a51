//! Where an app mounts, and how it takes the root over: the playground's
//! (components/app.rs) and the authoring view's (components/author_app.rs)
//! alike, so neither root component reaches into the other's file. Touches
//! the document only; never the state.

use crate::prerendered;

/// Where an app mounts: the page's root (`#app`), or the body of a page
/// without one.
pub(crate) fn root(document: &web_sys::Document) -> Option<web_sys::Element> {
    document
        .get_element_by_id(prerendered::ROOT_ID)
        .or_else(|| document.body().map(Into::into))
}

/// Empties the root for an app rendered afresh: whatever was prerendered
/// goes, with the class that hid it (web/first-paint.js).
pub(crate) fn afresh(root: &web_sys::Element) {
    root.set_inner_html("");
    let _ = root.class_list().remove_1(prerendered::ROOT_ELSEWHERE);
}
