//! TFMCC's options (RFC 4654 §2.2; layouts are the transport's to choose, these are Convoy's, in Convoy's range).
//!
//! | type | name | length | value | field of [`TfmccOptions`] |
//! |---|---|---|---|---|
//! | 0x34 | OPT_CONVOY_TFMCC_DATA | 24, or 36 / 48 with an echo (IPv4 / IPv6) | `[3]` flags (0x01 echo present, 0x02 the echoed receiver is the CLR), `[4]` u32 ts_i (µs), `[8]` f32 X_supp (bit/s), `[12]` u32 R_max (µs), `[16]` u16 fb_nr, `[18]` zero, `[20]` f32 X, the sending rate (bit/s); with an echo `[24]` u32 tr_r' (µs), `[28]` the receiver's NLA | `data` |
//! | 0x35 | OPT_CONVOY_TFMCC_FEEDBACK | 28 / 40 | `[3]` flags (0x01 have_RTT, 0x02 have_loss, 0x04 receiver_leave), `[4]` u32 tr_r (µs), `[8]` u32 ts_i' (µs), `[12]` f32 X_r (bit/s), `[16]` u16 fb_nr, `[18]` zero, `[20]` the reporter's NLA | `feedback` |
//!
//! The sender's fields of RFC 4654 §2.2.1 ride on every ODATA, with the current sending rate X beside them (the
//! TFMCC paper §2.5 biases the receivers' feedback timers by X_calc / X: "the receiver knows the sending rate"); the receiver's report (§2.2.2) rides on an ACK
//! (type 0x0D) sent unicast to the source, its RX_MAX the highest sequence number received and its bitmap the
//! receive status of the 32 before (as pgmcc's). Rates are IEEE-754 binary32 in **bit/s** (RFC 4654 counts rates
//! in bit/s; X_supp's and X_r's RFC encodings are 12-bit floats with < 1 % error, binary32 is exact enough and
//! cannot be mistaken for bytes), timestamps are microseconds modulo 2^32 (differences are taken modulo 2^32:
//! unambiguous for round-trip times under 71 minutes).

use super::{SchemeOption, SchemeOptions};
use crate::field::{be16, be32, put16, put32, Field};
use crate::{nla, ParseError};
use std::net::IpAddr;

/// TFMCC's option type codes.
pub mod opt {
    /// OPT_CONVOY_TFMCC_DATA: the sender's fields (RFC 4654 §2.2.1), on ODATA.
    pub const DATA: u8 = 0x34;
    /// OPT_CONVOY_TFMCC_FEEDBACK: a receiver's report (RFC 4654 §2.2.2), on an ACK.
    pub const FEEDBACK: u8 = 0x35;
}

/// Field offsets within each option, from the option's first byte.
pub mod field {
    use crate::field::Field;
    /// Both options: flag bits.
    pub const FLAGS: usize = 3;
    /// DATA: ts_i, the send time (µs). FEEDBACK: tr_r, the receiver's time (µs).
    pub const TIME: Field = 4..8;
    /// DATA: X_supp (f32 bit/s). FEEDBACK: ts_i' (µs), the echoed send time plus the receiver's hold time.
    pub const SECOND: Field = 8..12;
    /// DATA: R_max (µs). FEEDBACK: X_r (f32 bit/s).
    pub const THIRD: Field = 12..16;
    /// Both: the feedback round fb_nr (or its echo).
    pub const FB_NR: Field = 16..18;
    /// FEEDBACK: start of the reporter's NLA.
    pub const TAIL: usize = 20;
    /// DATA: X, the sender's current rate (f32 bit/s).
    pub const DATA_RATE: Field = 20..24;
    /// DATA with an echo: tr_r' (µs).
    pub const ECHO_TR: usize = 24;
    /// DATA with an echo: start of the echoed receiver's NLA.
    pub const ECHO_NLA: usize = 28;
    /// Length of DATA without an echo.
    pub const DATA_LEN: usize = 24;
}

/// DATA flag: an echo follows.
pub const DATA_ECHO: u8 = 0x01;
/// DATA flag: the echoed receiver is the current limiting receiver (CLR).
pub const DATA_IS_CLR: u8 = 0x02;
/// FEEDBACK flag: the receiver has an RTT measurement (have_RTT).
pub const FB_HAVE_RTT: u8 = 0x01;
/// FEEDBACK flag: the receiver has seen a loss event (have_loss).
pub const FB_HAVE_LOSS: u8 = 0x02;
/// FEEDBACK flag: the receiver is leaving (receiver_leave).
pub const FB_LEAVING: u8 = 0x04;

