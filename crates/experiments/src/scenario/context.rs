//! The resolution state the steps share ([`Ctx`]: the file, the nodes and links so far, flow names) and the
//! semantic errors they raise ([`SemError`]), each naming the key it is about.

use super::locate::KeyPath;
use super::model::{LinkDef, NodeDef};
use super::schema::ScenarioFile;
use convoy_sim::seed::{component_rng, unit};
use convoy_sim::NodeKind;
use std::collections::BTreeMap;

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

/// The resolution state shared by the steps.
pub struct Ctx<'a> {
    /// The file.
    pub file: &'a ScenarioFile,
    /// Seed of the run.
    pub seed: u64,
    /// Nodes so far.
    pub nodes: Vec<NodeDef>,
    /// Node names → index.
    pub node_index: BTreeMap<String, usize>,
    /// Links so far.
    pub links: Vec<LinkDef>,
    /// Flow names in use, with where they were defined.
    pub flow_names: BTreeMap<String, KeyPath>,
    /// Connected component of each node (filled once the topology is complete).
    pub component: Vec<usize>,
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

impl<'a> Ctx<'a> {
    /// Index of node `name`, or an error listing what exists.
    pub fn node(&self, name: &str, path: &KeyPath) -> Res<usize> {
        match self.node_index.get(name) {
            Some(i) => Ok(*i),
            None => {
                let mut known: Vec<&str> = self
                    .nodes
                    .iter()
                    .map(|n| n.name.as_str())
                    .take(12)
                    .collect();
                if self.nodes.len() > 12 {
                    known.push("...");
                }
                fail(
                    path,
                    format!("unknown node `{name}` (nodes: {})", known.join(", ")),
                )
            }
        }
    }

    pub(super) fn add_node(&mut self, name: &str, kind: NodeKind, path: &KeyPath) -> Res<usize> {
        check_name(name, path)?;
        if self.node_index.contains_key(name) {
            return fail(path, format!("node `{name}` is defined twice"));
        }
        self.nodes.push(NodeDef {
            name: name.to_string(),
            kind,
        });
        self.node_index
            .insert(name.to_string(), self.nodes.len() - 1);
        Ok(self.nodes.len() - 1)
    }

    /// Register a flow name.
    pub fn add_flow_name(&mut self, name: &str, path: &KeyPath) -> Res<()> {
        check_name(name, path)?;
        if let Some(first) = self.flow_names.get(name) {
            return fail(
                path,
                format!("flow name `{name}` is already used by `{first}`"),
            );
        }
        self.flow_names.insert(name.to_string(), path.clone());
        Ok(())
    }

    /// Fail unless `a` and `b` are connected.
    pub fn check_connected(&self, a: usize, b: usize, path: &KeyPath) -> Res<()> {
        if self.component[a] != self.component[b] {
            return fail(
                path,
                format!(
                    "no path between `{}` and `{}`: add a [[link]]",
                    self.nodes[a].name, self.nodes[b].name
                ),
            );
        }
        Ok(())
    }

    /// A uniform draw in [0, 1) from the stream of component `what` (deterministic per seed and name).
    pub fn draw(&self, what: &str) -> f64 {
        unit(&mut component_rng(self.seed, &format!("scenario:{what}")))
    }
}

/// A rate above zero, bits per second.
pub fn positive_rate(r: u64, p: &KeyPath) -> Res<u64> {
    if r == 0 {
        return fail(p, "the rate must be above 0 bit/s");
    }
    Ok(r)
}
