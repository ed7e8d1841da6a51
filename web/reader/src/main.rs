//! The reader's entry point: see `lib.rs`.

fn main() {
    fencelab_reader::worker::start();
}
