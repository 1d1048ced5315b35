//! Convoy simulator: a deterministic packet-level discrete-event network simulator.

pub mod tcp;
