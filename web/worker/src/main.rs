//! The worker's entry point: see `lib.rs`.

fn main() {
    fencelab_worker::worker::start();
}
