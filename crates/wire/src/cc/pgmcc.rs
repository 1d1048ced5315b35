//! pgmcc's options (draft-ietf-rmt-bb-pgmcc-03 §2.1; docs/wire-format.md §1.4) and Convoy's pgmcc options.
//!
//! | type | name | length | value | field of [`PgmccOptions`] |
//! |---|---|---|---|---|
//! | 0x12 | OPT_PGMCC_DATA | 16 / 28 | `[4]` tstamp, `[8]` acker NLA (`0.0.0.0`/`::` = no acker: election request) | `data` |
//! | 0x13 | OPT_PGMCC_FEEDBACK | 16 / 28 | `[4]` tstamp echo, `[8]` AFI, `[10]` u16 loss rate, `[12]` reporter address | `feedback` |
//! | 0x30 | OPT_CONVOY_RXW_LEAD | 8 | `[4]` u32: the receiver's highest sequence number, on NAKs next to OPT_PGMCC_FEEDBACK (paper §3.2 receiver report) | `rxw_lead` |
//! | 0x31 | OPT_CONVOY_ELECTION | 4 | this NAK is an election report ("dummy NAK", draft §2.3.1): no repair wanted | `election` |
//! | 0x32 | OPT_CONVOY_ACKER_LEAVING | 4 | on an ACK: the acker is leaving (draft §2.3.2) | `acker_leaving` |
//! | 0x39 | OPT_CONVOY_START_UP | 8 | on ODATA while the source's start-up runs: `[4]` u32 the lowest receive rate reported so far, in packets per 1000 s (0 = none yet) | `start_up` |
//! | 0x3A | OPT_CONVOY_RX_RATE | 8 | on an ACK (from the acker, or from a receiver reporting only): `[4]` u32 the receive rate of a receiver whose path spreads the source's packets, in packets per 1000 s | `rx_rate` |
//!
//! The PGMCC options' length must match their NLA's AFI (16 with IPv4, 28 with IPv6); OpenPGM, Wireshark and
//! tcpdump decode 0x12 and 0x13 and skip Convoy's 0x30–0x32 and 0x39–0x3A. The start-up options serve the
//! receive-rate bound of `convoy-proto`'s pgmcc start-up (its `startup` module).

use super::{SchemeOption, SchemeOptions};
use crate::field::{be16, put16, put32};
use crate::{nla, ParseError};
use std::net::IpAddr;

/// pgmcc's option type codes.
pub mod opt {
    /// OPT_PGMCC_DATA (OpenPGM, Wireshark, tcpdump).
    pub const DATA: u8 = 0x12;
    /// OPT_PGMCC_FEEDBACK (OpenPGM, Wireshark, tcpdump).
    pub const FEEDBACK: u8 = 0x13;
    /// OPT_CONVOY_RXW_LEAD: the receiver's highest sequence number (on NAKs).
    pub const RXW_LEAD: u8 = 0x30;
    /// OPT_CONVOY_ELECTION: this NAK is a pgmcc election report, no repair wanted.
    pub const ELECTION: u8 = 0x31;
    /// OPT_CONVOY_ACKER_LEAVING: on an ACK, the acker is leaving.
    pub const ACKER_LEAVING: u8 = 0x32;
    /// OPT_CONVOY_START_UP: on ODATA, the source's start-up runs; echoes the lowest receive rate reported.
    pub const START_UP: u8 = 0x39;
    /// OPT_CONVOY_RX_RATE: on an ACK, the receiver's receive rate.
    pub const RX_RATE: u8 = 0x3A;
}

