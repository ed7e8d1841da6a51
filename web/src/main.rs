//! The fencelab playground page. Everything lives in the library crate.

fn main() {
    fencelab_web::panic::install();
    fencelab_web::components::app::start();
}
