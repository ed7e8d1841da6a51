//! An exercise with more than one editable procedure shows one editor at a
//! time under a row of tabs (the WAI-ARIA tabs pattern: arrow keys, Home and
//! End move between tabs, one tab stop), so the editor and the verdicts fit
//! one screen together, on the page as in a 600 px frame. Every editor stays
//! mounted, its text, undo history and marks kept, only hidden. A single
//! procedure, or `tabbed` off, shows the editors as they are.

use wasm_bindgen::JsCast;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct ProcedureTabsProps {
    /// Each editable procedure's name with its editor.
    pub panes: Vec<(AttrValue, Html)>,
    /// Whether to show them as tabs (an embed).
    pub tabbed: bool,
}

fn tab_id(name: &str) -> String {
    format!("procedure-tab-{name}")
}

fn panel_id(name: &str) -> String {
    format!("procedure-panel-{name}")
}

/// Which tab a key moves to from `current` of `count`, if it moves.
fn moved(key: &str, current: usize, count: usize) -> Option<usize> {
    match key {
        "ArrowRight" => Some((current + 1) % count),
        "ArrowLeft" => Some((current + count - 1) % count),
        "Home" => Some(0),
        "End" => Some(count - 1),
        _ => None,
    }
}

#[function_component(ProcedureTabs)]
pub fn procedure_tabs(props: &ProcedureTabsProps) -> Html {
    let selected = use_state(|| 0usize);
    if !props.tabbed || props.panes.len() < 2 {
        return html! { { for props.panes.iter().map(|(_, pane)| pane.clone()) } };
    }
    let count = props.panes.len();
    let current = (*selected).min(count - 1);
    let names: Vec<AttrValue> = props.panes.iter().map(|(name, _)| name.clone()).collect();
    let onkeydown = {
        let selected = selected.clone();
        Callback::from(move |event: KeyboardEvent| {
            let Some(next) = moved(&event.key(), current, count) else {
                return;
            };
            event.prevent_default();
            selected.set(next);
            // The tab chosen by key takes the focus, as the pattern asks.
            if let Some(tab) = web_sys::window()
                .and_then(|w| w.document())
                .and_then(|d| d.get_element_by_id(&tab_id(&names[next])))
                .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok())
            {
                let _ = tab.focus();
            }
        })
    };
    html! {
        <div class="procedure-tabs">
            <div class="tab-list" role="tablist" aria-label="Editable procedures" onkeydown={onkeydown}>
                { for props.panes.iter().enumerate().map(|(i, (name, _))| {
                    let chosen = i == current;
                    let selected = selected.clone();
                    html! {
                        <button type="button" role="tab" class="procedure-tab" id={tab_id(name)}
                            aria-selected={chosen.to_string()} aria-controls={panel_id(name)}
                            tabindex={if chosen { "0" } else { "-1" }}
                            onclick={Callback::from(move |_: MouseEvent| selected.set(i))}>
                            { name.clone() }
                        </button>
                    }
                }) }
            </div>
            { for props.panes.iter().enumerate().map(|(i, (name, pane))| html! {
                <div role="tabpanel" class="procedure-panel" id={panel_id(name)}
                    aria-labelledby={tab_id(name)} hidden={i != current}>
                    { pane.clone() }
                </div>
            }) }
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::moved;

    #[test]
    fn arrows_wrap_around_and_home_end_jump() {
        assert_eq!(moved("ArrowRight", 2, 3), Some(0));
        assert_eq!(moved("ArrowLeft", 0, 3), Some(2));
        assert_eq!(moved("Home", 2, 3), Some(0));
        assert_eq!(moved("End", 0, 3), Some(2));
        assert_eq!(moved("a", 1, 3), None);
    }
}