/// Field offsets within each option, from the option's first byte.
pub mod field {
    use crate::field::Field;
    /// OPT_PGMCC_DATA / OPT_PGMCC_FEEDBACK: timestamp (or its echo).
    pub const TSTAMP: Field = 4..8;
    /// OPT_PGMCC_DATA / OPT_PGMCC_FEEDBACK: start of the acker / reporter NLA.
    pub const NLA: usize = 8;
    /// OPT_PGMCC_FEEDBACK: loss rate (the NLA's reserved field).
    pub const LOSS_RATE: Field = 10..12;
    /// OPT_CONVOY_RXW_LEAD: the receiver's highest sequence number.
    pub const RXW_LEAD: Field = 4..8;
    /// OPT_CONVOY_START_UP / OPT_CONVOY_RX_RATE: a rate in packets per 1000 s.
    pub const RATE: Field = 4..8;
}

/// OPT_PGMCC_DATA (type 0x12, 16 bytes with IPv4, 28 with IPv6), sent by the source on ODATA and RDATA
/// (docs/wire-format.md §1.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PgmccData {
    /// Sender timestamp (opaque to receivers, echoed in feedback).
    pub tstamp: u32,
    /// The current acker's unicast address; `0.0.0.0` or `::` means "no acker": an election request (see
    /// [`PgmccData::is_election_request`]).
    pub acker: IpAddr,
}

impl PgmccData {
    /// True when the acker NLA is unspecified (`0.0.0.0` or `::`): the source asks receivers to elect an acker.
    pub fn is_election_request(&self) -> bool {
        self.acker.is_unspecified()
    }
}

/// OPT_PGMCC_FEEDBACK (type 0x13, 16 bytes with IPv4, 28 with IPv6), sent by receivers on ACKs (and NAKs)
/// (docs/wire-format.md §1.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PgmccFeedback {
    /// Echo of the last OPT_PGMCC_DATA timestamp, corrected by the receiver's holding delay.
    pub tstamp: u32,
    /// Loss rate, 0 = none … 65535 = 100% (option bytes 10–11).
    pub loss_rate: u16,
    /// The reporting receiver's unicast address.
    pub reporter: IpAddr,
}

/// pgmcc's options on one packet.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct PgmccOptions {
    /// 0x12 OPT_PGMCC_DATA (on ODATA).
    pub data: Option<PgmccData>,
    /// 0x13 OPT_PGMCC_FEEDBACK (on ACKs and NAKs).
    pub feedback: Option<PgmccFeedback>,
    /// 0x30 OPT_CONVOY_RXW_LEAD: the receiver's highest sequence number (on NAKs, next to OPT_PGMCC_FEEDBACK;
    /// paper §3.2 receiver report).
    pub rxw_lead: Option<u32>,
    /// 0x31 OPT_CONVOY_ELECTION: this NAK is an election report ("dummy NAK", draft §2.3.1); no repair is
    /// wanted.
    pub election: bool,
    /// 0x32 OPT_CONVOY_ACKER_LEAVING: on an ACK, the acker is leaving (draft §2.3.2).
    pub acker_leaving: bool,
    /// 0x39 OPT_CONVOY_START_UP: on ODATA while the source's start-up runs, the lowest receive rate reported so
    /// far in packets per 1000 s (0 = none yet).
    pub start_up: Option<u32>,
    /// 0x3A OPT_CONVOY_RX_RATE: on an ACK, the reporter's receive rate in packets per
    /// 1000 s.
    pub rx_rate: Option<u32>,
}

/// One decoded pgmcc option.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PgmccOption {
    /// OPT_PGMCC_DATA.
    Data(PgmccData),
    /// OPT_PGMCC_FEEDBACK.
    Feedback(PgmccFeedback),
    /// OPT_CONVOY_RXW_LEAD.
    RxwLead(u32),
    /// OPT_CONVOY_ELECTION.
    Election,
    /// OPT_CONVOY_ACKER_LEAVING.
    AckerLeaving,
    /// OPT_CONVOY_START_UP.
    StartUp(u32),
    /// OPT_CONVOY_RX_RATE.
    RxRate(u32),
}

/// Encoded length of OPT_CONVOY_START_UP.
const START_UP_LEN: usize = 8;

/// Encoded length of a PGMCC option carrying `addr`.
const fn nla_option_len(addr: &IpAddr) -> usize {
    field::NLA + nla::nla_len(addr)
}

