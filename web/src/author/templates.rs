//! The texts an author can start a draft from: the starter `fencelab new`
//! writes (the same file, `crates/cli/src/starter.toml`), and a copy of
//! each bundled exercise under an id of its own (`my-` before the bundled
//! id), so its preview never collides with the exercise it copies.

/// The starter exercise, commented field by field, that passes `check`.
const STARTER: &str = include_str!("../../../crates/cli/src/starter.toml");

/// A text to start from, as the template menu lists it.
#[derive(Clone, Debug, PartialEq)]
pub struct Template {
    pub name: String,
    pub text: String,
}

/// The starter first, then every bundled exercise in the page's order.
pub fn templates() -> Vec<Template> {
    let starter = Template {
        name: "The starter `fencelab new` writes".into(),
        text: STARTER.to_string(),
    };
    let bundled = fencelab_model::bundled::FILES
        .iter()
        .map(|(file, text)| Template {
            name: format!("A copy of {file}"),
            text: renamed(text),
        });
    std::iter::once(starter).chain(bundled).collect()
}

/// The starter's text: a new draft's.
pub fn starter() -> String {
    STARTER.to_string()
}

/// `text` with its `id = "..."` line's id prefixed `my-`.
fn renamed(text: &str) -> String {
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

    #[test]
    fn every_template_loads_under_an_id_no_bundled_exercise_has() {
        let bundled = fencelab_model::bundled::catalog().expect("the bundled exercises load");
        let templates = templates();
        assert_eq!(templates.len(), bundled.len() + 1);
        for template in &templates {
            let exercise = Exercise::from_toml("draft.toml", &template.text)
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
