//! A setting of the page that the learner chooses from a short list (the
//! colour theme, where the focus goes as another exercise opens): what one
//! control (`components/setting_switch.rs`) and storage need to show, store
//! and read it.

/// A setting's values, each with the name it is stored (and sent as an
/// option's value) under and the words the control shows for it.
pub trait Setting: Copy + PartialEq + Default + 'static {
    /// Every value, in the control's order.
    const ALL: &'static [Self];
    fn name(self) -> &'static str;
    fn label(self) -> &'static str;

    /// The value named `name`; anything else (nothing stored, a value from
    /// another build, a hand-edited entry) is the default.
    fn from_name(name: &str) -> Self {
        Self::ALL
            .iter()
            .copied()
            .find(|value| value.name() == name)
            .unwrap_or_default()
    }
}
