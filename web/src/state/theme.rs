//! The page's colour theme: the system's (`prefers-color-scheme`) unless
//! the learner chose one, which is remembered (storage.rs, read by web/boot.js
//! before the first paint and by the app at start).

use super::Setting;

/// The theme the learner chose; anything else stored follows the system.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Theme {
    /// Follow the system's colour scheme.
    #[default]
    System,
    Light,
    Dark,
}

impl Setting for Theme {
    const ALL: &'static [Theme] = &[Theme::System, Theme::Light, Theme::Dark];

    /// The name stored, and the value of the document's `data-theme`.
    fn name(self) -> &'static str {
        match self {
            Theme::System => "system",
            Theme::Light => "light",
            Theme::Dark => "dark",
        }
    }

    /// What the theme menu says.
    fn label(self) -> &'static str {
        match self {
            Theme::System => "As the system",
            Theme::Light => "Light",
            Theme::Dark => "Dark",
        }
    }
}
