//! Unicast shortest paths and multicast distribution trees.
//!
//! Paths minimise hop count, then total propagation delay, then link index (so ties break the same way in every
//! run). Unicast routes are computed lazily, one destination at a time (a reverse shortest-path tree), so a
//! 10,000-receiver star that only ever sends unicast to its source stores one tree, not 10,000². A multicast
//! group's tree is the union of the source's shortest paths to the current members (a source-specific tree),
//! rebuilt when members join or leave.

use crate::ids::{GroupId, LinkId, NodeId};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// The graph as routing sees it: per node, intrusive lists of its outgoing and incoming links (eight bytes a
/// node, 24 a link direction, with no allocation per node).
#[derive(Clone, Debug, Default)]
pub struct Graph {
    /// Per node: the head of its outgoing and of its incoming list (`NONE` if empty).
    heads: Vec<(u32, u32)>,
    /// Per link direction.
    links: Vec<GraphLink>,
}

/// One link direction in the graph.
#[derive(Clone, Copy, Debug)]
struct GraphLink {
    from: NodeId,
    to: NodeId,
    delay_ns: u64,
    /// The next link out of `from`, and into `to`.
    next_out: u32,
    next_in: u32,
}

const NONE: u32 = u32::MAX;

/// Follow an intrusive list from `head`, `next` giving each link's successor.
fn walk(
    links: &[GraphLink],
    head: u32,
    next: fn(&GraphLink) -> u32,
) -> impl Iterator<Item = LinkId> + '_ {
    std::iter::successors((head != NONE).then_some(head), move |&l| {
        let n = next(&links[l as usize]);
        (n != NONE).then_some(n)
    })
    .map(LinkId)
}

impl Graph {
    /// Add a node; returns its id.
    pub fn add_node(&mut self) -> NodeId {
        self.heads.push((NONE, NONE));
        NodeId(self.heads.len() as u32 - 1)
    }

    /// Add a link direction; returns its id.
    pub fn add_link(&mut self, from: NodeId, to: NodeId, delay_ns: u64) -> LinkId {
        let id = self.links.len() as u32;
        let next_out = std::mem::replace(&mut self.heads[from.index()].0, id);
        let next_in = std::mem::replace(&mut self.heads[to.index()].1, id);
        self.links.push(GraphLink {
            from,
            to,
            delay_ns,
            next_out,
            next_in,
        });
        LinkId(id)
    }

    /// A link direction's (from, to, propagation delay in ns).
    pub fn link(&self, l: LinkId) -> (NodeId, NodeId, u64) {
        let g = &self.links[l.index()];
        (g.from, g.to, g.delay_ns)
    }

