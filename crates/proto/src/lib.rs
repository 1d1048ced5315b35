//! Convoy's sans-IO protocol engine (documentation completed as the engine lands).

pub mod loss_filter;
pub mod rtt;
pub mod seq;
pub mod tfrc_loss;
pub mod throughput;
pub mod time;
pub mod token_bucket;

pub use time::Instant;
