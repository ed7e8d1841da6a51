//! What each procedure's editor offers as completions (its parameters and
//! the decisions it can use, `crate::vocabulary`): worked out once per
//! exercise, not on every render.

use crate::state::Playground;
use crate::vocabulary::vocabulary;
use std::collections::BTreeMap;
use std::rc::Rc;
use yew::prelude::*;

/// Each editable procedure's completions, by its name.
#[derive(Clone, PartialEq)]
pub struct EditorAids {
    pub words: Rc<BTreeMap<String, Rc<Vec<crate::editor::Word>>>>,
}

#[hook]
pub fn use_editor_aids(playground: &UseReducerHandle<Playground>) -> EditorAids {
    let exercises = playground.exercises.clone();
    let words = use_memo(playground.open.index, move |current| {
        exercises
            .get(*current)
            .map(|exercise| {
                // Inserted, not collected: a collected map sorts its input,
                // with a sort compiled for this iterator alone.
                let mut words = BTreeMap::new();
                for procedure in &exercise.procedures {
                    let vocabulary = Rc::new(vocabulary(exercise, &procedure.name));
                    words.insert(procedure.name.clone(), vocabulary);
                }
                words
            })
            .unwrap_or_default()
    });
    EditorAids { words }
}
