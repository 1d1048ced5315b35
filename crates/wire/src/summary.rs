//! [`PacketSummary`]: the fields of one PGM packet as Convoy's parser reads them, written as one CSV row.
//!
//! This is what `convoy send --packet-trace` and `convoy recv --packet-trace` write for every datagram they hand
//! to the kernel or read from it, and what the simulator writes beside a `--pcap` file for every packet of the
//! link. The columns are the fields Wireshark's PGM dissector shows (tshark 4.0.17 field names in
//! [`CSV_COLUMNS`]' docs), so a capture and a trace can be compared packet by packet: a difference means Convoy
//! and an independent parser read the same bytes differently.
//!
//! Numbers are decimal except the ACK bitmap, the options byte and option type codes (`0x`-prefixed hex, as
//! tshark prints them); lists (option types, OPT_NAK_LIST) are space-separated; an absent field is empty. A
//! datagram that is not a valid PGM packet gets its type (when the header says it) and the parse error, quoted.

use crate::{Packet, PacketRepr, PacketType};
use std::net::IpAddr;

/// The CSV columns of [`PacketSummary::write_csv`], in order:
///
/// | column | tshark field |
/// |---|---|
/// | `type` | `pgm.hdr.type` (by name: SPM, ODATA, …) |
/// | `sport`, `dport` | `pgm.hdr.sport`, `pgm.hdr.dport` |
/// | `gsi` | `pgm.hdr.gsi` |
/// | `opts_flags` | `pgm.hdr.opts` |
/// | `tsdu_len` | `pgm.hdr.tsdulen` |
/// | `checksum_ok` | `pgm.hdr.cksum.status` (1 good, 0 bad; a packet without checksum counts as good) |
/// | `sqn` | `pgm.spm.sqn` (SPM, ODATA, RDATA), `pgm.nak.sqn` (NAK, NNAK, NCF), `pgm.poll.sqn`, `pgm.polr.sqn` |
/// | `trail`, `lead` | `pgm.spm.trail`, `pgm.spm.lead` |
/// | `nla` | `pgm.spm.path.*` (SPM, POLL), `pgm.nak.src.*` (NAK, NNAK, NCF) |
/// | `group` | `pgm.nak.grp.*` |
/// | `rx_max`, `bitmap` | `pgm.ack.maxsqn`, `pgm.ack.bitmap` |
/// | `options` | `pgm.genopts.type`: the option type codes after OPT_LENGTH, END bit cleared (tshark 4.0 files no type field for OPT_SYN, OPT_FIN and OPT_RST, only a label) |
/// | `opts_len` | `pgm.opts.tlen`: all options' bytes, OPT_LENGTH included |
/// | `nak_list` | `pgm.opts.nak.list` (4-byte big-endian sequence numbers) |
/// | `frag_first`, `frag_offset`, `frag_len` | `pgm.opts.fragment.*` |
/// | `cc_tstamp` | `pgm.opts.ccdata.tstamp` (OPT_PGMCC_DATA or OPT_PGMCC_FEEDBACK) |
/// | `acker` | `pgm.opts.ccdata.acker.*` of OPT_PGMCC_DATA |
/// | `loss_rate`, `reporter` | `pgm.opts.ccdata.lossrate`, `pgm.opts.ccdata.acker.*` of OPT_PGMCC_FEEDBACK |
/// | `error` | Convoy's parse error, if any |
pub const CSV_COLUMNS: &str = "type,sport,dport,gsi,opts_flags,tsdu_len,checksum_ok,sqn,trail,lead,nla,group,\
rx_max,bitmap,options,opts_len,nak_list,frag_first,frag_offset,frag_len,cc_tstamp,acker,loss_rate,reporter,error";

