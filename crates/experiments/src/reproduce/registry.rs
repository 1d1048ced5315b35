//! The experiments `convoy reproduce` knows, in report order: one line per paper's module.

use super::experiment::Experiment;

/// All experiments, in report order.
pub fn all() -> Vec<Experiment> {
    let mut v = super::pgmcc_paper::experiments();
    v.extend(super::wang_fahmy::experiments());
    v
}
