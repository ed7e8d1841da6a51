// The worker loads the bundled exercises at build time exactly as the page
// does (`src/catalog.rs` reads them): one build script for both.
include!("../build.rs");
