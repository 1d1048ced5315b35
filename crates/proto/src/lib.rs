//! Convoy's sans-IO protocol engine (documentation completed as the engine lands).

pub mod rxw;
pub mod seq;
pub mod time;

pub use time::Instant;