/// The acker / reporter NLA of a PGMCC option; the option length must match the AFI.
fn decode_nla(raw: &SchemeOption<'_>) -> Result<IpAddr, ParseError> {
    raw.nla_at(field::NLA, "16 (IPv4 NLA) or 28 (IPv6 NLA)")
}

impl SchemeOptions for PgmccOptions {
    type Option = PgmccOption;

    option_list!(PgmccOption {
        value data: Data = opt::DATA, "OPT_PGMCC_DATA";
        value feedback: Feedback = opt::FEEDBACK, "OPT_PGMCC_FEEDBACK";
        value rxw_lead: RxwLead = opt::RXW_LEAD, "OPT_CONVOY_RXW_LEAD";
        flag election: Election = opt::ELECTION, "OPT_CONVOY_ELECTION";
        flag acker_leaving: AckerLeaving = opt::ACKER_LEAVING, "OPT_CONVOY_ACKER_LEAVING";
        value start_up: StartUp = opt::START_UP, "OPT_CONVOY_START_UP";
        value rx_rate: RxRate = opt::RX_RATE, "OPT_CONVOY_RX_RATE";
    });

    fn decode(raw: &SchemeOption<'_>) -> Result<PgmccOption, ParseError> {
        let b = raw.bytes;
        Ok(match raw.option_type() {
            opt::DATA => PgmccOption::Data(PgmccData {
                acker: decode_nla(raw)?,
                tstamp: raw.u32_at(field::TSTAMP),
            }),
            opt::FEEDBACK => PgmccOption::Feedback(PgmccFeedback {
                reporter: decode_nla(raw)?,
                tstamp: raw.u32_at(field::TSTAMP),
                loss_rate: be16(b, field::LOSS_RATE.start),
            }),
            opt::RXW_LEAD => {
                raw.exact_len(8, "8")?;
                PgmccOption::RxwLead(raw.u32_at(field::RXW_LEAD))
            }
            opt::ELECTION => {
                raw.exact_len(4, "4")?;
                PgmccOption::Election
            }
            opt::START_UP => {
                raw.exact_len(8, "8")?;
                PgmccOption::StartUp(raw.u32_at(field::RATE))
            }
            opt::RX_RATE => {
                raw.exact_len(8, "8")?;
                PgmccOption::RxRate(raw.u32_at(field::RATE))
            }
            _ => {
                raw.exact_len(4, "4")?;
                PgmccOption::AckerLeaving
            }
        })
    }

    fn wire_len(option: &PgmccOption) -> usize {
        match option {
            PgmccOption::Data(d) => nla_option_len(&d.acker),
            PgmccOption::Feedback(f) => nla_option_len(&f.reporter),
            PgmccOption::RxwLead(_) | PgmccOption::StartUp(_) | PgmccOption::RxRate(_) => 8,
            PgmccOption::Election | PgmccOption::AckerLeaving => 4,
        }
    }

    fn emit_value(option: &PgmccOption, bytes: &mut [u8]) {
        match option {
            PgmccOption::Data(d) => {
                put32(bytes, field::TSTAMP.start, d.tstamp);
                nla::emit(bytes, field::NLA, &d.acker);
            }
            PgmccOption::Feedback(f) => {
                put32(bytes, field::TSTAMP.start, f.tstamp);
                nla::emit(bytes, field::NLA, &f.reporter);
                // The loss rate sits in the NLA's reserved field.
                put16(bytes, field::LOSS_RATE.start, f.loss_rate);
            }
            PgmccOption::RxwLead(l) => put32(bytes, field::RXW_LEAD.start, *l),
            PgmccOption::StartUp(r) | PgmccOption::RxRate(r) => put32(bytes, field::RATE.start, *r),
            PgmccOption::Election | PgmccOption::AckerLeaving => {}
        }
    }

