//! Where the keyboard focus goes when the learner moves to another exercise
//! (the list, "Next exercise", Back or Forward): its title, so a screen
//! reader starts there and Tab goes on into the exercise, or its first
//! editor, for a learner who goes straight to typing. The exercise opens at
//! its top either way (crate::reveal). The choice is remembered
//! (storage.rs); a stored value this build does not know means the title.

use super::Setting;

/// What takes the focus as another exercise opens.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum OpenFocus {
    /// The exercise's title (`#exercise-title`).
    #[default]
    Title,
    /// The cursor in the first editable procedure's editor.
    Editor,
}

impl Setting for OpenFocus {
    const ALL: &'static [OpenFocus] = &[OpenFocus::Title, OpenFocus::Editor];

    /// The name stored, and the value of the control's option.
    fn name(self) -> &'static str {
        match self {
            OpenFocus::Title => "title",
            OpenFocus::Editor => "editor",
        }
    }

    /// What the control says for it.
    fn label(self) -> &'static str {
        match self {
            OpenFocus::Title => "Its title",
            OpenFocus::Editor => "Its first editor",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::OpenFocus;
    use crate::state::Setting;

    #[test]
    fn a_known_name_reads_back_and_anything_else_is_the_title() {
        for &focus in OpenFocus::ALL {
            assert_eq!(OpenFocus::from_name(focus.name()), focus);
        }
        for unknown in ["", "Editor", "first-editor", "{\"x\":1}", "title "] {
            assert_eq!(
                OpenFocus::from_name(unknown),
                OpenFocus::Title,
                "{unknown:?}"
            );
        }
    }
}
