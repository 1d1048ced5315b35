//! The options of `aimd`, the agent-based rate AIMD scheme of Shi and Waldvogel 2000 (docs/papers.md: "A
//! Rate-based End-to-end Multicast Congestion Control Protocol", "paper"). The paper gives no packet formats;
//! these are Convoy's, in Convoy's range.
//!
//! | type | name | length | value | field of [`AimdOptions`] |
//! |---|---|---|---|---|
//! | 0x36 | OPT_CONVOY_AIMD_DATA | 16, or 24 / 36 with an agent (IPv4 / IPv6) | `[3]` flags (0x01 an agent follows), `[4]` u32 ts, the send time (µs), `[8]` f32 X, the sending rate (bit/s), `[12]` f32 the agent's capacity (packets/s); with an agent `[16]` its NLA | `data` |
//! | 0x37 | OPT_CONVOY_AIMD_ECHO | 16 / 28 | `[3]` zero, `[4]` u32 tr', the receiver's last report time plus the sender's hold (µs), `[8]` the receiver's NLA | `echo` |
//! | 0x38 | OPT_CONVOY_AIMD_REPORT | 32 / 44 | `[3]` kind (1 congestion notification, 2 positive feedback, 3 negative feedback), `[4]` u32 tr, the receiver's time (µs), `[8]` u32 ts', the last data packet's ts plus the receiver's hold (µs), `[12]` f32 p, the loss rate, `[16]` u32 the receiver's RTT (µs, 0 before a sample), `[20]` u32 a sequence number (negative feedback: the last missing packet; otherwise the highest received), `[24]` the reporter's NLA | `report` |
//!
//! The sender's fields ride on every ODATA: the receivers compare their capacity with the agent's ("each receiver
//! sends a CN if and only if it has worse capacity than the current agent", paper §5.1), and the agent learns its
//! role from its own NLA. The echo rides on one ODATA per report to be echoed, so that receivers measure their RTT
//! (§5.4). Reports ride on an ACK (type 0x0D) sent unicast to the source (RX_MAX the highest sequence number
//! received, its bitmap the 32 before), as TFMCC's do. Rates are IEEE-754 binary32, timestamps microseconds
//! modulo 2^32.

use super::{SchemeOption, SchemeOptions};
use crate::field::put32;
use crate::nla;
use crate::ParseError;
use std::net::IpAddr;

pub use super::tfmcc::WireRate;

/// The scheme's option type codes.
pub mod opt {
    /// OPT_CONVOY_AIMD_DATA: the sender's fields, on ODATA.
    pub const DATA: u8 = 0x36;
    /// OPT_CONVOY_AIMD_ECHO: one receiver's timestamp echoed, on ODATA.
    pub const ECHO: u8 = 0x37;
    /// OPT_CONVOY_AIMD_REPORT: a receiver's notification or the agent's feedback, on an ACK.
    pub const REPORT: u8 = 0x38;
}

/// Field offsets within each option, from the option's first byte.
pub mod field {
    use crate::field::Field;
    /// DATA: flag bits. REPORT: the kind.
    pub const FLAGS: usize = 3;
    /// DATA: ts (µs). ECHO: tr' (µs). REPORT: tr (µs).
    pub const TIME: Field = 4..8;
    /// DATA: X (f32 bit/s). REPORT: ts' (µs).
    pub const SECOND: Field = 8..12;
    /// DATA: the agent's capacity (f32 packets/s). REPORT: p (f32).
    pub const THIRD: Field = 12..16;
    /// DATA with an agent: start of the agent's NLA; its length without one.
    pub const DATA_AGENT: usize = 16;
    /// ECHO: start of the receiver's NLA.
    pub const ECHO_NLA: usize = 8;
    /// REPORT: the receiver's RTT (µs).
    pub const REPORT_RTT: Field = 16..20;
    /// REPORT: the sequence number.
    pub const REPORT_SQN: Field = 20..24;
    /// REPORT: start of the reporter's NLA.
    pub const REPORT_NLA: usize = 24;
}

/// DATA flag: the agent's NLA follows.
pub const DATA_AGENT: u8 = 0x01;

/// What a report is (paper §5.1, §5.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReportKind {
    /// A congestion notification (CN): the receiver's capacity is below the agent's (§5.1).
    Congestion,
    /// The agent's positive feedback (PF): no loss in the last RTT (§5.3).
    Positive,
    /// The agent's negative feedback (NF): a loss in the last RTT (§5.3).
    Negative,
}

