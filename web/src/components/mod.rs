//! One component per file, each with its `...Props`.

pub mod app;
pub mod author_app;
pub mod author_editor;
pub mod author_results;
pub mod console;
pub mod drive_panel;
pub mod exercise_list;
pub mod following_count;
pub mod hints;
pub mod hunt_panel;
pub mod line_marks;
pub mod narrative;
pub mod notices;
pub mod procedure_editor;
pub mod procedure_tabs;
pub mod replay_form;
pub mod results_fold;
pub mod scenario_list;
pub mod setting_switch;
pub mod share_panel;
pub mod solved;
pub mod table_view;
pub mod take_home;
pub mod timeline;
pub mod variants;
pub mod working_version;
