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

/// What a verdict says: its claim held, did not, or nothing was judged.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Status {
    /// Every judged check passed for every seed.
    Pass,
    /// Some check failed for some seed (or the verdict could not be computed).
    Fail,
    /// Every check only reports a number: there is no claim that could fail, so the verdict is not a pass.
    Reported,
}

impl Status {
    /// The status of an experiment from `failed_seeds` (seeds with a failing check) and the checks of one seed:
    /// REPORTED when none of them is judged (experiments.md: "a verdict shown as PASS must be able to fail").
    pub fn of(failed_seeds: usize, checks: &[Check]) -> Status {
        if failed_seeds > 0 {
            Status::Fail
        } else if checks.iter().all(|c| c.reported) {
            Status::Reported
        } else {
            Status::Pass
        }
    }

    /// As the table and the report print it.
    pub fn label(self) -> &'static str {
        match self {
            Status::Pass => "PASS",
            Status::Fail => "FAIL",
            Status::Reported => "REPORTED",
        }
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
    /// Whether every check passed for every seed and at least one of them is judged ([`Status::Pass`]).
    pub pass: bool,
    /// PASS, FAIL or REPORTED (nothing judged).
    pub status: Status,
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
    /// Every seed's checks, by seed (verdicts.json keeps seed 1's in `checks`; the Python package's
    /// `convoy.reproduce` gives all).
    #[serde(skip)]
    pub by_seed: Vec<(u64, Vec<Check>)>,
}

/// Seeds run and passed.
#[derive(Clone, Copy, Debug, serde::Serialize)]
pub struct SeedCount {
    /// How many seeds ran.
    pub run: u64,
    /// How many passed.
    pub passed: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_verdict_without_a_judged_check_is_reported_never_pass() {
        let reported = [
            Check::report("a number", "1".into(), "2"),
            Check::figure("a plot", "f.svg".into()),
        ];
        assert_eq!(Status::of(0, &reported), Status::Reported);
        assert_eq!(Status::of(0, &[]), Status::Reported);
        let judged = Check::range("a ratio", 1.0, 0.5, 2.0, "", "paper");
        assert_eq!(
            Status::of(0, &[reported[0].clone(), judged.clone()]),
            Status::Pass
        );
        assert_eq!(Status::of(1, &[judged]), Status::Fail);
        assert_eq!(
            Status::of(1, &reported),
            Status::Fail,
            "a verdict that could not be computed fails"
        );
    }
}
