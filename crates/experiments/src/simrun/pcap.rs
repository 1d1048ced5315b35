//! `--pcap LINK`: the packets of one link direction as a pcap file (nanosecond timestamps, raw IPv4).
//!
//! The simulator carries PGM packets as the real bytes the engine emitted; they are written inside synthesized
//! IPv4 and UDP headers, both UDP ports [`PGM_UDP_PORT`], so Wireshark decodes them with
//! `tshark -d udp.port==3055,pgm`. TCP segments get real IPv4 and TCP headers (with a SACK option when the
//! segment carries SACK blocks); their payload is not simulated, so it is left out (captured length < length).
//! Cross-traffic UDP datagrams get IPv4 and UDP headers, payload left out likewise.
//!
//! Beside the pcap file, [`write_packet_trace`] writes the PGM packets' fields as Convoy's parser reads them, in
//! the columns of `convoy send --packet-trace` (`convoy_net::packet_trace`, `dir` = `link`): a capture and its
//! trace can be compared packet by packet with what tshark shows.
//!
//! Addresses are the simulator's own: node n is `convoy_sim::topology::node_address`, a session's group
//! `group_address`. Checksums: IPv4 is correct; UDP carries 0 ("none", legal over IPv4); TCP carries 0 as its
//! payload is absent.

use convoy_proto::Instant;
use convoy_sim::packet::{Body, Dest, Packet};
use convoy_sim::tcp::TcpSegment;
use convoy_sim::topology::{group_address, node_address};
use std::io::{self, Write};
use std::net::{IpAddr, Ipv4Addr};

/// The UDP port of PGM's UDP encapsulation, used as source and destination port (decode as PGM with
/// `tshark -d udp.port==3055,pgm`).
pub const PGM_UDP_PORT: u16 = 3055;
/// TCP sinks listen here; senders use 20000 + flow number.
pub const TCP_SINK_PORT: u16 = 5001;
/// Cross-traffic UDP destination port; sources use 30000 + flow number.
pub const UDP_SINK_PORT: u16 = 9;

/// pcap's LINKTYPE_RAW: packets begin with the IP header.
const LINKTYPE_RAW: u32 = 101;

fn v4(ip: IpAddr) -> [u8; 4] {
    match ip {
        IpAddr::V4(a) => a.octets(),
        IpAddr::V6(_) => Ipv4Addr::UNSPECIFIED.octets(),
    }
}

