//! The library behind the `convoy` command: scenario files and the `convoy sim` run with its outputs
//! (summary.json, CSV series, SVG plots, pcap). The binary (`main.rs`) only parses arguments.

pub mod reproduce;
pub mod scenario;
pub mod simrun;
