//! Loads the bundled exercises at build time (`src/catalog.rs` reads them).
fn main() {
    fencelab_model::bundled::write_loaded_json();
}
