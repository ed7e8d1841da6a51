//! A read-only SQL console against the world as it was after the selected
//! step (the worker replays the schedule up to it).

use fencelab_model::history::ResultRows;
use web_sys::HtmlInputElement;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct ConsoleProps {
    pub step: usize,
    pub result: Option<Result<ResultRows, String>>,
    pub on_query: Callback<String>,
}

#[function_component(Console)]
pub fn console(props: &ConsoleProps) -> Html {
    let input = use_node_ref();
    let submit = {
        let input = input.clone();
        let on_query = props.on_query.clone();
        Callback::from(move |event: SubmitEvent| {
            event.prevent_default();
            if let Some(input) = input.cast::<HtmlInputElement>() {
                let sql = input.value();
                if !sql.trim().is_empty() {
                    on_query.emit(sql);
                }
            }
        })
    };
    html! {
        <section class="console" aria-labelledby="console-title">
            <h3 id="console-title">{ format!("Query the world after step {}", props.step + 1) }</h3>
            <form onsubmit={submit}>
                <label for="console-sql" class="visually-hidden">{ "Read-only SQL" }</label>
                <input id="console-sql" ref={input} type="text" spellcheck="false"
                    placeholder="SELECT * FROM messages" />
                <button type="submit" id="console-run">{ "Run query" }</button>
            </form>
            <div class="console-result" aria-live="polite">
                { match &props.result {
                    None => html! {},
                    Some(Err(message)) => html! { <p class="error-message">{ format!("⚠ {message}") }</p> },
                    Some(Ok(rows)) => html! {
                        <table class="rows">
                            <thead><tr>{ for rows.columns.iter().map(|c| html! { <th scope="col">{ c.clone() }</th> }) }</tr></thead>
                            <tbody>
                                { for rows.rows.iter().map(|row| html! {
                                    <tr>{ for row.iter().map(|v| html! { <td>{ v.to_string() }</td> }) }</tr>
                                }) }
                                if rows.rows.is_empty() { <tr><td class="muted">{ "(no rows)" }</td></tr> }
                            </tbody>
                        </table>
                    },
                } }
            </div>
        </section>
    }
}