impl ReportKind {
    fn code(self) -> u8 {
        match self {
            ReportKind::Congestion => 1,
            ReportKind::Positive => 2,
            ReportKind::Negative => 3,
        }
    }

    fn from_code(code: u8) -> Option<ReportKind> {
        match code {
            1 => Some(ReportKind::Congestion),
            2 => Some(ReportKind::Positive),
            3 => Some(ReportKind::Negative),
            _ => None,
        }
    }
}

/// OPT_CONVOY_AIMD_DATA: the sender's fields on one data packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct AimdData {
    /// The packet's send time (µs).
    pub ts: u32,
    /// The sender's current rate, bit/s.
    pub x: WireRate,
    /// The current agent and its capacity (packets/s), if there is one.
    pub agent: Option<(IpAddr, WireRate)>,
}

/// OPT_CONVOY_AIMD_ECHO: a receiver's report time, echoed (paper §5.4: RTT by timestamps).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct AimdEcho {
    /// The receiver whose report is echoed.
    pub receiver: IpAddr,
    /// Its report's tr plus the sender's hold time (µs).
    pub tr_echo: u32,
}

/// OPT_CONVOY_AIMD_REPORT: a congestion notification or the agent's feedback.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct AimdReport {
    /// The reporting receiver.
    pub reporter: IpAddr,
    /// Notification, positive or negative feedback.
    pub kind: ReportKind,
    /// The receiver's clock when sending (µs).
    pub tr: u32,
    /// The last data packet's ts plus the receiver's hold time (µs).
    pub ts_echo: u32,
    /// The receiver's loss rate over its recent window.
    pub loss: WireRate,
    /// The receiver's RTT estimate (µs), 0 before its first sample.
    pub rtt_us: u32,
    /// Negative feedback: the last missing sequence number; otherwise the highest received.
    pub sqn: u32,
}

/// The scheme's options on one packet.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct AimdOptions {
    /// 0x36 OPT_CONVOY_AIMD_DATA (on ODATA).
    pub data: Option<AimdData>,
    /// 0x37 OPT_CONVOY_AIMD_ECHO (on ODATA).
    pub echo: Option<AimdEcho>,
    /// 0x38 OPT_CONVOY_AIMD_REPORT (on ACKs).
    pub report: Option<AimdReport>,
}

/// One decoded option of the scheme.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AimdOption {
    /// OPT_CONVOY_AIMD_DATA.
    Data(AimdData),
    /// OPT_CONVOY_AIMD_ECHO.
    Echo(AimdEcho),
    /// OPT_CONVOY_AIMD_REPORT.
    Report(AimdReport),
}

fn decode_data(raw: &SchemeOption<'_>) -> Result<AimdData, ParseError> {
    const EXPECTED: &str = "16, or 24 / 36 with an agent";
    let b = raw.bytes;
    let flags = b.get(field::FLAGS).copied().unwrap_or(0);
    let agent = if flags & DATA_AGENT != 0 {
        Some((raw.nla_at(field::DATA_AGENT, EXPECTED)?, WireRate::read(b, field::THIRD)))
    } else {
        raw.exact_len(field::DATA_AGENT, EXPECTED)?;
        None
    };
    Ok(AimdData {
        ts: raw.u32_at(field::TIME),
        x: WireRate::read(b, field::SECOND),
        agent,
    })
}

fn decode_report(raw: &SchemeOption<'_>) -> Result<AimdReport, ParseError> {
    let b = raw.bytes;
    let reporter = raw.nla_at(field::REPORT_NLA, "32 (IPv4 NLA) or 44 (IPv6 NLA)")?;
    let code = b[field::FLAGS];
    let kind = ReportKind::from_code(code).ok_or_else(|| {
        raw.error(crate::ParseErrorKind::BadField {
            field: "kind",
            value: u32::from(code),
            expected: "1 (notification), 2 (positive) or 3 (negative feedback)",
        })
    })?;
    Ok(AimdReport {
        reporter,
        kind,
        tr: raw.u32_at(field::TIME),
        ts_echo: raw.u32_at(field::SECOND),
        loss: WireRate::read(b, field::THIRD),
        rtt_us: raw.u32_at(field::REPORT_RTT),
        sqn: raw.u32_at(field::REPORT_SQN),
    })
}