    /// Links out of `node` (newest first).
    pub fn out_links(&self, node: NodeId) -> impl Iterator<Item = LinkId> + '_ {
        walk(&self.links, self.heads[node.index()].0, |g| g.next_out)
    }

    /// Links into `node` (newest first).
    pub fn in_links(&self, node: NodeId) -> impl Iterator<Item = LinkId> + '_ {
        walk(&self.links, self.heads[node.index()].1, |g| g.next_in)
    }

    /// Nodes.
    pub fn nodes(&self) -> usize {
        self.heads.len()
    }

    /// Give back spare capacity (once the network is built).
    pub fn shrink_to_fit(&mut self) {
        self.heads.shrink_to_fit();
        self.links.shrink_to_fit();
    }

    /// For every node, the link on its shortest path towards `dst` (reverse Dijkstra from `dst`).
    pub fn tree_towards(&self, dst: NodeId) -> Vec<u32> {
        let n = self.nodes();
        let mut next = vec![NONE; n];
        let mut best = vec![(u64::MAX, u64::MAX); n];
        let mut heap = BinaryHeap::new();
        best[dst.index()] = (0, 0);
        heap.push(Reverse((0u64, 0u64, dst.0)));
        while let Some(Reverse((hops, delay, node))) = heap.pop() {
            if (hops, delay) > best[node as usize] {
                continue;
            }
            // Relax links u -> node: u reaches dst through node.
            // The order of the list does not matter: ties are broken by link index.
            for l in self.in_links(NodeId(node)) {
                let (u, _, d) = self.link(l);
                let cand = (hops + 1, delay + d);
                let ui = u.index();
                if cand < best[ui] || (cand == best[ui] && l.0 < next[ui]) {
                    best[ui] = cand;
                    next[ui] = l.0;
                    heap.push(Reverse((cand.0, cand.1, u.0)));
                }
            }
        }
        next
    }

    /// For every node, the link entering it on its shortest path from `src` (forward Dijkstra).
    pub fn tree_from(&self, src: NodeId) -> Vec<u32> {
        let n = self.nodes();
        let mut parent = vec![NONE; n];
        let mut best = vec![(u64::MAX, u64::MAX); n];
        let mut heap = BinaryHeap::new();
        best[src.index()] = (0, 0);
        heap.push(Reverse((0u64, 0u64, src.0)));
        while let Some(Reverse((hops, delay, node))) = heap.pop() {
            if (hops, delay) > best[node as usize] {
                continue;
            }
            for l in self.out_links(NodeId(node)) {
                let (_, v, d) = self.link(l);
                let cand = (hops + 1, delay + d);
                let vi = v.index();
                if cand < best[vi] || (cand == best[vi] && l.0 < parent[vi]) {
                    best[vi] = cand;
                    parent[vi] = l.0;
                    heap.push(Reverse((cand.0, cand.1, v.0)));
                }
            }
        }
        parent
    }
}

/// Lazily computed unicast routes: per destination used so far, every node's next link towards it. Indexed
/// by destination (eight bytes per node for the index; a tree only for destinations used), so a hop costs two
/// loads rather than a search.
#[derive(Debug, Default)]
pub struct UnicastRoutes {
    towards: Vec<Option<Box<[u32]>>>,
}

impl UnicastRoutes {
    /// The next link from `at` towards `dst`, computing `dst`'s tree on first use.
    pub fn next(&mut self, graph: &Graph, at: NodeId, dst: NodeId) -> Option<LinkId> {
        if self.towards.len() <= dst.index() {
            self.towards
                .resize_with(graph.nodes().max(dst.index() + 1), || None);
        }
        let tree = self.towards[dst.index()]
            .get_or_insert_with(|| graph.tree_towards(dst).into_boxed_slice());
        let l = tree[at.index()];
        (l != NONE).then_some(LinkId(l))
    }
}

/// One group's distribution tree.
#[derive(Debug)]
pub struct GroupTree {
    /// The source host.
    pub source: NodeId,
    parent: Vec<u32>,
    /// Per node: its index in `branches` once the tree has passed through it (`NONE` before).
    branch_of: Vec<u32>,
    /// Links to forward the group's packets on, per node that has had any (most nodes are leaves: they
    /// cost four bytes here, not an empty list).
    branches: Vec<Vec<LinkId>>,
    /// Members (hosts with at least one joined receiver) and how many receivers each has joined.
    members: Vec<u32>,
}

impl GroupTree {
    /// An empty tree rooted at `source`.
    pub fn new(graph: &Graph, source: NodeId) -> Self {
        GroupTree {
            source,
            parent: graph.tree_from(source),
            branch_of: vec![NONE; graph.nodes()],
            branches: Vec::new(),
            members: vec![0; graph.nodes()],
        }
    }

    /// Links out of `node` on the tree.
    pub fn out_links(&self, node: NodeId) -> &[LinkId] {
        match self.branch_of[node.index()] {
            NONE => &[],
            b => &self.branches[b as usize],
        }
    }

    /// The out-link list of `node`, created empty on first use.
    fn branch_mut(&mut self, node: NodeId) -> &mut Vec<LinkId> {
        let b = &mut self.branch_of[node.index()];
        if *b == NONE {
            *b = self.branches.len() as u32;
            self.branches.push(Vec::new());
        }
        &mut self.branches[*b as usize]
    }

    /// Whether `node` hosts joined receivers.
    pub fn is_member(&self, node: NodeId) -> bool {
        self.members[node.index()] > 0
    }

