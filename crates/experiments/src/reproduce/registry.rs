//! The experiments `convoy reproduce` knows, in report order (the papers' modules are listed once, in
//! `reproduce`'s `papers!` line).

use super::experiment::Experiment;

/// All experiments, in report order.
pub fn all() -> Vec<Experiment> {
    super::papers_experiments()
}
