//! What an experiment is: its source, the claim, the runs it needs, the verdict over their data, and figures of
//! its own.

use super::data::RunData;
use super::verdict::Check;
use std::collections::BTreeMap;

/// One simulation an experiment needs.
#[derive(Clone, Copy, Debug)]
pub struct RunPlan {
    /// Variant name ("" for a single run).
    pub variant: &'static str,
    /// Scenario file, relative to the scenarios directory.
    pub scenario: &'static str,
    /// `--set` overrides on top of the file.
    pub sets: &'static [&'static str],
}

impl RunPlan {
    /// The scenario file as it is written: one run, no variant, no overrides.
    pub const fn as_written(scenario: &'static str) -> RunPlan {
        RunPlan {
            variant: "",
            scenario,
            sets: &[],
        }
    }
}

/// What a verdict function sees: this experiment's runs for one seed, and every other experiment's.
pub struct Ctx<'a> {
    /// The seed.
    pub seed: u64,
    /// This experiment's runs by variant.
    pub runs: &'a BTreeMap<String, RunData>,
    /// All runs of this seed, by (experiment id, variant).
    pub all: &'a BTreeMap<(String, String), RunData>,
    /// Every seed's runs, by seed and (experiment id, variant): for verdicts that show a spread over seeds.
    pub by_seed: &'a BTreeMap<u64, BTreeMap<(String, String), RunData>>,
}

impl Ctx<'_> {
    /// The run of `variant`.
    pub fn run(&self, variant: &str) -> Option<&RunData> {
        self.runs.get(variant)
    }

    /// Another experiment's run.
    pub fn other(&self, id: &str, variant: &str) -> Option<&RunData> {
        self.all.get(&(id.to_string(), variant.to_string()))
    }
}

/// Draws an experiment's own figures into a directory and returns their file names.
pub type DrawFigures = fn(&Ctx<'_>, &std::path::Path) -> Result<Vec<String>, String>;

/// An experiment.
#[derive(Clone, Copy)]
pub struct Experiment {
    /// Id in docs/experiments.md (the heading, and anchor, of its entry there).
    pub id: &'static str,
    /// Section of docs/experiments.md.
    pub section: &'static str,
    /// Seed file and figure or table.
    pub source: &'static str,
    /// The paper's claim, short.
    pub claim: &'static str,
    /// Simulations.
    pub runs: &'static [RunPlan],
    /// Other experiments whose runs the verdict compares against.
    pub needs: &'static [&'static str],
    /// The verdict.
    pub judge: fn(&Ctx<'_>) -> Result<Vec<Check>, String>,
    /// Figures of its own (beyond each run's plots), drawn into the experiment's directory; returns file names:
    /// SVG images, or HTML fragments (tables) the report shows in place.
    pub figures: Option<DrawFigures>,
    /// Investigation notes shown beside the verdict (findings from traces; empty when none).
    pub note: &'static str,
}

impl std::fmt::Debug for Experiment {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Experiment").field("id", &self.id).finish()
    }
}
