//! The resolution state the steps share ([`Ctx`]: the file, the nodes and links so far, flow names).

use super::locate::KeyPath;
use super::model::{LinkDef, NodeDef};
use super::schema::ScenarioFile;
use super::semantic::{check_name, fail, Res};
use convoy_sim::seed::{component_rng, unit};
use convoy_sim::NodeKind;
use std::collections::BTreeMap;

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
    /// Link names → index into `links`.
    pub link_index: BTreeMap<String, usize>,
    /// Flow names in use, with where they were defined.
    pub flow_names: BTreeMap<String, KeyPath>,
    /// Connected component of each node (filled once the topology is complete).
    pub component: Vec<usize>,
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
