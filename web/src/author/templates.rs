//! The texts an author can start a draft from: the starter `fencelab new`
//! writes (the same file, `crates/cli/src/starter.toml`), and a copy of
//! each bundled exercise under an id of its own (`my-` before the bundled
//! id), so its preview never collides with the exercise it copies.
//!
//! The bundled files are not in the page's wasm: the build copies them
//! into the site's `templates/` folder (web/index.html), the service worker
//! keeps them for offline use, and a copy is fetched when it is chosen.
//! The page links only their names.

/// The starter exercise, commented field by field, that passes `check`.
const STARTER: &str = include_str!("../../../crates/cli/src/starter.toml");

/// Where the build puts the bundled exercise files, beside the page.
pub const FOLDER: &str = "templates";

/// A text to start from, as the template menu lists it.
#[derive(Clone, Debug, PartialEq)]
pub struct Template {
    pub name: String,
    pub source: Source,
}

/// Where a template's text is.
#[derive(Clone, Debug, PartialEq)]
pub enum Source {
    /// In the page.
    Text(&'static str),
    /// A bundled exercise's file, fetched from [`FOLDER`] when chosen.
    Bundled(&'static str),
}

/// The starter first, then every bundled exercise in the page's order.
pub fn templates() -> Vec<Template> {
    let starter = Template {
        name: "The starter `fencelab new` writes".into(),
        source: Source::Text(STARTER),
    };
    let bundled = fencelab_model::bundled::FILE_NAMES
        .iter()
        .map(|file| Template {
            name: format!("A copy of {file}"),
            source: Source::Bundled(file),
        });
    std::iter::once(starter).chain(bundled).collect()
}

/// The starter's text: a new draft's.
pub fn starter() -> String {
    STARTER.to_string()
}

/// The address of a bundled file, relative to the page.
pub fn address(file: &str) -> String {
    format!("{FOLDER}/{file}")
}

/// A bundled file's text as a template gives it: its `id = "..."` line's
/// id prefixed `my-`.
pub fn copied(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 3);
    let mut done = false;
    for line in text.split_inclusive('\n') {
        match line.strip_prefix("id = \"") {
            Some(rest) if !done => {
                out.push_str("id = \"my-");
                out.push_str(rest);
                done = true;
            }
            _ => out.push_str(line),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use fencelab_model::Exercise;

    /// Each template, as the author gets it (a bundled file as the site
    /// serves it: the model's own copy of the same file), loads under an id
    /// no bundled exercise has.
    #[test]
    fn every_template_loads_under_an_id_no_bundled_exercise_has() {
        let bundled = fencelab_model::bundled::catalog().expect("the bundled exercises load");
        let templates = templates();
        assert_eq!(templates.len(), bundled.len() + 1);
        for template in &templates {
            let text = match template.source {
                Source::Text(text) => text.to_string(),
                Source::Bundled(file) => {
                    let (_, text) = fencelab_model::bundled::FILES
                        .iter()
                        .find(|(name, _)| *name == file)
                        .expect("a bundled file's name");
                    copied(text)
                }
            };
            let exercise = Exercise::from_toml("draft.toml", &text)
                .unwrap_or_else(|e| panic!("{}: {e}", template.name));
            assert!(
                bundled.iter().all(|b| b.id != exercise.id),
                "{}: {}",
                template.name,
                exercise.id
            );
        }
    }
}
