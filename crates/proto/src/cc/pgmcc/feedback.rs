//! The feedback a pgmcc source reads from upstream packets: ACKs, NAKs and election NAKs with their receiver
//! reports (paper §3.2; draft §2.1.2–2.1.3, §2.3).

use convoy_wire::{BodyRepr, PacketRepr};
use std::net::IpAddr;

/// What kind of feedback packet reached the sender.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FeedbackKind {
    /// A PGMCC ACK (type 0x0D) with RX_MAX and the 32-bit bitmap, LSB = RX_MAX (draft §2.1.2).
    Ack {
        /// Highest data sequence number the receiver has seen.
        rx_max: u32,
        /// Receive status of RX_MAX−31 … RX_MAX, bit i = RX_MAX−i, 1 = received.
        bitmap: u32,
    },
    /// A NAK asking for repair of `sqn` (and possibly others).
    Nak {
        /// The NAK's first requested sequence number.
        sqn: u32,
    },
    /// A report-only NAK sent to elect an acker (pgmcc "dummy NAK", paper §3.6, draft §2.3.1).
    Election {
        /// The sequence number of the data packet that asked for the election.
        sqn: u32,
    },
}

/// A receiver report carried by feedback: OPT_PGMCC_FEEDBACK plus Convoy's OPT_CONVOY_RXW_LEAD (paper §3.2:
/// rx_id, rxw_lead, rx_loss; draft §2.1.2: timestamp echo and loss rate).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ReceiverReport {
    /// The reporting receiver's identity (its unicast NLA).
    pub reporter: IpAddr,
    /// Echoed data timestamp, corrected by the receiver's holding time (draft §2.5.1).
    pub tstamp_echo: u32,
    /// Loss rate, 0 = none, 65535 = 100% (draft §2.1.3).
    pub loss_rate: u16,
    /// Highest sequence number the receiver knows (paper §3.2 `rxw_lead`), when carried.
    pub rxw_lead: Option<u32>,
    /// OPT_CONVOY_RX_RATE: the receiver's receive rate during the source's start-up, packets per second
    /// (module `dispersion`).
    pub rx_rate: Option<f64>,
}

/// One feedback packet as the pgmcc sender reads it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Feedback {
    /// What arrived.
    pub kind: FeedbackKind,
    /// The address the datagram came from (identity fallback when no report is carried).
    pub from: IpAddr,
    /// The receiver report, when the packet carries OPT_PGMCC_FEEDBACK.
    pub report: Option<ReceiverReport>,
    /// The acker says it is leaving the session (draft §2.3.2).
    pub acker_leaving: bool,
}

impl Feedback {
    /// Read pgmcc's feedback from an upstream packet: an ACK, a NAK, or a NAK marked OPT_CONVOY_ELECTION.
    /// Other packets carry none.
    pub fn read(from: IpAddr, packet: &PacketRepr<'_>) -> Option<Feedback> {
        let pgmcc = &packet.options.cc.pgmcc;
        let kind = match packet.body {
            BodyRepr::Ack { rx_max, bitmap } => FeedbackKind::Ack { rx_max, bitmap },
            BodyRepr::Nak { sqn, .. } if pgmcc.election => FeedbackKind::Election { sqn },
            BodyRepr::Nak { sqn, .. } => FeedbackKind::Nak { sqn },
            _ => return None,
        };
        let report = pgmcc.feedback.map(|f| ReceiverReport {
            reporter: f.reporter,
            tstamp_echo: f.tstamp,
            loss_rate: f.loss_rate,
            rxw_lead: pgmcc.rxw_lead,
            rx_rate: pgmcc.rx_rate.and_then(super::dispersion::rate_from_wire),
        });
        Some(Feedback {
            kind,
            from,
            report,
            acker_leaving: pgmcc.acker_leaving,
        })
    }

    /// The identity of the receiver this feedback speaks for.
    pub fn receiver(&self) -> IpAddr {
        self.report.map(|r| r.reporter).unwrap_or(self.from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use convoy_wire::{Gsi, OptionsRepr, PgmccFeedback};

    fn upstream(body: BodyRepr, options: OptionsRepr) -> PacketRepr<'static> {
        PacketRepr {
            source_port: 7500,
            dest_port: 1000,
            gsi: Gsi([0; 6]),
            body,
            options,
            payload: &[],
        }
    }

    #[test]
    fn draft_2_3_1_an_election_nak_reads_as_election_with_its_report() {
        let me: IpAddr = "10.0.0.2".parse().unwrap();
        let mut options = OptionsRepr::default();
        options.cc.pgmcc.election = true;
        options.cc.pgmcc.rxw_lead = Some(9);
        options.cc.pgmcc.feedback = Some(PgmccFeedback {
            tstamp: 5,
            loss_rate: 7,
            reporter: me,
        });
        let nak = BodyRepr::Nak {
            sqn: 3,
            source_nla: me,
            group_nla: me,
        };
        let fb = Feedback::read("10.0.0.9".parse().unwrap(), &upstream(nak, options)).unwrap();
        assert_eq!(fb.kind, FeedbackKind::Election { sqn: 3 });
        assert_eq!(
            fb.receiver(),
            me,
            "the report names the receiver, not the datagram's source"
        );
        assert_eq!(fb.report.unwrap().rxw_lead, Some(9));
    }

    #[test]
    fn draft_2_1_2_acks_and_naks_are_feedback_and_nothing_else_is() {
        let from: IpAddr = "10.0.0.2".parse().unwrap();
        let ack = BodyRepr::Ack {
            rx_max: 4,
            bitmap: 1,
        };
        let fb = Feedback::read(from, &upstream(ack, OptionsRepr::default())).unwrap();
        assert_eq!(fb.receiver(), from);
        assert!(fb.report.is_none());
        assert!(Feedback::read(from, &upstream(BodyRepr::Spmr, OptionsRepr::default())).is_none());
    }
}
