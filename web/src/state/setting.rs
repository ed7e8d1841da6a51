//! A setting of the page that the learner chooses from a short list (the
//! colour theme, where the focus goes as another exercise opens): what one
//! control (`components/setting_switch.rs`) needs to show and read it.

use super::{OpenFocus, Theme};

/// A setting's values, each with the name it is stored (and sent as an
/// option's value) under and the words the control shows for it.
pub trait Setting: Copy + PartialEq + 'static {
    /// Every value, in the control's order.
    fn all() -> &'static [Self];
    fn name(self) -> &'static str;
    fn label(self) -> &'static str;
    /// The value named `name`; anything else is the default.
    fn from_name(name: &str) -> Self;
}

impl Setting for Theme {
    fn all() -> &'static [Self] {
        &Theme::ALL
    }
    fn name(self) -> &'static str {
        Theme::name(self)
    }
    fn label(self) -> &'static str {
        Theme::label(self)
    }
    fn from_name(name: &str) -> Self {
        Theme::from_name(name)
    }
}

impl Setting for OpenFocus {
    fn all() -> &'static [Self] {
        &OpenFocus::ALL
    }
    fn name(self) -> &'static str {
        OpenFocus::name(self)
    }
    fn label(self) -> &'static str {
        OpenFocus::label(self)
    }
    fn from_name(name: &str) -> Self {
        OpenFocus::from_name(name)
    }
}