    /// OPT_PGMCC_DATA naming an acker, and OPT_CONVOY_START_UP while the start-up runs.
    fn data_len_max(ipv6: bool) -> usize {
        let nla = if ipv6 {
            nla::NLA_LEN_IPV6
        } else {
            nla::NLA_LEN_IPV4
        };
        field::NLA + nla + START_UP_LEN
    }

    /// Election NAKs are reports only (draft §2.3.1).
    fn report_only(&self) -> bool {
        self.election
    }

    /// OPT_PGMCC_FEEDBACK's loss rate.
    fn reported_loss(&self) -> Option<u16> {
        self.feedback.map(|f| f.loss_rate)
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

    fn options() -> impl Strategy<Value = PgmccOptions> {
        let data = proptest::option::of((any::<u32>(), addr()))
            .prop_map(|d| d.map(|(tstamp, acker)| PgmccData { tstamp, acker }));
        let feedback = proptest::option::of((any::<u32>(), any::<u16>(), addr())).prop_map(|f| {
            f.map(|(tstamp, loss_rate, reporter)| PgmccFeedback {
                tstamp,
                loss_rate,
                reporter,
            })
        });
        let lead = proptest::option::of(any::<u32>());
        let rates = (proptest::option::of(any::<u32>()), proptest::option::of(any::<u32>()));
        (data, feedback, lead, any::<bool>(), any::<bool>(), rates).prop_map(
            |(data, feedback, rxw_lead, election, acker_leaving, (start_up, rx_rate))| PgmccOptions {
                data,
                feedback,
                rxw_lead,
                election,
                acker_leaving,
                start_up,
                rx_rate,
            },
        )
    }

    fn packet(pgmcc: PgmccOptions, body: BodyRepr) -> PacketRepr<'static> {
        let mut options = OptionsRepr::default();
        options.cc.pgmcc = pgmcc;
        PacketRepr {
            source_port: 7500,
            dest_port: 1000,
            gsi: Gsi([1, 2, 3, 4, 5, 6]),
            body,
            options,
            payload: &[],
        }
    }

    proptest! {
        #[test]
        fn every_pgmcc_option_set_round_trips(o in options(), rx_max in any::<u32>(), bitmap in any::<u32>()) {
            let repr = packet(o, BodyRepr::Ack { rx_max, bitmap });
            let mut buf = [0u8; 512];
            let len = repr.emit(&mut buf).unwrap();
            prop_assert_eq!(len, repr.buffer_len());
            prop_assert_eq!(PacketRepr::parse(&buf[..len]).unwrap(), repr);
        }
    }

    #[test]
    fn draft_2_1_feedback_loss_rate_sits_in_the_nla_reserved_field() {
        let o = PgmccOptions {
            feedback: Some(PgmccFeedback {
                tstamp: 0x0102_0304,
                loss_rate: 0xABCD,
                reporter: "10.0.0.9".parse().unwrap(),
            }),
            ..PgmccOptions::default()
        };
        let repr = packet(
            o,
            BodyRepr::Ack {
                rx_max: 1,
                bitmap: 1,
            },
        );
        let mut buf = [0u8; 128];
        let len = repr.emit(&mut buf).unwrap();
        // ACK header 24 bytes, then OPT_LENGTH (4), then OPT_PGMCC_FEEDBACK with END.
        let o = &buf[28..len];
        assert_eq!(o[0], 0x80 | opt::FEEDBACK);
        assert_eq!(usize::from(o[1]), 16);
        assert_eq!(&o[4..8], &[1, 2, 3, 4]);
        assert_eq!(&o[8..10], &[0, 1], "AFI 1 = IPv4");
        assert_eq!(&o[10..12], &[0xAB, 0xCD]);
        assert_eq!(&o[12..16], &[10, 0, 0, 9]);
    }

    #[test]
    fn draft_2_3_1_election_naks_are_reports_only() {
        let mut o = PgmccOptions::default();
        assert!(!o.report_only());
        o.election = true;
        assert!(o.report_only());
    }
}
