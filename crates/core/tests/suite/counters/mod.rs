//! The one-table world the engine's own tests run procedures in: a
//! counter named `a`, at 0.

use fencelab_core::{Procedure, Values, World};

const SCHEMA: &str = "
CREATE TABLE counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
INSERT INTO counters VALUES ('a', 0);
";

/// The counters world with these procedures (name, text), each of which
/// must parse.
pub fn world_with(procedures: &[(&str, &str)]) -> World {
    let procedures = procedures
        .iter()
        .map(|(name, text)| Procedure::parse(name, text).unwrap());
    World::new(SCHEMA, procedures, Values::new()).unwrap()
}
