//! Semantic errors of a scenario — each names the key it is about and what is wrong ([`SemError`]) — and the
//! value checks the resolution steps share.

use super::locate::KeyPath;

/// A semantic error: the key it is about and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SemError {
    /// Where in the file (or which `--set` touched it).
    pub path: KeyPath,
    /// What is wrong.
    pub message: String,
    /// Other keys whose values take part (a `--set` of any of them is blamed too).
    pub related: Vec<KeyPath>,
}

/// Result of a resolution step.
pub type Res<T> = Result<T, SemError>;

/// Fail with an error about `path`.
pub fn fail<T>(path: &KeyPath, message: impl Into<String>) -> Res<T> {
    Err(SemError {
        path: path.clone(),
        message: message.into(),
        related: Vec::new(),
    })
}

/// Fail with an error about `path` that other keys take part in.
pub fn fail_related<T>(path: &KeyPath, related: &[KeyPath], message: impl Into<String>) -> Res<T> {
    Err(SemError {
        path: path.clone(),
        message: message.into(),
        related: related.to_vec(),
    })
}

/// Names: letters, digits, `_`, `-`, `+` (no dots: they separate `--set` keys; no `:`: reserved for `:rev`).
pub fn check_name(name: &str, path: &KeyPath) -> Res<()> {
    if name.is_empty() {
        return fail(path, "a name cannot be empty");
    }
    if let Some(c) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '+')))
    {
        return fail(
            path,
            format!("name `{name}` contains `{c}`; use letters, digits, `_`, `-` and `+`"),
        );
    }
    Ok(())
}

/// A probability.
pub fn check_prob(v: f64, path: &KeyPath) -> Res<()> {
    if !(0.0..=1.0).contains(&v) || v.is_nan() {
        return fail(path, format!("{v} is not a probability in [0, 1]"));
    }
    Ok(())
}

/// A rate above zero, bits per second.
pub fn positive_rate(r: u64, p: &KeyPath) -> Res<u64> {
    if r == 0 {
        return fail(p, "the rate must be above 0 bit/s");
    }
    Ok(r)
}