/// One packet's fields (module docs); built by [`PacketSummary::of`].
#[derive(Clone, Debug)]
pub struct PacketSummary<'a> {
    /// The packet type, when the header names a known one.
    pub packet_type: Option<PacketType>,
    /// The checksum matches (or is absent where RFC 3208 §8 allows it).
    pub checksum_ok: bool,
    /// The header and body, when the packet parses.
    pub packet: Option<Packet<&'a [u8]>>,
    /// The decoded packet, when it parses.
    pub repr: Option<PacketRepr<'a>>,
    /// The option type codes after OPT_LENGTH, in wire order, END bit cleared.
    pub option_types: Vec<u8>,
    /// Why the packet does not parse.
    pub error: Option<String>,
}

impl<'a> PacketSummary<'a> {
    /// Read `bytes` (a UDP payload) as a PGM packet.
    pub fn of(bytes: &'a [u8]) -> Self {
        let packet_type = crate::Header::new_checked(bytes)
            .ok()
            .and_then(|h| h.packet_type().ok());
        let checksum_ok =
            packet_type.is_some_and(|t| crate::packet::verify_checksum(t, bytes).is_ok());
        let parsed = Packet::new_checked(bytes)
            .and_then(|p| PacketRepr::parse_without_checksum(bytes).map(|r| (p, r)));
        match parsed {
            Ok((packet, repr)) => {
                let option_types = if packet.has_options() {
                    packet
                        .raw_options()
                        .filter_map(Result::ok)
                        .skip(1)
                        .map(|o| o.option_type())
                        .collect()
                } else {
                    Vec::new()
                };
                Self {
                    packet_type,
                    checksum_ok,
                    packet: Some(packet),
                    repr: Some(repr),
                    option_types,
                    error: None,
                }
            }
            Err(e) => Self {
                packet_type,
                checksum_ok,
                packet: None,
                repr: None,
                option_types: Vec::new(),
                error: Some(e.to_string()),
            },
        }
    }

    /// Append the row's [`CSV_COLUMNS`] fields to `out` (no line end).
    pub fn write_csv(&self, out: &mut String) {
        let mut cols: Vec<String> = Vec::with_capacity(25);
        cols.push(self.packet_type.map_or(String::new(), |t| t.name().into()));
        match (&self.packet, &self.repr) {
            (Some(p), Some(r)) => self.fields(p, r, &mut cols),
            // Every column but `error` empty.
            _ => cols.resize(CSV_COLUMNS.split(',').count() - 1, String::new()),
        }
        cols[6] = u8::from(self.checksum_ok).to_string();
        cols.push(self.error.as_deref().map_or(String::new(), quote));
        out.push_str(&cols.join(","));
    }

    /// Columns `sport` to `reporter` of a packet that parses.
    fn fields(&self, p: &Packet<&[u8]>, r: &PacketRepr<'_>, cols: &mut Vec<String>) {
        let opt = |v: Option<String>| v.unwrap_or_default();
        let num = |v: Option<u32>| opt(v.map(|n| n.to_string()));
        let ip = |v: Option<IpAddr>| opt(v.map(|a| a.to_string()));
        cols.push(r.source_port.to_string());
        cols.push(r.dest_port.to_string());
        cols.push(r.gsi.to_string());
        cols.push(format!("0x{:02x}", p.options_flags()));
        cols.push(r.payload.len().to_string());
        cols.push(String::new()); // checksum_ok, set by the caller
        cols.push(num(p.sqn()));
        cols.push(num(p.trail()));
        cols.push(num(p.lead()));
        cols.push(ip(p.path_nla().or(p.source_nla())));
        cols.push(ip(p.group_nla()));
        cols.push(num(p.rx_max()));
        cols.push(opt(p.ack_bitmap().map(|b| format!("0x{b:08x}"))));
        cols.push(join(self.option_types.iter().map(|t| format!("0x{t:02x}"))));
        let opts_len = p.options_bytes().len();
        cols.push(if opts_len > 0 {
            opts_len.to_string()
        } else {
            String::new()
        });
        cols.push(join(r.options.nak_list.iter().map(u32::to_string)));
        let frag = r.options.fragment;
        cols.push(num(frag.map(|f| f.first_sqn)));
        cols.push(num(frag.map(|f| f.offset)));
        cols.push(num(frag.map(|f| f.apdu_len)));
        let cc = &r.options.cc.pgmcc;
        let tstamp = cc.data.map(|d| d.tstamp).or(cc.feedback.map(|f| f.tstamp));
        cols.push(num(tstamp));
        cols.push(ip(cc.data.map(|d| d.acker)));
        cols.push(opt(cc.feedback.map(|f| f.loss_rate.to_string())));
        cols.push(ip(cc.feedback.map(|f| f.reporter)));
    }
}

