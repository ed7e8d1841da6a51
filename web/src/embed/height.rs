//! How the height a frame reports follows its content's.
//!
//! A learner's every keystroke is checked, and the verdicts that come back
//! show and hide a failure's sentence, a timeline and the line marks, so the
//! content's height swings many times while they type (seen: 44 reports,
//! between 896 and 1,393 px, for one repair typed key by key). Each report
//! moves the course page below the frame. So the frame grows at once (nothing
//! may be cut off) and shrinks only once its content has stayed smaller
//! for [`SHRINK_PAUSE_MS`]: a pause in the typing, not every keystroke.

/// How long the content must stay smaller before the frame shrinks to it.
pub const SHRINK_PAUSE_MS: u32 = 1_500;

/// The height last reported to the course page.
#[derive(Debug, Default)]
pub struct FrameHeight {
    reported: Option<u32>,
}

/// What to do with a height just measured.
#[derive(Debug, PartialEq, Eq)]
pub enum HeightStep {
    /// Report it now: the first, or taller than the frame.
    Report(u32),
    /// The frame fits already: nothing to report, no shrink pending.
    Keep,
    /// Smaller: measure again once the content has stayed so for
    /// [`SHRINK_PAUSE_MS`], and report what [`FrameHeight::settled`] says.
    ShrinkAfterPause,
}

impl FrameHeight {
    pub fn measured(&mut self, height: u32) -> HeightStep {
        match self.reported {
            Some(reported) if height == reported => HeightStep::Keep,
            Some(reported) if height < reported => HeightStep::ShrinkAfterPause,
            _ => {
                self.reported = Some(height);
                HeightStep::Report(height)
            }
        }
    }

    /// The height measured after a pause: the one to report, if it differs.
    pub fn settled(&mut self, height: u32) -> Option<u32> {
        (self.reported != Some(height)).then(|| {
            self.reported = Some(height);
            height
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grows_at_once_and_shrinks_only_after_a_pause() {
        let mut frame = FrameHeight::default();
        assert_eq!(frame.measured(900), HeightStep::Report(900));
        assert_eq!(frame.measured(1_393), HeightStep::Report(1_393));
        // Keystrokes that hide and show a failure's sentence: no report.
        assert_eq!(frame.measured(896), HeightStep::ShrinkAfterPause);
        assert_eq!(frame.measured(1_393), HeightStep::Keep);
        assert_eq!(frame.measured(1_000), HeightStep::ShrinkAfterPause);
        // The pause: the content as it stands then is reported, once.
        assert_eq!(frame.settled(1_000), Some(1_000));
        assert_eq!(frame.settled(1_000), None);
        assert_eq!(frame.measured(1_000), HeightStep::Keep);
    }

    #[test]
    fn a_pause_that_ends_taller_reports_the_taller_height() {
        let mut frame = FrameHeight::default();
        frame.measured(800);
        assert_eq!(frame.measured(700), HeightStep::ShrinkAfterPause);
        assert_eq!(frame.settled(800), None, "back to what the frame is");
        assert_eq!(frame.settled(850), Some(850));
    }
}