    /// A receiver at `node` joins; returns false if `node` cannot be reached from the source.
    pub fn join(&mut self, graph: &Graph, node: NodeId) -> bool {
        self.members[node.index()] += 1;
        if self.members[node.index()] > 1 {
            return true;
        }
        // Graft the path source → node.
        let mut at = node;
        while at != self.source {
            let l = self.parent[at.index()];
            if l == NONE {
                return false;
            }
            let (from, _, _) = graph.link(LinkId(l));
            let list = self.branch_mut(from);
            match list.binary_search(&LinkId(l)) {
                Ok(_) => break,
                Err(i) => list.insert(i, LinkId(l)),
            }
            at = from;
        }
        true
    }

    /// A receiver at `node` leaves; the tree is pruned back to the nearest branch still needed.
    pub fn leave(&mut self, graph: &Graph, node: NodeId) {
        let m = &mut self.members[node.index()];
        if *m == 0 {
            return;
        }
        *m -= 1;
        if *m > 0 {
            return;
        }
        let mut at = node;
        while at != self.source && self.out_links(at).is_empty() && self.members[at.index()] == 0 {
            let l = self.parent[at.index()];
            if l == NONE {
                return;
            }
            let (from, _, _) = graph.link(LinkId(l));
            self.branch_mut(from).retain(|x| x.0 != l);
            at = from;
        }
    }
}

/// All groups' trees, indexed by group.
pub type GroupTrees = Vec<GroupTree>;

/// The group id of an index (helper for readability).
pub fn group(i: usize) -> GroupId {
    GroupId(i as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// s - r1 - r2 - {a, b}; r1 - c; plus a long detour s - r3 - r4 - a with lower delay.
    fn graph() -> (Graph, Vec<NodeId>) {
        let mut g = Graph::default();
        let n: Vec<NodeId> = (0..8).map(|_| g.add_node()).collect();
        let (s, r1, r2, a, b, c, r3, r4) = (n[0], n[1], n[2], n[3], n[4], n[5], n[6], n[7]);
        let mut duplex = |x: NodeId, y: NodeId, d: u64| {
            g.add_link(x, y, d);
            g.add_link(y, x, d);
        };
        duplex(s, r1, 10);
        duplex(r1, r2, 10);
        duplex(r2, a, 10);
        duplex(r2, b, 10);
        duplex(r1, c, 10);
        duplex(s, r3, 1);
        duplex(r3, r4, 1);
        duplex(r4, a, 1);
        (g, n)
    }

    #[test]
    fn fewest_hops_then_lowest_delay() {
        let (g, n) = graph();
        let mut r = UnicastRoutes::default();
        // s -> a: both paths have 3 hops; the detour has less delay.
        let l = r.next(&g, n[0], n[3]).unwrap();
        assert_eq!(g.link(l).1, n[6]);
        // s -> b: only via r1.
        let l = r.next(&g, n[0], n[4]).unwrap();
        assert_eq!(g.link(l).1, n[1]);
        assert_eq!(r.next(&g, n[3], n[3]), None);
    }

    #[test]
    fn tree_grafts_and_prunes() {
        let (g, n) = graph();
        let mut t = GroupTree::new(&g, n[0]);
        assert!(t.join(&g, n[4])); // b via r1, r2
        assert!(t.join(&g, n[5])); // c via r1
        assert_eq!(t.out_links(n[0]).len(), 1);
        assert_eq!(t.out_links(n[1]).len(), 2);
        t.leave(&g, n[4]);
        assert_eq!(t.out_links(n[1]).len(), 1, "r1 -> r2 pruned");
        assert!(t.out_links(n[2]).is_empty());
        t.leave(&g, n[5]);
        assert!(t.out_links(n[0]).is_empty(), "whole tree pruned");
    }

    #[test]
    fn two_receivers_on_one_host_keep_the_branch() {
        let (g, n) = graph();
        let mut t = GroupTree::new(&g, n[0]);
        t.join(&g, n[5]);
        t.join(&g, n[5]);
        t.leave(&g, n[5]);
        assert_eq!(t.out_links(n[0]).len(), 1);
    }
}
