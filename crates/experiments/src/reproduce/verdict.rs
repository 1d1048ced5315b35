//! Checks — a paper's claim turned into a comparison of a measured number with an expected range — and the
//! verdict of an experiment over every seed.

use serde::Serialize;

/// One comparison.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Check {
    /// What is compared.
    pub what: String,
    /// The expected range and where it comes from.
    pub expected: String,
    /// The measured value(s).
    pub measured: String,
    /// Whether the measurement is in range (always true for a check that is only reported).
    pub pass: bool,
    /// A number reported beside the paper's or a figure without a claim: shown as REPORTED, never as PASS.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub reported: bool,
}

impl Check {
    /// `value` must lie in [lo, hi].
    pub fn range(what: &str, value: f64, lo: f64, hi: f64, unit: &str, source: &str) -> Check {
        let fmt = |v: f64| {
            if v.is_infinite() {
                "∞".to_string()
            } else {
                trim(v)
            }
        };
        Check {
            what: what.to_string(),
            expected: format!("[{}, {}]{} ({source})", fmt(lo), fmt(hi), unit),
            measured: format!("{}{}", trim(value), unit),
            pass: value.is_finite() && value >= lo && value <= hi,
            reported: false,
        }
    }

    /// `value` must be at least `lo`.
    pub fn at_least(what: &str, value: f64, lo: f64, unit: &str, source: &str) -> Check {
        Check {
            what: what.to_string(),
            expected: format!("≥ {}{} ({source})", trim(lo), unit),
            measured: format!("{}{}", trim(value), unit),
            pass: value.is_finite() && value >= lo,
            reported: false,
        }
    }

    /// `value` must be at most `hi`.
    pub fn at_most(what: &str, value: f64, hi: f64, unit: &str, source: &str) -> Check {
        Check {
            what: what.to_string(),
            expected: format!("≤ {}{} ({source})", trim(hi), unit),
            measured: format!("{}{}", trim(value), unit),
            pass: value.is_finite() && value <= hi,
            reported: false,
        }
    }

    /// A boolean condition with its own description of what was measured.
    pub fn holds(what: &str, pass: bool, expected: &str, measured: String) -> Check {
        Check {
            what: what.to_string(),
            expected: expected.to_string(),
            measured,
            pass,
            reported: false,
        }
    }

    /// A figure of a comparison that makes no claim (always passes; fails only when it cannot be computed).
    pub fn figure(what: &str, measured: String) -> Check {
        Check {
            what: what.to_string(),
            expected: "no claim: generated from the runs".to_string(),
            measured,
            pass: true,
            reported: true,
        }
    }

    /// A value reported beside the paper's, without a range (always passes).
    pub fn report(what: &str, measured: String, paper: &str) -> Check {
        Check {
            what: what.to_string(),
            expected: format!("reported beside the paper's {paper}"),
            measured,
            pass: true,
            reported: true,
        }
    }
}

/// A number with three significant digits, no trailing zeros.
pub fn trim(v: f64) -> String {
    if !v.is_finite() {
        return format!("{v}");
    }
    let a = v.abs();
    let s = if a >= 1000.0 {
        format!("{v:.0}")
    } else if a >= 100.0 {
        format!("{v:.1}")
    } else if a >= 1.0 {
        format!("{v:.2}")
    } else {
        format!("{v:.3}")
    };
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// One experiment's outcome over all seeds.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Verdict {
    /// Experiment id.
    pub id: String,
    /// Seed file and figure or table.
    pub source: String,
    /// The paper's claim.
    pub claim: String,
    /// Expected ranges and their sources, one per check.
    pub expected: Vec<String>,
    /// Measured values (seed 1), one per check.
    pub measured: Vec<String>,
    /// Whether every check passed for every seed.
    pub pass: bool,
    /// Seeds run and passed.
    pub seeds: SeedCount,
    /// The checks of seed 1, in full.
    pub checks: Vec<Check>,
    /// Seeds whose verdict failed, with the failing checks.
    pub failures: Vec<String>,
    /// Investigation notes.
    pub note: String,
    /// Figures (paths relative to the output directory).
    #[serde(skip)]
    pub figures: Vec<String>,
}

/// Seeds run and passed.
#[derive(Clone, Copy, Debug, serde::Serialize)]
pub struct SeedCount {
    /// How many seeds ran.
    pub run: u64,
    /// How many passed.
    pub passed: u64,
}