/// A rate in bit/s as the options carry it: IEEE-754 binary32. Equal (and hashed) bit for bit, so a repr holding
/// one stays `Eq`.
#[derive(Clone, Copy, Debug)]
pub struct WireRate(pub f32);

impl WireRate {
    /// The rate of `bps` bit/s (rounded to binary32; negative and NaN rates become 0, rates beyond binary32
    /// become its largest value).
    pub fn from_bps(bps: f64) -> WireRate {
        if bps.is_nan() || bps <= 0.0 {
            WireRate(0.0)
        } else {
            WireRate(bps.min(f64::from(f32::MAX)) as f32)
        }
    }

    /// The rate in bit/s.
    pub fn bps(self) -> f64 {
        f64::from(self.0)
    }

    /// The binary32 at field `f` of an option's bytes (big-endian).
    pub(crate) fn read(b: &[u8], f: Field) -> WireRate {
        WireRate(f32::from_bits(be32(b, f.start)))
    }
}

impl PartialEq for WireRate {
    fn eq(&self, other: &Self) -> bool {
        self.0.to_bits() == other.0.to_bits()
    }
}

impl Eq for WireRate {}

impl std::hash::Hash for WireRate {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.0.to_bits().hash(state);
    }
}

/// The timestamp echo of RFC 4654 §2.2.1 (r, tr_r', is_CLR).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TfmccEcho {
    /// The receiver whose timestamp is echoed.
    pub receiver: IpAddr,
    /// tr_r': its last report's tr_r plus the sender's hold time (µs).
    pub tr_echo: u32,
    /// Whether that receiver is the CLR.
    pub is_clr: bool,
}

/// OPT_CONVOY_TFMCC_DATA: the sender's fields on one data packet (RFC 4654 §2.2.1; the sequence number is the
/// packet's own).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TfmccData {
    /// ts_i: the packet's actual send time (µs).
    pub ts: u32,
    /// X_supp: the suppression rate, bit/s (§3.4).
    pub x_supp: WireRate,
    /// R_max: the maximum RTT (µs).
    pub r_max_us: u32,
    /// fb_nr: the feedback round.
    pub fb_nr: u16,
    /// X: the sender's current rate, bit/s (the TFMCC paper §2.5's bias of the feedback timers needs it).
    pub x: WireRate,
    /// The echo, when the sender has one to send.
    pub echo: Option<TfmccEcho>,
}

/// OPT_CONVOY_TFMCC_FEEDBACK: one receiver report (RFC 4654 §2.2.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TfmccFeedback {
    /// r: the reporting receiver.
    pub reporter: IpAddr,
    /// have_RTT.
    pub have_rtt: bool,
    /// have_loss.
    pub have_loss: bool,
    /// receiver_leave.
    pub leaving: bool,
    /// tr_r: the receiver's clock when sending (µs).
    pub tr: u32,
    /// ts_i': the last ts_i plus the receiver's hold time (µs).
    pub ts_echo: u32,
    /// X_r: the rate the receiver asks for, bit/s.
    pub x: WireRate,
    /// fb_nr of the round the report answers.
    pub fb_nr: u16,
}

/// TFMCC's options on one packet.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct TfmccOptions {
    /// 0x34 OPT_CONVOY_TFMCC_DATA (on ODATA).
    pub data: Option<TfmccData>,
    /// 0x35 OPT_CONVOY_TFMCC_FEEDBACK (on ACKs).
    pub feedback: Option<TfmccFeedback>,
}

/// One decoded TFMCC option.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TfmccOption {
    /// OPT_CONVOY_TFMCC_DATA.
    Data(TfmccData),
    /// OPT_CONVOY_TFMCC_FEEDBACK.
    Feedback(TfmccFeedback),
}

