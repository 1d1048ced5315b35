//! Scenario files (TOML; docs/scenario-format.md): loading, `--set` overrides, validation, and building the
//! simulator's network.
//!
//! Loading goes in three passes so that every error names where the bad value was written:
//! 1. the file is parsed with spans and deserialized into [`schema::ScenarioFile`] (unknown keys and bad
//!    values: file, line, key);
//! 2. each `--set` is applied to the file's value tree and the result deserialized again (errors name the
//!    `--set` argument);
//! 3. the result is resolved into a [`Scenario`] — names into indices, defaults applied — with semantic checks
//!    (unknown nodes, duplicates, ranges), whose errors point at the file's line or at the `--set` that wrote
//!    the value.

mod build;
pub mod by_name;
pub mod cc;
mod changes;
mod context;
pub mod error;
mod flows;
pub mod locate;
pub mod model;
pub mod overrides;
mod resolve;
pub mod schema;
mod semantic;
pub mod units;

pub use build::{build_network, Built};
pub use convoy_sim::{SessionReceiver, SessionSpec};
pub use error::{Origin, ScenarioError};
pub use model::{LinkChangeDef, LinkDef, NodeDef, Scenario, SeqPlot, TcpDef, UdpDef};

use locate::{KeyPath, Located};
use overrides::Override;
use schema::ScenarioFile;
use semantic::SemError;
use std::path::Path;

/// Read and validate the scenario at `path`, with `--set` overrides applied in order.
pub fn load(path: &Path, sets: &[String]) -> Result<Scenario, ScenarioError> {
    let file = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| ScenarioError {
        origin: Origin::WholeFile(file.clone()),
        key: None,
        message: format!("cannot read: {e}"),
    })?;
    let stem = path.file_stem().map_or_else(
        || "scenario".to_string(),
        |s| s.to_string_lossy().into_owned(),
    );
    parse(&file, &stem, &text, sets)
}

/// Validate scenario text; `file` names it in errors, `name` becomes the scenario's name.
pub fn parse(
    file: &str,
    name: &str,
    text: &str,
    sets: &[String],
) -> Result<Scenario, ScenarioError> {
    let located = Located::parse(text).map_err(|e| {
        let offset = e.span().map_or(0, |s| s.start);
        ScenarioError::at_offset(file, text, offset, None, e.message().to_string())
    })?;
    let typed: ScenarioFile = toml::from_str(text).map_err(|e| {
        let offset = e.span().map_or(0, |s| s.start);
        let path = located.path_at(offset);
        let key = (!path.0.is_empty()).then(|| path.to_string());
        ScenarioError::at_offset(file, text, offset, key, explain(e.message()))
    })?;
    if sets.is_empty() {
        return resolve::resolve(&typed, name).map_err(|e| sem_error(file, &located, &[], e));
    }
    let mut tree: toml::Table = toml::from_str(text).map_err(|e| ScenarioError {
        origin: Origin::WholeFile(file.to_string()),
        key: None,
        message: e.message().to_string(),
    })?;
    let mut applied: Vec<(String, KeyPath)> = Vec::new();
    let mut typed = typed;
    for arg in sets {
        let o = Override::parse(arg)?;
        let path = o.apply(&mut tree)?;
        typed = toml::Value::Table(tree.clone())
            .try_into::<ScenarioFile>()
            .map_err(|e| {
                // toml names the key without array indices; when it is the key the override wrote, show
                // that one with its indices.
                let shown = e.to_string();
                let key = shown
                    .lines()
                    .last()
                    .and_then(|l| l.strip_prefix("in `"))
                    .map(|k| k.trim_end_matches('`'));
                let key = match key {
                    Some(k) if !without_indices(&path).starts_with(k) => k.to_string(),
                    _ => path.to_string(),
                };
                ScenarioError::at_set(arg, Some(key), explain(e.message()))
            })?;
        applied.push((arg.clone(), path));
    }
    resolve::resolve(&typed, name).map_err(|e| sem_error(file, &located, &applied, e))
}

fn without_indices(p: &KeyPath) -> String {
    let keys: Vec<&str> =
        p.0.iter()
            .filter_map(|s| {
                if let locate::Seg::Key(k) = s {
                    Some(k.as_str())
                } else {
                    None
                }
            })
            .collect();
    keys.join(".")
}

/// serde's message, with a suggestion for a misspelt field.
fn explain(message: &str) -> String {
    let Some(rest) = message.strip_prefix("unknown field `") else {
        return message.to_string();
    };
    let Some((field, expected)) = rest.split_once('`') else {
        return message.to_string();
    };
    let best = expected
        .split('`')
        .skip(1)
        .step_by(2)
        .map(|cand| (edit_distance(field, cand), cand))
        .min()
        .filter(|(d, c)| *d <= 2 && *d < c.len());
    match best {
        Some((_, cand)) => format!(
            "unknown field `{field}`; did you mean `{cand}`? ({})",
            message.trim_start_matches(&format!("unknown field `{field}`, "))
        ),
        None => message.to_string(),
    }
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != *cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

/// Point a semantic error at the last `--set` that touched its key, else at the file.
fn sem_error(
    file: &str,
    located: &Located<'_>,
    applied: &[(String, KeyPath)],
    e: SemError,
) -> ScenarioError {
    let key = (!e.path.0.is_empty()).then(|| e.path.to_string());
    let blamed =
        |p: &KeyPath| p.is_prefix_of(&e.path) || e.related.iter().any(|r| p.is_prefix_of(r));
    match applied.iter().rev().find(|(_, p)| blamed(p)) {
        Some((arg, _)) => ScenarioError::at_set(arg, key, e.message),
        None => ScenarioError::at_path(file, located, &e.path, e.message),
    }
}
