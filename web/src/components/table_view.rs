//! The exercise's tables after the selected step, changed cells marked with
//! a symbol and a label as well as a colour.

use crate::tables::ShownTable;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct TableViewProps {
    pub tables: Vec<ShownTable>,
    pub step: usize,
}

#[function_component(TableView)]
pub fn table_view(props: &TableViewProps) -> Html {
    html! {
        <section class="tables" aria-labelledby="tables-title">
            <h2 id="tables-title">{ format!("Tables after step {}", props.step + 1) }</h2>
            { for props.tables.iter().map(|table| html! {
                <div class="table-wrap" tabindex="0" role="region" aria-label={format!("Rows of {}", table.table)}>
                    <table class="rows" data-table={table.table.clone()}>
                        <caption>{ table.table.clone() }</caption>
                        <thead><tr>{ for table.columns.iter().map(|c| html! { <th scope="col">{ c.clone() }</th> }) }</tr></thead>
                        <tbody>
                            { for table.rows.iter().map(|row| html! {
                                <tr class={classes!(row.inserted.then_some("inserted"))}>
                                    { for row.cells.iter().zip(&row.changed).map(|(cell, changed)| html! {
                                        <td class={classes!(changed.then_some("changed"))}>
                                            { cell.to_string() }
                                            if *changed { <span class="changed-mark" title="changed by this step">{ " ✎" }<span class="visually-hidden">{ " (changed by this step)" }</span></span> }
                                        </td>
                                    }) }
                                </tr>
                            }) }
                            { for table.deleted.iter().map(|row| html! {
                                <tr class="deleted">
                                    { for row.iter().map(|cell| html! { <td><del>{ cell.to_string() }</del></td> }) }
                                </tr>
                            }) }
                            if table.rows.is_empty() && table.deleted.is_empty() {
                                <tr><td colspan={table.columns.len().max(1).to_string()} class="muted">{ "(no rows)" }</td></tr>
                            }
                        </tbody>
                    </table>
                </div>
            }) }
        </section>
    }
}