fn decode_data(raw: &SchemeOption<'_>) -> Result<TfmccData, ParseError> {
    const EXPECTED: &str = "24, or 36 / 48 with an echo";
    let b = raw.bytes;
    let flags = b.get(field::FLAGS).copied().unwrap_or(0);
    let echo = if flags & DATA_ECHO != 0 {
        Some(TfmccEcho {
            receiver: raw.nla_at(field::ECHO_NLA, EXPECTED)?,
            tr_echo: be32(b, field::ECHO_TR),
            is_clr: flags & DATA_IS_CLR != 0,
        })
    } else {
        raw.exact_len(field::DATA_LEN, EXPECTED)?;
        None
    };
    Ok(TfmccData {
        ts: raw.u32_at(field::TIME),
        x_supp: WireRate::read(b, field::SECOND),
        r_max_us: raw.u32_at(field::THIRD),
        fb_nr: be16(b, field::FB_NR.start),
        x: WireRate::read(b, field::DATA_RATE),
        echo,
    })
}

fn decode_feedback(raw: &SchemeOption<'_>) -> Result<TfmccFeedback, ParseError> {
    let b = raw.bytes;
    let flags = b.get(field::FLAGS).copied().unwrap_or(0);
    Ok(TfmccFeedback {
        reporter: raw.nla_at(field::TAIL, "28 (IPv4 NLA) or 40 (IPv6 NLA)")?,
        have_rtt: flags & FB_HAVE_RTT != 0,
        have_loss: flags & FB_HAVE_LOSS != 0,
        leaving: flags & FB_LEAVING != 0,
        tr: raw.u32_at(field::TIME),
        ts_echo: raw.u32_at(field::SECOND),
        x: WireRate::read(b, field::THIRD),
        fb_nr: be16(b, field::FB_NR.start),
    })
}

impl SchemeOptions for TfmccOptions {
    type Option = TfmccOption;

    option_list!(TfmccOption {
        value data: Data = opt::DATA, "OPT_CONVOY_TFMCC_DATA";
        value feedback: Feedback = opt::FEEDBACK, "OPT_CONVOY_TFMCC_FEEDBACK";
    });

    fn decode(raw: &SchemeOption<'_>) -> Result<TfmccOption, ParseError> {
        if raw.option_type() == opt::DATA {
            decode_data(raw).map(TfmccOption::Data)
        } else {
            decode_feedback(raw).map(TfmccOption::Feedback)
        }
    }

    fn wire_len(option: &TfmccOption) -> usize {
        match option {
            TfmccOption::Data(d) => {
                field::DATA_LEN + d.echo.map_or(0, |e| 4 + nla::nla_len(&e.receiver))
            }
            TfmccOption::Feedback(f) => field::TAIL + nla::nla_len(&f.reporter),
        }
    }

    fn emit_value(option: &TfmccOption, bytes: &mut [u8]) {
        match option {
            TfmccOption::Data(d) => {
                let mut flags = 0;
                put32(bytes, field::TIME.start, d.ts);
                put32(bytes, field::SECOND.start, d.x_supp.0.to_bits());
                put32(bytes, field::THIRD.start, d.r_max_us);
                put16(bytes, field::FB_NR.start, d.fb_nr);
                put32(bytes, field::DATA_RATE.start, d.x.0.to_bits());
                if let Some(e) = d.echo {
                    flags |= DATA_ECHO;
                    if e.is_clr {
                        flags |= DATA_IS_CLR;
                    }
                    put32(bytes, field::ECHO_TR, e.tr_echo);
                    nla::emit(bytes, field::ECHO_NLA, &e.receiver);
                }
                bytes[field::FLAGS] = flags;
            }
            TfmccOption::Feedback(f) => {
                let flags = [
                    (f.have_rtt, FB_HAVE_RTT),
                    (f.have_loss, FB_HAVE_LOSS),
                    (f.leaving, FB_LEAVING),
                ]
                .iter()
                .filter(|(set, _)| *set)
                .fold(0, |a, (_, bit)| a | bit);
                bytes[field::FLAGS] = flags;
                put32(bytes, field::TIME.start, f.tr);
                put32(bytes, field::SECOND.start, f.ts_echo);
                put32(bytes, field::THIRD.start, f.x.0.to_bits());
                put16(bytes, field::FB_NR.start, f.fb_nr);
                nla::emit(bytes, field::TAIL, &f.reporter);
            }
        }
    }

