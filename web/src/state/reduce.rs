//! The one reducer: [`reduce`] applies an action to the playground, reading
//! nothing but its arguments, and yew's `Reducible` runs it on a clone.
//! Each action is one short arm; the work is the playground's methods, each in
//! the module of its seam (`texts.rs`, `requests.rs`, `view.rs`, ...).

use super::{Action, Playground};
use fencelab_model::Schedule;
use std::rc::Rc;
use yew::Reducible;

/// Applies `action` to `playground`. Reads nothing but its arguments.
pub fn reduce(playground: &mut Playground, action: Action) {
    match action {
        Action::Worker(response) => playground.respond(*response),
        Action::SavedWorkRead { exercise, loaded } => playground.restore(&exercise, loaded),
        Action::Hydrated { loaded, theme } => playground.hydrated(loaded, theme),
        Action::ProgressRead(progress) => playground.progress.extend(progress),
        Action::SiteExercises(site) => playground.site_exercises(site),
        Action::Open(index) => playground.go_to(index),
        Action::Navigated(id) => playground.navigated(&id),
        Action::Edited { procedure, text } => playground.edited(procedure, text),
        Action::RunNow => playground.run_now(),
        Action::StartFromWorking(working) => playground.start_from_working(working),
        Action::SetTheme(theme) => playground.theme = theme,
        Action::Select(name) => playground.select(name),
        Action::Step(index) => playground.go_to_step(index),
        Action::StepBy(delta) => playground.step_by(delta),
        Action::LoadVariant(name) => playground.load_variant(name),
        Action::Reset => playground.reset(),
        Action::RestoreOwn => playground.restore_own(),
        Action::ShowHint => {
            let total = playground.exercise().map(|e| e.hints.len()).unwrap_or(0);
            playground.open.hints_shown = (playground.open.hints_shown + 1).min(total);
        }
        Action::DriveStart(scenario) => playground.drive_start(scenario),
        Action::DriveMove(process) => playground.change_drive(|schedule| schedule.push(process)),
        Action::DriveUndo => playground.change_drive(|schedule| {
            schedule.pop();
        }),
        Action::DriveRestart => playground.change_drive(Schedule::clear),
        Action::DriveStop => playground.drive_stop(),
        Action::HuntStart(text) => playground.hunt_start(text),
        Action::HuntLeave => playground.hunt_leave(),
        Action::Replay { scenario, schedule } => playground.replay(scenario, &schedule),
        Action::Share { base } => playground.share(&base),
        Action::BackToSaved => playground.back_to_saved(),
        Action::KeepLinked => {
            playground.open.saved_aside = None;
            playground.notices.clear();
            playground.announcement = "The linked version is now your saved work.".into();
        }
        Action::Query(sql) => playground.query(sql),
        Action::DismissNotices => playground.notices.clear(),
        Action::ShowCounterexample {
            procedure,
            line,
            change,
        } => playground.show_counterexample(&procedure, line, change),
        Action::Host(message) => playground.host(message),
    }
    playground.tell_parent();
}

impl Reducible for Playground {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        let mut playground = (*self).clone();
        reduce(&mut playground, action);
        Rc::new(playground)
    }
}
