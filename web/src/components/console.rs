//! A read-only SQL console against the world as it was after the selected
//! step (the worker replays the schedule up to it). It knows the exercise:
//! its placeholder queries the exercise's own first table and it lists the
//! tables there are to query. An error says its problem once: the query is
//! in the field above it, so the worker's "(in `SQL`)" is not repeated.

use fencelab_model::history::ResultRows;
use web_sys::HtmlInputElement;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct ConsoleProps {
    pub step: usize,
    /// The exercise's tables, as the report names them.
    pub tables: Vec<String>,
    /// The query asked last, and its answer.
    pub sql: AttrValue,
    pub result: Option<Result<ResultRows, String>>,
    pub on_query: Callback<String>,
}

/// A table's name as a query writes it: as it is when it is a plain word,
/// else in double quotes (each inner one doubled).
fn sql_name(name: &str) -> String {
    let plain = name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if plain {
        name.to_string()
    } else {
        format!("\"{}\"", name.replace('"', "\"\""))
    }
}

/// `message` without the query it quotes at its end when that is `sql`,
/// the query the learner sees in the field.
pub fn problem_once<'a>(message: &'a str, sql: &str) -> &'a str {
    message
        .strip_suffix(&format!(" (in `{}`)", sql.trim()))
        .or_else(|| message.strip_suffix(&format!(" (in `{sql}`)")))
        .unwrap_or(message)
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
    let placeholder = props
        .tables
        .first()
        .map(|table| format!("SELECT * FROM {}", sql_name(table)))
        .unwrap_or_else(|| "SELECT 1".to_string());
    html! {
        <section class="console" aria-labelledby="console-title">
            <h2 id="console-title">{ format!("Query the world after step {}", props.step + 1) }</h2>
            <form onsubmit={submit}>
                <label for="console-sql" class="visually-hidden">{ "Read-only SQL" }</label>
                <input id="console-sql" ref={input} type="text" spellcheck="false"
                    aria-describedby="console-tables" placeholder={placeholder} />
                <button type="submit" id="console-run">{ "Run query" }</button>
            </form>
            <p class="muted" id="console-tables">
                { "Tables: " }
                { for props.tables.iter().enumerate().map(|(i, table)| html! {
                    <>{ if i > 0 { ", " } else { "" } }<code>{ table.clone() }</code></>
                }) }
            </p>
            <div class="console-result" aria-live="polite">
                { match &props.result {
                    None => html! {},
                    Some(Err(message)) => html! {
                        <p class="error-message">{ format!("⚠ {}", problem_once(message, &props.sql)) }</p>
                    },
                    Some(Ok(rows)) => html! {
                        <div class="table-wrap" tabindex="0" role="region" aria-label="Rows the query returned">
                            <table class="rows">
                                <thead><tr>{ for rows.columns.iter().map(|c| html! { <th scope="col">{ c.clone() }</th> }) }</tr></thead>
                                <tbody>
                                    { for rows.rows.iter().map(|row| html! {
                                        <tr>{ for row.iter().map(|v| html! { <td>{ v.to_string() }</td> }) }</tr>
                                    }) }
                                    if rows.rows.is_empty() { <tr><td class="muted">{ "(no rows)" }</td></tr> }
                                </tbody>
                            </table>
                        </div>
                    },
                } }
            </div>
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_name_is_quoted_only_when_a_query_needs_it() {
        assert_eq!(sql_name("session_claims"), "session_claims");
        assert_eq!(sql_name("t t"), "\"t t\"");
        assert_eq!(sql_name("1st"), "\"1st\"");
        assert_eq!(sql_name("a\"b"), "\"a\"\"b\"");
    }

    #[test]
    fn an_error_names_its_problem_and_not_the_query_again() {
        let sql = "SELECT * FROM messages";
        assert_eq!(
            problem_once("no such table: messages (in `SELECT * FROM messages`)", sql),
            "no such table: messages"
        );
        assert_eq!(
            problem_once("the worker stopped", sql),
            "the worker stopped"
        );
    }
}
