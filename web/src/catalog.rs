//! The bundled exercises as the page starts with them: already loaded, by
//! web/build.rs at build time with the model's own loader, and read here
//! from JSON. Parsing their TOML on every start took about 4x longer
//! (15.6 ms against 4.1 ms natively, more in wasm), on the way to the first
//! verdict. The test keeps this form equal to what the loader gives.

use fencelab_model::{Exercise, LoadError};

/// The bundled exercises, or why they could not be loaded.
pub fn bundled() -> Result<Vec<Exercise>, LoadError> {
    fencelab_model::loaded_at_build_time!()
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_build_time_catalogue_is_what_the_loader_gives_now() {
        let loaded = fencelab_model::bundled::catalog();
        assert!(loaded.is_ok(), "{loaded:?}");
        assert_eq!(super::bundled(), loaded);
    }
}
