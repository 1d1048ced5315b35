//! Convoy's deterministic packet-level network simulator. It hosts the very same convoy-proto endpoints that run
//! on real sockets, beside TCP and UDP cross traffic, over links with rate, delay, queue discipline and random
//! loss, with PGM network elements in routers.
//!
//! * Event core ([`event`]): one thread, a heap keyed by (time, insertion counter); equal-time events run in the
//!   order scheduled; agents' timers keep one pending event each, re-armed lazily (`agent_timer`); a multicast
//!   fan-out's arrivals due together are one event (`fan_out`).
//! * Randomness ([`seed`]): each component has its own ChaCha8 stream derived from the run's seed and the
//!   component's name, so adding a node never changes another's draws.
//! * Network model: [`link`] (FIFO timing computed at admission, one event per hop), [`queue`] (drop-tail in
//!   packets or bytes, RED), [`impairment`] (Bernoulli, Gilbert–Elliott), [`routing`] (shortest paths,
//!   per-group source trees rebuilt on join and leave), [`ne`] (PGM network elements).
//! * Traffic ([`agents`]): Convoy sessions, TCP ([`tcp`]), CBR and Pareto on/off UDP.
//! * Results ([`results`], [`observe`]): throughput bins, controller samples, time–sequence traces, link
//!   statistics.
//!
//! A run is a pure function of its network description and seed: tables are vectors indexed by ids, and nothing
//! that affects the outcome iterates a hash map.

mod agent_timer;
pub mod agents;
pub mod dumbbell;
pub mod engine;
pub mod event;
mod fan_out;
pub mod ids;
pub mod impairment;
pub mod link;
pub mod ne;
pub mod network;
pub mod observe;
pub mod packet;
pub mod queue;
pub mod results;
pub mod routing;
pub mod seed;
pub mod tcp;
pub mod time_util;
pub mod topology;

pub use ids::{AgentId, FlowId, GroupId, LinkId, NodeId};
pub use network::{BuildError, LinkChange, Network, NodeKind, SessionReceiver, SessionSpec};
