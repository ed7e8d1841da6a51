//! The learner's choice of where the focus goes as another exercise opens
//! (`OpenFocus`): read from storage once, as the app starts, and written
//! there when the learner changes it. The playground does not hold it:
//! nothing the reducer decides depends on it, only the effect that moves
//! the focus (`reveal.rs`) and the control that shows it.

use crate::state::OpenFocus;
use crate::storage;
use yew::prelude::*;

/// The choice in force, and the control's callback that changes and
/// remembers it.
#[hook]
pub fn use_open_focus() -> (OpenFocus, Callback<OpenFocus>) {
    // Rendered natively (web/prerender), there is no storage: the title,
    // which a hydrated page then reads again.
    let focus = use_state_eq(|| {
        if cfg!(target_arch = "wasm32") {
            storage::open_focus()
        } else {
            OpenFocus::default()
        }
    });
    let change = {
        let focus = focus.clone();
        Callback::from(move |chosen: OpenFocus| {
            storage::save_open_focus(chosen);
            focus.set(chosen);
        })
    };
    (*focus, change)
}