impl SchemeOptions for AimdOptions {
    type Option = AimdOption;

    option_list!(AimdOption {
        value data: Data = opt::DATA, "OPT_CONVOY_AIMD_DATA";
        value echo: Echo = opt::ECHO, "OPT_CONVOY_AIMD_ECHO";
        value report: Report = opt::REPORT, "OPT_CONVOY_AIMD_REPORT";
    });

    fn decode(raw: &SchemeOption<'_>) -> Result<AimdOption, ParseError> {
        match raw.option_type() {
            opt::DATA => decode_data(raw).map(AimdOption::Data),
            opt::ECHO => Ok(AimdOption::Echo(AimdEcho {
                receiver: raw.nla_at(field::ECHO_NLA, "16 (IPv4 NLA) or 28 (IPv6 NLA)")?,
                tr_echo: raw.u32_at(field::TIME),
            })),
            _ => decode_report(raw).map(AimdOption::Report),
        }
    }

    fn wire_len(option: &AimdOption) -> usize {
        match option {
            AimdOption::Data(d) => field::DATA_AGENT + d.agent.map_or(0, |(a, _)| nla::nla_len(&a)),
            AimdOption::Echo(e) => field::ECHO_NLA + nla::nla_len(&e.receiver),
            AimdOption::Report(r) => field::REPORT_NLA + nla::nla_len(&r.reporter),
        }
    }

    fn emit_value(option: &AimdOption, bytes: &mut [u8]) {
        match option {
            AimdOption::Data(d) => {
                put32(bytes, field::TIME.start, d.ts);
                put32(bytes, field::SECOND.start, d.x.0.to_bits());
                bytes[field::FLAGS] = 0;
                if let Some((agent, capacity)) = d.agent {
                    bytes[field::FLAGS] = DATA_AGENT;
                    put32(bytes, field::THIRD.start, capacity.0.to_bits());
                    nla::emit(bytes, field::DATA_AGENT, &agent);
                } else {
                    put32(bytes, field::THIRD.start, 0);
                }
            }
            AimdOption::Echo(e) => {
                bytes[field::FLAGS] = 0;
                put32(bytes, field::TIME.start, e.tr_echo);
                nla::emit(bytes, field::ECHO_NLA, &e.receiver);
            }
            AimdOption::Report(r) => {
                bytes[field::FLAGS] = r.kind.code();
                put32(bytes, field::TIME.start, r.tr);
                put32(bytes, field::SECOND.start, r.ts_echo);
                put32(bytes, field::THIRD.start, r.loss.0.to_bits());
                put32(bytes, field::REPORT_RTT.start, r.rtt_us);
                put32(bytes, field::REPORT_SQN.start, r.sqn);
                nla::emit(bytes, field::REPORT_NLA, &r.reporter);
            }
        }
    }

    /// OPT_CONVOY_AIMD_DATA with an agent and OPT_CONVOY_AIMD_ECHO, both IPv6 or both IPv4 (with the option
    /// header of the echo).
    fn data_len_max(ipv6: bool) -> usize {
        let nla = if ipv6 {
            nla::NLA_LEN_IPV6
        } else {
            nla::NLA_LEN_IPV4
        };
        field::DATA_AGENT + nla + field::ECHO_NLA + nla
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{BodyRepr, Gsi, OptionsRepr, PacketRepr};
    use proptest::prelude::*;

    fn addr() -> impl Strategy<Value = IpAddr> {
        prop_oneof![
            any::<[u8; 4]>().prop_map(IpAddr::from),
            any::<[u16; 8]>().prop_map(IpAddr::from),
        ]
    }

    fn rate() -> impl Strategy<Value = WireRate> {
        any::<u32>().prop_map(|b| WireRate(f32::from_bits(b)))
    }

    fn kind() -> impl Strategy<Value = ReportKind> {
        prop_oneof![
            Just(ReportKind::Congestion),
            Just(ReportKind::Positive),
            Just(ReportKind::Negative)
        ]
    }

    fn options() -> impl Strategy<Value = AimdOptions> {
        let data = proptest::option::of((any::<u32>(), rate(), proptest::option::of((addr(), rate()))))
            .prop_map(|d| d.map(|(ts, x, agent)| AimdData { ts, x, agent }));
        let echo = proptest::option::of((addr(), any::<u32>()))
            .prop_map(|e| e.map(|(receiver, tr_echo)| AimdEcho { receiver, tr_echo }));
        let report = proptest::option::of((
            (addr(), kind()),
            (any::<u32>(), any::<u32>(), rate(), any::<u32>(), any::<u32>()),
        ))
        .prop_map(|r| {
            r.map(|((reporter, kind), (tr, ts_echo, loss, rtt_us, sqn))| AimdReport {
                reporter,
                kind,
                tr,
                ts_echo,
                loss,
                rtt_us,
                sqn,
            })
        });
        (data, echo, report).prop_map(|(data, echo, report)| AimdOptions { data, echo, report })
    }

    fn packet(aimd: AimdOptions) -> PacketRepr<'static> {
        let mut options = OptionsRepr::default();
        options.cc.aimd = aimd;
        PacketRepr {
            source_port: 7500,
            dest_port: 1000,
            gsi: Gsi([1, 2, 3, 4, 5, 6]),
            body: BodyRepr::Ack { rx_max: 9, bitmap: 1 },
            options,
            payload: &[],
        }
    }

