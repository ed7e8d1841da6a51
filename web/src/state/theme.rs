//! The page's colour theme: the system's (`prefers-color-scheme`) unless
//! the learner chose one, which is remembered (storage.rs, read by web/boot.js
//! before the first paint and by the app at start).

/// The theme the learner chose.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Theme {
    /// Follow the system's colour scheme.
    #[default]
    System,
    Light,
    Dark,
}

impl Theme {
    pub const ALL: [Theme; 3] = [Theme::System, Theme::Light, Theme::Dark];

    /// The name stored, and the value of the document's `data-theme`.
    pub fn name(self) -> &'static str {
        match self {
            Theme::System => "system",
            Theme::Light => "light",
            Theme::Dark => "dark",
        }
    }

    /// The theme named `name`; anything else follows the system.
    pub fn from_name(name: &str) -> Theme {
        Theme::ALL
            .into_iter()
            .find(|t| t.name() == name)
            .unwrap_or_default()
    }

    /// What the theme menu says.
    pub fn label(self) -> &'static str {
        match self {
            Theme::System => "As the system",
            Theme::Light => "Light",
            Theme::Dark => "Dark",
        }
    }
}
