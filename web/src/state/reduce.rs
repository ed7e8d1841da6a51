//! The one reducer: [`reduce`] applies an action to the model, reading
//! nothing but its arguments, and yew's `Reducible` runs it on a clone.
//! Each action is one short arm; the work is the model's methods, each in
//! the module of its seam (`texts.rs`, `requests.rs`, `view.rs`, ...).

use super::{Action, Model};
use fencelab_model::Schedule;
use std::rc::Rc;
use yew::Reducible;

/// Applies `action` to `model`. Reads nothing but its arguments.
pub fn reduce(model: &mut Model, action: Action) {
    match action {
        Action::Worker(response) => model.respond(*response),
        Action::SavedWorkRead { exercise, loaded } => model.restore(&exercise, loaded),
        Action::Hydrated { loaded, theme } => model.hydrated(loaded, theme),
        Action::ProgressRead(progress) => model.progress.extend(progress),
        Action::SiteExercises(site) => model.site_exercises(site),
        Action::Open(index) => {
            model.notices.clear();
            model.open(index, None);
        }
        Action::Edited { procedure, text } => model.edited(procedure, text),
        Action::RunNow => model.run_now(),
        Action::StartFromWorking(working) => model.start_from_working(working),
        Action::SetTheme(theme) => model.theme = theme,
        Action::Select(name) => model.select(name),
        Action::Step(index) => model.go_to_step(index),
        Action::StepBy(delta) => model.step_by(delta),
        Action::LoadMutant(name) => model.load_mutant(name),
        Action::Reset => model.reset(),
        Action::ShowHint => {
            let total = model.exercise().map(|e| e.hints.len()).unwrap_or(0);
            model.hints_shown = (model.hints_shown + 1).min(total);
        }
        Action::DriveStart(scenario) => model.drive_start(scenario),
        Action::DriveMove(process) => model.change_drive(|schedule| schedule.push(process)),
        Action::DriveUndo => model.change_drive(|schedule| {
            schedule.pop();
        }),
        Action::DriveRestart => model.change_drive(Schedule::clear),
        Action::DriveStop => model.drive_stop(),
        Action::HuntStart(text) => model.hunt_start(text),
        Action::HuntLeave => model.hunt_leave(),
        Action::Replay { scenario, schedule } => model.replay(scenario, &schedule),
        Action::Share { base } => model.share(&base),
        Action::BackToSaved => model.back_to_saved(),
        Action::KeepLinked => {
            model.saved_aside = None;
            model.notices.clear();
            model.announcement = "The linked version is now your saved work.".into();
        }
        Action::Query(sql) => model.query(sql),
        Action::DismissNotices => model.notices.clear(),
        Action::ShowCounterexample {
            procedure,
            line,
            change,
        } => model.show_counterexample(&procedure, line, change),
        Action::Host(message) => model.host(message),
    }
    model.tell_parent();
}

impl Reducible for Model {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        let mut model = (*self).clone();
        reduce(&mut model, action);
        Rc::new(model)
    }
}