    proptest! {
        #[test]
        fn every_aimd_option_set_round_trips(o in options()) {
            let repr = packet(o);
            let mut buf = [0u8; 512];
            let len = repr.emit(&mut buf).unwrap();
            prop_assert_eq!(len, repr.buffer_len());
            prop_assert_eq!(PacketRepr::parse(&buf[..len]).unwrap(), repr);
        }
    }

    #[test]
    fn report_layout_and_an_unknown_kind_is_named() {
        let r = AimdReport {
            reporter: "10.0.0.9".parse().unwrap(),
            kind: ReportKind::Negative,
            tr: 0x0102_0304,
            ts_echo: 0x0506_0708,
            loss: WireRate(0.25),
            rtt_us: 60_000,
            sqn: 0xDEAD_BEEF,
        };
        let repr = packet(AimdOptions {
            report: Some(r),
            ..AimdOptions::default()
        });
        let mut buf = [0u8; 128];
        let len = repr.emit(&mut buf).unwrap();
        // ACK header 24 bytes, OPT_LENGTH 4, then the report option with END.
        let o = &buf[28..len];
        assert_eq!(o[0], 0x80 | opt::REPORT);
        assert_eq!(usize::from(o[1]), 32);
        assert_eq!(o[3], 3, "negative feedback");
        assert_eq!(&o[4..8], &[1, 2, 3, 4]);
        assert_eq!(&o[8..12], &[5, 6, 7, 8]);
        assert_eq!(f32::from_bits(u32::from_be_bytes([o[12], o[13], o[14], o[15]])), 0.25);
        assert_eq!(u32::from_be_bytes([o[16], o[17], o[18], o[19]]), 60_000);
        assert_eq!(&o[20..24], &[0xDE, 0xAD, 0xBE, 0xEF]);
        assert_eq!(&o[24..26], &[0, 1], "AFI 1 = IPv4");
        assert_eq!(&o[28..32], &[10, 0, 0, 9]);
        buf[31] = 7;
        crate::checksum::fill(&mut buf[..len]);
        let e = PacketRepr::parse(&buf[..len]).unwrap_err().to_string();
        assert!(e.contains("OPT_CONVOY_AIMD_REPORT") && e.contains("kind"), "{e}");
    }

    #[test]
    fn data_without_an_agent_is_sixteen_bytes_and_a_wrong_length_is_named() {
        let d = AimdData {
            ts: 1,
            x: WireRate(1.5e6),
            agent: None,
        };
        let repr = packet(AimdOptions {
            data: Some(d),
            ..AimdOptions::default()
        });
        let mut buf = [0u8; 128];
        let len = repr.emit(&mut buf).unwrap();
        assert_eq!(usize::from(buf[29]), 16);
        assert_eq!(f32::from_bits(u32::from_be_bytes([buf[36], buf[37], buf[38], buf[39]])), 1.5e6, "X at [8], bit/s");
        // Claim an agent without room for it: the error names the option.
        buf[31] = DATA_AGENT;
        crate::checksum::fill(&mut buf[..len]);
        let e = PacketRepr::parse(&buf[..len]).unwrap_err().to_string();
        assert!(e.contains("OPT_CONVOY_AIMD_DATA"), "{e}");
    }
}
