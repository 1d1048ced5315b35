//! What `convoy send` and `convoy recv` show while they run: a progress bar and messages on standard error, and
//! the `--stats-json` file at the end.

use convoy_transfer::metrics::MetricsEndpoint;
use convoy_transfer::{Observer, Progress};
use indicatif::{ProgressBar, ProgressStyle};
use std::path::PathBuf;

/// Progress bar and messages on standard error.
pub(crate) struct Display {
    bar: Option<ProgressBar>,
    quiet: bool,
}

impl Display {
    /// Say where the metrics are served, when they are (`--metrics`).
    pub(crate) fn announce_metrics(&mut self, metrics: Option<&MetricsEndpoint>) {
        if let Some(m) = metrics {
            self.message(&format!("metrics at http://{}/metrics", m.local_addr()));
        }
    }

    pub(crate) fn new(quiet: bool) -> Self {
        let bar = (!quiet).then(|| {
            let b = ProgressBar::new(0);
            b.set_style(
                ProgressStyle::with_template(
                    "{bytes}/{total_bytes} {binary_bytes_per_sec} eta {eta} [{wide_bar}] {msg}",
                )
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
            );
            b
        });
        Display { bar, quiet }
    }

    pub(crate) fn finish(&self) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
    }
}

impl Observer for Display {
    fn progress(&mut self, p: &Progress) {
        let Some(b) = &self.bar else { return };
        if let Some(t) = p.total {
            b.set_length(t);
        }
        b.set_position(p.bytes);
        let mut msg = format!("repairs {}", p.repairs);
        if let Some(a) = &p.acker {
            msg.push_str(&format!(" limited by {a}"));
        }
        if let Some((done, known)) = p.receivers {
            msg.push_str(&format!(" receivers {done}/{known} done"));
        }
        b.set_message(msg);
    }

    fn message(&mut self, line: &str) {
        if self.quiet {
            return;
        }
        match &self.bar {
            Some(b) if !b.is_hidden() => b.println(line),
            _ => eprintln!("{line}"),
        }
    }
}

pub(crate) fn write_json(path: &Option<PathBuf>, value: &serde_json::Value) -> Result<(), String> {
    if let Some(p) = path {
        let text = serde_json::to_string_pretty(value).map_err(|e| e.to_string())?;
        std::fs::write(p, text + "\n").map_err(|e| format!("{}: {e}", p.display()))?;
    }
    Ok(())
}