fn checksum(bytes: &[u8]) -> u16 {
    let mut sum: u32 = 0;
    for c in bytes.chunks(2) {
        let w = u16::from_be_bytes([c[0], *c.get(1).unwrap_or(&0)]);
        sum += u32::from(w);
    }
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

fn ipv4(id: u16, proto: u8, src: [u8; 4], dst: [u8; 4], total_len: usize) -> [u8; 20] {
    let mut h = [0u8; 20];
    h[0] = 0x45;
    h[2..4].copy_from_slice(&(total_len.min(0xffff) as u16).to_be_bytes());
    h[4..6].copy_from_slice(&id.to_be_bytes());
    h[6] = 0x40; // don't fragment
    h[8] = 64;
    h[9] = proto;
    h[12..16].copy_from_slice(&src);
    h[16..20].copy_from_slice(&dst);
    let c = checksum(&h);
    h[10..12].copy_from_slice(&c.to_be_bytes());
    h
}

fn udp(sport: u16, dport: u16, len: usize) -> [u8; 8] {
    let mut h = [0u8; 8];
    h[0..2].copy_from_slice(&sport.to_be_bytes());
    h[2..4].copy_from_slice(&dport.to_be_bytes());
    h[4..6].copy_from_slice(&(len.min(0xffff) as u16).to_be_bytes());
    h
}

fn tcp(seg: &TcpSegment, sport: u16, dport: u16) -> Vec<u8> {
    let blocks = usize::from(seg.sack_count).min(seg.sack.len());
    let opt_len = if blocks > 0 { 4 + 8 * blocks } else { 0 };
    let mut h = vec![0u8; 20 + opt_len];
    h[0..2].copy_from_slice(&sport.to_be_bytes());
    h[2..4].copy_from_slice(&dport.to_be_bytes());
    let (seq, ack, flags) = if seg.is_ack {
        (1u32, seg.ack as u32, 0x10)
    } else {
        (seg.seq as u32, 1u32, 0x18)
    };
    h[4..8].copy_from_slice(&seq.to_be_bytes());
    h[8..12].copy_from_slice(&ack.to_be_bytes());
    h[12] = ((h.len() / 4) as u8) << 4;
    h[13] = flags;
    h[14..16].copy_from_slice(&0xffffu16.to_be_bytes());
    if blocks > 0 {
        // NOP, NOP, SACK (RFC 2018 §3): kind 5, length 2 + 8n, then left/right edges.
        h[20] = 1;
        h[21] = 1;
        h[22] = 5;
        h[23] = (2 + 8 * blocks) as u8;
        for (i, (l, r)) in seg.sack[..blocks].iter().enumerate() {
            let o = 24 + 8 * i;
            h[o..o + 4].copy_from_slice(&(*l as u32).to_be_bytes());
            h[o + 4..o + 8].copy_from_slice(&(*r as u32).to_be_bytes());
        }
    }
    h
}

/// The destination address of a packet: a node's or a session group's.
fn dest_address(p: &Packet) -> IpAddr {
    match p.dst {
        Dest::Node(n) => node_address(n),
        Dest::Group(g) => group_address(g),
    }
}

/// One packet as (captured bytes, original length).
fn frame(p: &Packet, id: u16) -> (Vec<u8>, usize) {
    let src = v4(node_address(p.src));
    let dst = v4(dest_address(p));
    match &p.body {
        Body::Pgm(bytes) => {
            let len = 28 + bytes.len();
            let mut f = Vec::with_capacity(len);
            f.extend_from_slice(&ipv4(id, 17, src, dst, len));
            f.extend_from_slice(&udp(PGM_UDP_PORT, PGM_UDP_PORT, 8 + bytes.len()));
            f.extend_from_slice(bytes);
            (f, len)
        }
        Body::Tcp(seg) => {
            let flow_port = 20000u16.wrapping_add(p.flow.0 as u16);
            let (sport, dport) = if seg.is_ack {
                (TCP_SINK_PORT, flow_port)
            } else {
                (flow_port, TCP_SINK_PORT)
            };
            let th = tcp(seg, sport, dport);
            let len = 20 + th.len() + seg.len as usize;
            let mut f = ipv4(id, 6, src, dst, len).to_vec();
            f.extend_from_slice(&th);
            (f, len)
        }
        Body::Udp { .. } => {
            let len = (p.size as usize).max(28);
            let mut f = ipv4(id, 17, src, dst, len).to_vec();
            f.extend_from_slice(&udp(
                30000u16.wrapping_add(p.flow.0 as u16),
                UDP_SINK_PORT,
                len - 20,
            ));
            (f, len)
        }
    }
}

/// Write `packets` as a pcap file.
pub fn write(out: &mut impl Write, packets: &[(Instant, Packet)]) -> io::Result<()> {
    // Nanosecond-resolution pcap header (magic 0xa1b23c4d), version 2.4, snaplen 65535.
    out.write_all(&0xa1b2_3c4du32.to_le_bytes())?;
    out.write_all(&2u16.to_le_bytes())?;
    out.write_all(&4u16.to_le_bytes())?;
    out.write_all(&0i32.to_le_bytes())?;
    out.write_all(&0u32.to_le_bytes())?;
    out.write_all(&65_535u32.to_le_bytes())?;
    out.write_all(&LINKTYPE_RAW.to_le_bytes())?;
    for (i, (t, p)) in packets.iter().enumerate() {
        let (bytes, orig) = frame(p, i as u16);
        let ns = t.as_nanos();
        out.write_all(&((ns / 1_000_000_000) as u32).to_le_bytes())?;
        out.write_all(&((ns % 1_000_000_000) as u32).to_le_bytes())?;
        out.write_all(&(bytes.len() as u32).to_le_bytes())?;
        out.write_all(&(orig as u32).to_le_bytes())?;
        out.write_all(&bytes)?;
    }
    Ok(())
}

/// Write the PGM packets of `packets` as CSV rows of their fields ([`convoy_wire::summary`]), preceded by the
/// header line: `time_s,dir,src,dst,len,` and [`convoy_wire::summary::CSV_COLUMNS`].
pub fn write_packet_trace(out: &mut impl Write, packets: &[(Instant, Packet)]) -> io::Result<()> {
    writeln!(
        out,
        "time_s,dir,src,dst,len,{}",
        convoy_wire::summary::CSV_COLUMNS
    )?;
    let mut row = String::new();
    for (t, p) in packets {
        let Body::Pgm(bytes) = &p.body else { continue };
        let dst = dest_address(p);
        row.clear();
        convoy_wire::PacketSummary::of(bytes).write_csv(&mut row);
        writeln!(
            out,
            "{:.9},link,{},{dst},{},{row}",
            t.as_secs_f64(),
            node_address(p.src),
            bytes.len()
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ipv4_checksum_verifies() {
        let h = ipv4(7, 17, [10, 0, 0, 1], [239, 1, 0, 1], 100);
        assert_eq!(checksum(&h), 0);
    }

    #[test]
    fn sack_option_layout() {
        let mut seg = TcpSegment {
            is_ack: true,
            ack: 1000,
            sack_count: 2,
            ..TcpSegment::default()
        };
        seg.sack[0] = (3000, 4000);
        seg.sack[1] = (5000, 6000);
        let h = tcp(&seg, 5001, 20000);
        assert_eq!(h.len(), 40);
        assert_eq!(h[12] >> 4, 10);
        assert_eq!(&h[20..24], &[1, 1, 5, 18]);
        assert_eq!(u32::from_be_bytes([h[24], h[25], h[26], h[27]]), 3000);
    }
}