    /// OPT_CONVOY_TFMCC_DATA with an echo of an IPv6 or IPv4 receiver.
    fn data_len_max(ipv6: bool) -> usize {
        field::ECHO_NLA
            + if ipv6 {
                nla::NLA_LEN_IPV6
            } else {
                nla::NLA_LEN_IPV4
            }
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

    fn options() -> impl Strategy<Value = TfmccOptions> {
        let echo = proptest::option::of((addr(), any::<u32>(), any::<bool>())).prop_map(|e| {
            e.map(|(receiver, tr_echo, is_clr)| TfmccEcho {
                receiver,
                tr_echo,
                is_clr,
            })
        });
        let data = proptest::option::of((any::<u32>(), rate(), any::<u32>(), any::<u16>(), rate(), echo)).prop_map(|d| {
            d.map(|(ts, x_supp, r_max_us, fb_nr, x, echo)| TfmccData {
                ts,
                x_supp,
                r_max_us,
                fb_nr,
                x,
                echo,
            })
        });
        let feedback = proptest::option::of((
            addr(),
            (any::<bool>(), any::<bool>(), any::<bool>()),
            (any::<u32>(), any::<u32>(), rate(), any::<u16>()),
        ))
        .prop_map(|f| {
            f.map(|(reporter, (have_rtt, have_loss, leaving), (tr, ts_echo, x, fb_nr))| TfmccFeedback {
                reporter,
                have_rtt,
                have_loss,
                leaving,
                tr,
                ts_echo,
                x,
                fb_nr,
            })
        });
        (data, feedback).prop_map(|(data, feedback)| TfmccOptions { data, feedback })
    }

    fn packet(tfmcc: TfmccOptions) -> PacketRepr<'static> {
        let mut options = OptionsRepr::default();
        options.cc.tfmcc = tfmcc;
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
        fn every_tfmcc_option_set_round_trips(o in options()) {
            let repr = packet(o);
            let mut buf = [0u8; 512];
            let len = repr.emit(&mut buf).unwrap();
            prop_assert_eq!(len, repr.buffer_len());
            prop_assert_eq!(PacketRepr::parse(&buf[..len]).unwrap(), repr);
        }
    }

    #[test]
    fn rfc4654_2_2_2_feedback_layout_and_rates_in_bits_per_second() {
        let f = TfmccFeedback {
            reporter: "10.0.0.9".parse().unwrap(),
            have_rtt: true,
            have_loss: false,
            leaving: true,
            tr: 0x0102_0304,
            ts_echo: 0x0506_0708,
            x: WireRate::from_bps(2e6),
            fb_nr: 0xABCD,
        };
        let repr = packet(TfmccOptions {
            data: None,
            feedback: Some(f),
        });
        let mut buf = [0u8; 128];
        let len = repr.emit(&mut buf).unwrap();
        // ACK header 24 bytes, OPT_LENGTH 4, then the feedback option with END.
        let o = &buf[28..len];
        assert_eq!(o[0], 0x80 | opt::FEEDBACK);
        assert_eq!(usize::from(o[1]), 28);
        assert_eq!(o[3], FB_HAVE_RTT | FB_LEAVING);
        assert_eq!(&o[4..8], &[1, 2, 3, 4]);
        assert_eq!(&o[8..12], &[5, 6, 7, 8]);
        assert_eq!(f32::from_bits(u32::from_be_bytes([o[12], o[13], o[14], o[15]])), 2e6, "bit/s, not bytes");
        assert_eq!(&o[16..18], &[0xAB, 0xCD]);
        assert_eq!(&o[20..22], &[0, 1], "AFI 1 = IPv4");
        assert_eq!(&o[24..28], &[10, 0, 0, 9]);
    }

    #[test]
    fn rfc4654_2_2_1_data_without_an_echo_is_twenty_four_bytes_and_a_wrong_length_is_named() {
        let d = TfmccData {
            ts: 1,
            x_supp: WireRate(f32::MAX),
            r_max_us: 500_000,
            fb_nr: 3,
            x: WireRate(1.5e6),
            echo: None,
        };
        let repr = packet(TfmccOptions {
            data: Some(d),
            feedback: None,
        });
        let mut buf = [0u8; 128];
        let len = repr.emit(&mut buf).unwrap();
        assert_eq!(usize::from(buf[29]), 24);
        assert_eq!(f32::from_bits(u32::from_be_bytes([buf[48], buf[49], buf[50], buf[51]])), 1.5e6, "X at [20], bit/s");
        // Claim an echo without room for it: the error names the option and its length.
        buf[31] = DATA_ECHO;
        crate::checksum::fill(&mut buf[..len]);
        let e = PacketRepr::parse(&buf[..len]).unwrap_err().to_string();
        assert!(e.contains("OPT_CONVOY_TFMCC_DATA"), "{e}");
    }
}
