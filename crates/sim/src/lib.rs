//! Convoy simulator (deterministic discrete-event network simulator). Not yet built: see the project issues.
