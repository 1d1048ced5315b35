//! Wang and Fahmy's study of pgmcc (shared/seeds/002_0af0101bb4f18a18.txt) — experiments added with their
//! scenarios.

use super::registry::Experiment;

/// Wang and Fahmy's experiments.
pub fn experiments() -> Vec<Experiment> {
    Vec::new()
}
