//! PGM (RFC 3208) and PGMCC packets on the wire.
//!
//! (Crate documentation to be completed by the wire implementation.)

mod repr;

pub use repr::*;
