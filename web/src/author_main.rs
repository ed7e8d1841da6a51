//! The authoring view (`?author=1`), a wasm of its own: a learner's page
//! never fetches its code, nor an author's the playground's. web/boot.js
//! starts this one or the page's (src/main.rs) by the address.

fn main() {
    fencelab_web::panic::install();
    fencelab_web::components::author_app::start();
}
