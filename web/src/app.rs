//! The page's root component.

use yew::prelude::*;

#[function_component(App)]
pub fn app() -> Html {
    let version = fencelab_core::sqlite_version();
    html! {
        <main class="app">
            <header class="masthead">
                <h1>{ "fencelab" }</h1>
                <p class="tagline">{ "Why authority needs a fence: break a claim, watch the counterexample, repair it." }</p>
            </header>
            <section class="engine-status" aria-live="polite">
                <p>
                    { "The fencing engine is running on " }
                    <strong id="sqlite-version">{ format!("SQLite {version}") }</strong>
                    { ", compiled to WebAssembly and kept in memory in this tab." }
                </p>
            </section>
        </main>
    }
}
