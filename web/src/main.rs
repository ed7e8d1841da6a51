//! The fencelab playground page. Everything lives in the library crate.

fn main() {
    // The page's wasm is instantiated and its code runs.
    fencelab_web::timing::mark("main");
    fencelab_web::panic::install();
    fencelab_web::components::app::start();
}
