//! The progress bar of `convoy sim`: it appears once a run has taken a while.

use convoy_experiments::simrun::RunProgress;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::time::Duration;

/// Wall time after which the progress bar appears.
const QUIET_PERIOD: Duration = Duration::from_secs(2);

/// A bar of simulated milliseconds on standard error, hidden for the first [`QUIET_PERIOD`].
pub struct SimBar {
    bar: Option<ProgressBar>,
    started: std::time::Instant,
    shown: bool,
}

impl SimBar {
    /// A bar, or none at all when `quiet`.
    pub fn new(quiet: bool) -> Self {
        SimBar {
            bar: (!quiet)
                .then(|| ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden())),
            started: std::time::Instant::now(),
            shown: false,
        }
    }
}

impl RunProgress for SimBar {
    fn advanced(&mut self, scenario: &str, simulated: Duration, end: Duration, events: u64) {
        let Some(bar) = &self.bar else { return };
        if bar.length().is_none() {
            bar.set_length(end.as_millis() as u64);
            bar.set_prefix(scenario.to_string());
            bar.set_style(
                ProgressStyle::with_template(
                    "{prefix} [{bar:30}] {pos}/{len} ms simulated, {elapsed} (ETA {eta}) {msg}",
                )
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .progress_chars("=> "),
            );
        }
        if !self.shown && self.started.elapsed() > QUIET_PERIOD {
            bar.set_draw_target(ProgressDrawTarget::stderr());
            self.shown = true;
        }
        bar.set_position(simulated.as_millis() as u64);
        if self.shown {
            bar.set_message(format!("{}k events", events / 1000));
        }
    }

    fn finished(&mut self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
