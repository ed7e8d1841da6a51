//! Named moments of the page's start, as User Timing marks
//! (`performance.mark`): the browser's own profiler shows them, and
//! tests/bench/breakdown.mjs reads every mark whose name starts with
//! `fencelab:` to say where a first load's time goes. A mark costs a few
//! microseconds and changes nothing the learner sees.

/// Records the mark `fencelab:<name>` now. Natively (the prerender, the
/// reducer's tests) there is no clock to mark, so nothing happens.
pub fn mark(name: &str) {
    #[cfg(target_arch = "wasm32")]
    if let Some(performance) = web_sys::window().and_then(|w| w.performance()) {
        let _ = performance.mark(&format!("fencelab:{name}"));
    }
    #[cfg(not(target_arch = "wasm32"))]
    let _ = name;
}
