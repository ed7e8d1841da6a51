// Loads the bundled exercises at build time (`src/catalog.rs` reads them):
// the model's loaded form, written to OUT_DIR where
// `fencelab_model::loaded_json_at_build_time!` compiles it in. The worker's build
// script is this file too (web/worker/build.rs includes it), so plain `//`
// comments here: an included file cannot carry inner doc comments.
fn main() {
    let dir = std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR for build scripts");
    let file = std::path::Path::new(&dir).join(fencelab_model::bundled::LOADED_FILE);
    let json = fencelab_model::bundled::loaded_json()
        .expect("exercises and load errors serialise to JSON");
    std::fs::write(&file, json).expect("the build directory is writable");
    println!("cargo:rerun-if-changed=build.rs");
}
