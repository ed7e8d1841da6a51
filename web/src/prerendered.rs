//! A page that arrives already rendered: at build time `fencelab-prerender`
//! (web/prerender) renders one page per bundled exercise with the app's own
//! components, natively, showing the verdicts the core computed for the
//! starting texts, and writes what it rendered from into the page as JSON
//! (an inert `<script type="application/json">`, which the CSP allows).
//! The app reads it back ([`read`]) and hydrates the page from the very
//! same first state ([`crate::state::Playground::prerendered`]), so its first
//! render is the page's HTML, node for node; only then does it read the
//! address and the learner's saved work.
//!
//! Hydrated only when the address asks for nothing else
//! ([`crate::state::Start::asks_only_for`]): another exercise, an embed, a
//! share or exercise link are rendered afresh, as on a page without any of
//! this. The state reads this module's [`Prerendered`]; this module never
//! reads the state.

use fencelab_model::{Exercise, ExerciseReport};
use serde::{Deserialize, Serialize};

/// The id of the element holding the JSON.
pub const DATA_ID: &str = "fencelab-prerendered";
/// The id of the element the app renders into.
pub const ROOT_ID: &str = "app";
/// The root's attribute naming the exercise prerendered in it, and its
/// class when the address asks for another view (web/first-paint.js sets
/// it before the first paint, so that view's loading line shows instead).
pub const ROOT_EXERCISE: &str = "data-prerendered";
pub const ROOT_ELSEWHERE: &str = "prerendered-elsewhere";
/// The ids of the elements carrying a site's own exercises on the pages of
/// a site's exercises (`fencelab-site-0`, `-1`, ...): one each, in its
/// loaded form (`{"Ok": [exercise]}`, as the bundled catalogue is read).
pub const SITE_ID: &str = "fencelab-site";

/// What a page was rendered from: the exercise shown and the report of its
/// starting texts.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Prerendered {
    pub exercise: String,
    pub report: ExerciseReport,
}

impl Prerendered {
    /// Reads the JSON a page carries. Anything unreadable (the page was
    /// edited, a proxy rewrote it) is `None`: the app then renders afresh.
    pub fn from_json(text: &str) -> Option<Prerendered> {
        serde_json::from_str(text).ok()
    }

    /// The JSON written into a page: `<` escaped, so no text in it can end
    /// the script element it sits in.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self)
            .unwrap_or_default()
            .replace('<', "\\u003c")
    }
}

/// The site's own exercises a site exercise's page carries (none on a
/// bundled one's), each with the text it was read from, which the worker
/// installs it from (`Playground::adopt_site`). One that cannot be read is
/// left out: the site's own file brings it once fetched.
pub fn read_site(document: &web_sys::Document) -> Vec<(Exercise, String)> {
    (0..)
        .map_while(|n| document.get_element_by_id(&format!("{SITE_ID}-{n}")))
        .filter_map(|element| {
            let text = element.text_content()?;
            let mut read = fencelab_model::bundled::from_loaded_json(&text).ok()?;
            let exercise = read.pop().filter(|_| read.is_empty())?;
            Some((exercise, text))
        })
        .collect()
}

/// The prerendered state the page carries, if any.
pub fn read(document: &web_sys::Document) -> Option<Prerendered> {
    let text = document.get_element_by_id(DATA_ID)?.text_content()?;
    Prerendered::from_json(&text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shown(exercise: &str) -> Prerendered {
        Prerendered {
            exercise: exercise.to_string(),
            report: ExerciseReport::new(exercise, Vec::new()),
        }
    }

    #[test]
    fn the_json_reads_back_and_cannot_close_its_script() {
        let mut page = shown("claim");
        page.exercise = "</script><script>alert(1)</script>".to_string();
        let json = page.to_json();
        assert!(!json.contains('<'), "{json}");
        assert_eq!(Prerendered::from_json(&json), Some(page));
        assert_eq!(Prerendered::from_json("{\"exercise\": 3"), None);
    }
}
