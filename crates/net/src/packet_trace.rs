//! `--packet-trace FILE`: every datagram an endpoint hands to the kernel or reads from it, one CSV row each, in
//! the order of the calls, with the fields Convoy's parser reads in it ([`convoy_wire::summary`]).
//!
//! Columns: `time_s` (seconds since the endpoint opened), `dir` (`tx` or `rx`), `src` and `dst` (for `tx`, this
//! host and the group or unicast peer; for `rx`, the sender and an empty `dst`: the socket does not say which of
//! its addresses a datagram was sent to), `len` (UDP payload bytes), then [`convoy_wire::summary::CSV_COLUMNS`].
//! Comparing the `tx` rows of every host with a capture (tshark) checks Convoy's encoder against Wireshark's
//! dissector packet by packet; `crates/cli/tests/wireshark.rs` does.
//!
//! A datagram the kernel refuses (`IoStats::send_errors`) has a `tx` row yet never reaches the wire.

use convoy_proto::Instant;
use convoy_wire::summary::{PacketSummary, CSV_COLUMNS};
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::net::IpAddr;
use std::path::{Path, PathBuf};

/// An open packet trace (module docs).
#[derive(Debug)]
pub struct PacketTrace {
    path: PathBuf,
    out: BufWriter<File>,
    local: IpAddr,
    row: String,
    rows: u64,
    /// The first write error; later rows are skipped.
    error: Option<io::Error>,
}

impl PacketTrace {
    /// Create (or truncate) `path` and write the header line; `local` is this host's address (`src` of `tx`
    /// rows).
    pub fn create(path: &Path, local: IpAddr) -> io::Result<Self> {
        let named = |e: io::Error| {
            io::Error::new(e.kind(), format!("packet trace {}: {e}", path.display()))
        };
        let mut out = BufWriter::new(File::create(path).map_err(named)?);
        writeln!(out, "time_s,dir,src,dst,len,{CSV_COLUMNS}").map_err(named)?;
        Ok(Self {
            path: path.to_path_buf(),
            out,
            local,
            row: String::with_capacity(256),
            rows: 0,
            error: None,
        })
    }

    /// A datagram handed to the kernel for `dst` at `t`.
    pub fn sent(&mut self, t: Instant, dst: IpAddr, bytes: &[u8]) {
        let (src, dst) = (self.local.to_string(), dst.to_string());
        self.record(t, "tx", &src, &dst, bytes);
    }

    /// A datagram read from `src` at `t`.
    pub fn received(&mut self, t: Instant, src: IpAddr, bytes: &[u8]) {
        self.record(t, "rx", &src.to_string(), "", bytes);
    }

    fn record(&mut self, t: Instant, dir: &str, src: &str, dst: &str, bytes: &[u8]) {
        if self.error.is_some() {
            return;
        }
        self.row.clear();
        self.row.push_str(&format!(
            "{:.6},{dir},{src},{dst},{},",
            t.as_secs_f64(),
            bytes.len()
        ));
        PacketSummary::of(bytes).write_csv(&mut self.row);
        self.row.push('\n');
        match self.out.write_all(self.row.as_bytes()) {
            Ok(()) => self.rows += 1,
            Err(e) => self.error = Some(e),
        }
    }

    /// Flush and close: the rows written, or the first error, naming the file.
    pub fn finish(mut self) -> io::Result<u64> {
        let named = |e: io::Error| {
            io::Error::new(
                e.kind(),
                format!("packet trace {}: {e}", self.path.display()),
            )
        };
        if let Some(e) = self.error.take() {
            return Err(named(e));
        }
        self.out.flush().map_err(named)?;
        Ok(self.rows)
    }
}
