//! The page's Web Worker: runs the engine off the main thread.

fn main() {
    fencelab_web::worker::start();
}