fn join(items: impl Iterator<Item = String>) -> String {
    items.collect::<Vec<_>>().join(" ")
}

/// A CSV field in double quotes, inner quotes doubled (RFC 4180).
fn quote(s: &str) -> String {
    format!("\"{}\"", s.replace('"', "\"\""))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::pgmcc::PgmccData;
    use crate::{BodyRepr, FragmentOption, Gsi, OptionsRepr};

    fn row(bytes: &[u8]) -> Vec<String> {
        let mut s = String::new();
        PacketSummary::of(bytes).write_csv(&mut s);
        let names: Vec<&str> = CSV_COLUMNS.split(',').collect();
        let cols: Vec<String> = s.splitn(names.len(), ',').map(str::to_string).collect();
        assert_eq!(cols.len(), names.len(), "{s}");
        cols
    }

    fn col<'v>(cols: &'v [String], name: &str) -> &'v str {
        let i = CSV_COLUMNS.split(',').position(|c| c == name).unwrap();
        &cols[i]
    }

    #[test]
    fn odata_row_names_the_sqn_fragment_and_acker() {
        let mut options = OptionsRepr {
            fragment: Some(FragmentOption {
                first_sqn: 7,
                offset: 1400,
                apdu_len: 4000,
            }),
            ..OptionsRepr::default()
        };
        options.cc.pgmcc.data = Some(PgmccData {
            tstamp: 0x0001_0203,
            acker: "10.0.0.3".parse().unwrap(),
        });
        let repr = PacketRepr {
            source_port: 1000,
            dest_port: 7500,
            gsi: Gsi([1, 2, 3, 4, 5, 6]),
            body: BodyRepr::Odata { sqn: 8, trail: 2 },
            options,
            payload: &[9; 100],
        };
        let mut buf = vec![0; repr.buffer_len()];
        repr.emit(&mut buf).unwrap();
        let cols = row(&buf);
        assert_eq!(col(&cols, "type"), "ODATA");
        assert_eq!(col(&cols, "gsi"), "010203040506");
        assert_eq!(col(&cols, "opts_flags"), "0x01");
        assert_eq!(col(&cols, "checksum_ok"), "1");
        assert_eq!(col(&cols, "sqn"), "8");
        assert_eq!(col(&cols, "trail"), "2");
        assert_eq!(col(&cols, "options"), "0x01 0x12");
        assert_eq!(col(&cols, "opts_len"), "36");
        assert_eq!(col(&cols, "frag_offset"), "1400");
        assert_eq!(col(&cols, "acker"), "10.0.0.3");
        assert_eq!(col(&cols, "cc_tstamp"), "66051");
        assert_eq!(col(&cols, "error"), "");
        // A flipped payload bit: still summarised, checksum bad.
        let last = buf.len() - 1;
        buf[last] ^= 1;
        assert_eq!(col(&row(&buf), "checksum_ok"), "0");
    }

    #[test]
    fn a_truncated_packet_gets_its_type_and_the_error() {
        let repr = PacketRepr {
            source_port: 7500,
            dest_port: 1000,
            gsi: Gsi::default(),
            body: BodyRepr::Ack {
                rx_max: 5,
                bitmap: 1,
            },
            options: OptionsRepr::default(),
            payload: &[],
        };
        let mut buf = vec![0; repr.buffer_len()];
        repr.emit(&mut buf).unwrap();
        let cols = row(&buf[..buf.len() - 2]);
        assert_eq!(col(&cols, "type"), "ACK");
        assert!(col(&cols, "error").starts_with("\"ACK"), "{cols:?}");
    }
}
