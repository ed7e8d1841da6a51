//! The texts in the editors: where they come from (the starting texts,
//! the working version, a broken variant, the saved version a link set
//! aside), how the page replaces them (one undoable change, `Replace`), and
//! what an edit makes stale. The learner's own edits arrive as `Edited`.

use super::{Given, OpenExercise, Playground, Protection, Replace, View};
use fencelab_protocol::Edits;

impl OpenExercise {
    /// The texts the view is about: a counterexample's, else the editors'.
    pub fn view_texts(&self) -> &Edits {
        match &self.view {
            View::Replay {
                without: Some(without),
                ..
            } => &without.texts,
            _ => &self.texts,
        }
    }
}

impl Playground {
    /// The starting texts of the current exercise's editable procedures.
    pub fn starts(&self) -> Edits {
        self.exercise().map(|e| e.start_edits()).unwrap_or_default()
    }

    /// The working version: the references of the editable procedures.
    pub fn working_texts(&self) -> Edits {
        self.exercise()
            .map(|e| e.reference_edits())
            .unwrap_or_default()
    }

    /// What Reset puts back: the working version when the learner chose to
    /// start from it, else the starting texts.
    pub(super) fn chosen_starts(&self) -> (Edits, Given) {
        if self.open.working {
            (self.working_texts(), Given::WorkingVersion)
        } else {
            (self.starts(), Given::Start)
        }
    }

    /// Keeps only texts for editable procedures, with starts for the rest.
    pub(super) fn complete(&self, edits: &Edits) -> Edits {
        let mut texts = self.starts();
        for (name, text) in texts.iter_mut() {
            if let Some(edit) = edits.get(name) {
                edit.clone_into(text);
            }
        }
        texts
    }

    /// The full texts a broken variant puts in the editors.
    pub fn variant_texts(&self, name: &str) -> Option<Edits> {
        let exercise = self.exercise()?;
        let variant = exercise.variants.iter().find(|v| v.name == name)?;
        Some(exercise.variant_edits(variant))
    }

    /// Puts `texts` in the editors as one undoable change each.
    pub(super) fn replace_texts(&mut self, texts: Edits) {
        self.open.replace = Replace {
            generation: self.open.replace.generation + 1,
            texts: texts.clone(),
        };
        self.open.texts = texts;
        self.after_edit();
    }

    /// Puts texts the page gives (`given`) in the editors, one undoable
    /// change; the learner's own texts they replace are set aside first, so
    /// "Restore your text" brings them back in one click.
    pub(super) fn give_texts(&mut self, texts: Edits, given: Given) {
        if self.own_texts() {
            self.open.own_aside = Some(self.open.texts.clone());
        }
        self.replace_texts(texts);
        self.open.given = Some(given);
    }

    /// The learner's own texts, set aside by [`Playground::give_texts`],
    /// back in the editors (one undoable change): theirs again, and
    /// checked, so a passing one is solved once more.
    pub(super) fn restore_own(&mut self) {
        if self.open.opening.is_some() {
            return;
        }
        if let Some(own) = self.open.own_aside.take() {
            self.replace_texts(own);
            self.open.given = None;
            self.open.loaded_variant = None;
            self.announcement = "Your text is back in the editor.".into();
        }
    }

    /// After the texts changed: every report in view is of older texts, but
    /// the scenario stays in view.
    pub(super) fn after_edit(&mut self) {
        let step = self.open.view.at().map_or(0, |at| at.step);
        self.open.view = match self.open.view.scenario() {
            Some(scenario) => View::checked(scenario, step),
            None => View::Nothing,
        };
        self.open.share_url = None;
        self.open.protection = Protection::Nothing;
        // The challenge's text is no longer the one the page gave.
        self.open.challenge = None;
        self.want_check();
    }

    /// The learner edited `procedure` (ignored while the exercise's saved
    /// work is read, and when the text is what it was).
    pub(super) fn edited(&mut self, procedure: String, text: String) {
        if self.open.opening.is_none() && self.open.texts.get(&procedure) != Some(&text) {
            self.open.texts.insert(procedure, text);
            // From now on the texts are the learner's own.
            self.open.given = None;
            self.after_edit();
        }
    }

    /// Start from the working version (`true`) or from the exercise's
    /// starting texts (`false`), where the exercise offers the first.
    pub(super) fn start_from_working(&mut self, working: bool) {
        let offered = !working || self.exercise().is_some_and(|e| e.working_version.is_some());
        if self.open.opening.is_some() || !offered {
            return;
        }
        self.open.working = working;
        let (texts, given) = self.chosen_starts();
        self.give_texts(texts, given);
        self.open.loaded_variant = None;
        self.announcement = if working {
            "The working version is in the editor; it passes every scenario. Now break it."
        } else {
            "The starting text is back in the editor."
        }
        .into();
    }

    pub(super) fn load_variant(&mut self, name: String) {
        if let Some(texts) = self.variant_texts(&name) {
            self.give_texts(texts, Given::Variant(name.clone()));
            self.open.loaded_variant = Some(name);
        }
    }

    /// Reset starts the exercise over: its start in the editors, and it
    /// counts as solved again only once the learner's text passes again
    /// (their text is one click away, "Restore your text").
    pub(super) fn reset(&mut self) {
        let (texts, given) = self.chosen_starts();
        self.give_texts(texts, given);
        self.open.loaded_variant = None;
        self.open.solve_kept = false;
        if self.open.own_aside.is_some() {
            self.announcement = "The start is back in the editor: the exercise counts as solved once your text passes again. \"Restore your text\" brings yours back.".into();
        }
    }

    /// The saved version a link set aside comes back into the editors.
    pub(super) fn back_to_saved(&mut self) {
        if let Some(saved) = self.open.saved_aside.take() {
            self.replace_texts(saved);
            self.open.given = None;
            self.notices.clear();
            self.announcement = "Your saved version is back in the editor.".into();
        }
    }
}
