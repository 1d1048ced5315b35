//! APDU fragments (RFC 3208 §9.2, OPT_FRAGMENT) and the errors raised by data that does not fit together.

use std::error::Error;
use std::fmt;

use crate::seq;

/// The contents of OPT_FRAGMENT (RFC 3208 §9.2.1, §9.2.4) on an ODATA or RDATA packet.
///
/// The fragments of one APDU occupy consecutive sequence numbers starting at `first_sqn`, in the order of their
/// offsets (§9.2.2). A packet without OPT_FRAGMENT carries a whole APDU.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Fragment {
    /// Sequence number of the packet holding the APDU's first fragment (offset 0).
    pub first_sqn: u32,
    /// Offset of this fragment's first byte in the APDU (OPT_FRAG_OFF).
    pub offset: u32,
    /// Total length of the APDU in bytes (OPT_FRAG_LEN).
    pub apdu_len: u32,
}

impl From<convoy_wire::FragmentOption> for Fragment {
    fn from(o: convoy_wire::FragmentOption) -> Self {
        Fragment {
            first_sqn: o.first_sqn,
            offset: o.offset,
            apdu_len: o.apdu_len,
        }
    }
}

/// A field of a data packet that [`RxwError`] can name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FragmentField {
    /// OPT_FRAGMENT first sequence number (a packet without OPT_FRAGMENT counts as its own first).
    FirstSqn,
    /// OPT_FRAGMENT offset.
    Offset,
    /// OPT_FRAGMENT APDU length (a packet without OPT_FRAGMENT: its payload length).
    ApduLen,
    /// Where the fragment ends: offset + payload length.
    End,
}

impl fmt::Display for FragmentField {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            FragmentField::FirstSqn => "first sequence number",
            FragmentField::Offset => "fragment offset",
            FragmentField::ApduLen => "APDU length",
            FragmentField::End => "fragment end (offset + payload length)",
        })
    }
}

/// What was wrong with a data packet (see [`RxwError`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RxwErrorKind {
    /// A packet without OPT_FRAGMENT whose payload exceeds `RxwConfig::max_apdu_len`.
    PayloadTooLong {
        /// Payload length.
        len: usize,
        /// The configured maximum.
        max: u32,
    },
    /// OPT_FRAGMENT announces an APDU longer than `RxwConfig::max_apdu_len`.
    ApduTooLong {
        /// OPT_FRAG_LEN.
        apdu_len: u32,
        /// The configured maximum.
        max: u32,
    },
    /// offset + payload length exceeds the APDU length (§9.2.2).
    FragmentBeyondApdu {
        /// OPT_FRAG_OFF.
        offset: u32,
        /// Payload length.
        len: usize,
        /// OPT_FRAG_LEN.
        apdu_len: u32,
    },
    /// A fragment without payload of a non-empty APDU.
    EmptyFragment {
        /// OPT_FRAG_LEN.
        apdu_len: u32,
    },
    /// The first sequence number lies after the packet's own, or further back than the window spans.
    FirstSqnOutOfRange {
        /// OPT_FRAGMENT first sequence number.
        first_sqn: u32,
        /// `RxwConfig::max_packets`.
        max_packets: u32,
    },
    /// The offset does not fit the position: the first fragment has offset 0 and no other does (§9.2.3), and
    /// a fragment `k` packets after the first has offset at least `k` (every fragment carries a byte).
    OffsetOutOfPlace {
        /// OPT_FRAGMENT first sequence number.
        first_sqn: u32,
        /// OPT_FRAG_OFF.
        offset: u32,
    },
    /// The packet at `first_sqn` has already been received and does not begin a fragmented APDU.
    NotFragmentStart {
        /// OPT_FRAGMENT first sequence number.
        first_sqn: u32,
    },
    /// Disagrees with the already-received packet `other_sqn`: `field` of this packet should be `expected`
    /// according to that packet, but is `found`.
    Inconsistent {
        /// The received packet this one contradicts.
        other_sqn: u32,
        /// The field of this packet at fault.
        field: FragmentField,
        /// The value `other_sqn` implies.
        expected: u32,
        /// The value this packet carries.
        found: u32,
    },
}

/// A data packet the receive window refused. It was not stored and changed nothing but
/// [`RxwStats::errors`](super::RxwStats::errors).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RxwError {
    /// Sequence number of the refused packet.
    pub sqn: u32,
    /// What was wrong.
    pub kind: RxwErrorKind,
}

impl fmt::Display for RxwError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "data sqn {}: ", self.sqn)?;
        match self.kind {
            RxwErrorKind::PayloadTooLong { len, max } => {
                write!(f, "payload length {len} exceeds the maximum APDU length {max}")
            }
            RxwErrorKind::ApduTooLong { apdu_len, max } => {
                write!(f, "OPT_FRAGMENT APDU length {apdu_len} exceeds the maximum {max}")
            }
            RxwErrorKind::FragmentBeyondApdu { offset, len, apdu_len } => write!(
                f,
                "OPT_FRAGMENT offset {offset} + payload length {len} exceeds APDU length {apdu_len}"
            ),
            RxwErrorKind::EmptyFragment { apdu_len } => {
                write!(f, "empty fragment of an APDU of length {apdu_len}")
            }
            RxwErrorKind::FirstSqnOutOfRange { first_sqn, max_packets } => write!(
                f,
                "OPT_FRAGMENT first sequence number {first_sqn} is after this packet or more than {max_packets} \
                 packets before it"
            ),
            RxwErrorKind::OffsetOutOfPlace { first_sqn, offset } => write!(
                f,
                "OPT_FRAGMENT offset {offset} does not fit the packet's position in the APDU starting at {first_sqn}"
            ),
            RxwErrorKind::NotFragmentStart { first_sqn } => write!(
                f,
                "OPT_FRAGMENT first sequence number {first_sqn} names a received packet that does not start a \
                 fragmented APDU"
            ),
            RxwErrorKind::Inconsistent { other_sqn, field, expected, found } => write!(
                f,
                "{field} is {found} but received sqn {other_sqn} implies {expected}"
            ),
        }
    }
}

impl Error for RxwError {}

/// The shape of one received packet, as needed by the consistency checks. A packet without OPT_FRAGMENT is a
/// one-piece APDU starting and ending at itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Piece {
    pub sqn: u32,
    pub fragmented: bool,
    pub first_sqn: u32,
    pub offset: u32,
    pub end: u32,
    pub apdu_len: u32,
}

impl Piece {
    /// The piece of packet `sqn` (payload length `len`, already validated to fit in `u32`).
    pub fn new(sqn: u32, fragment: Option<Fragment>, len: u32) -> Self {
        match fragment {
            None => Piece {
                sqn,
                fragmented: false,
                first_sqn: sqn,
                offset: 0,
                end: len,
                apdu_len: len,
            },
            Some(f) => Piece {
                sqn,
                fragmented: true,
                first_sqn: f.first_sqn,
                offset: f.offset,
                end: f.offset + len,
                apdu_len: f.apdu_len,
            },
        }
    }

    /// Whether this packet continues an APDU begun at an earlier sequence number.
    pub fn is_continuation(&self) -> bool {
        self.first_sqn != self.sqn
    }

    /// Whether this packet completes its APDU.
    pub fn ends_apdu(&self) -> bool {
        self.end == self.apdu_len
    }
}

/// Checks a packet on its own (§9.2.2, §9.2.3 and the configured limits) and returns its [`Piece`].
pub(super) fn validate(
    sqn: u32,
    fragment: Option<Fragment>,
    payload_len: usize,
    max_apdu_len: u32,
    max_packets: u32,
) -> Result<Piece, RxwError> {
    let err = |kind| Err(RxwError { sqn, kind });
    let Some(f) = fragment else {
        return match u32::try_from(payload_len) {
            Ok(len) if len <= max_apdu_len => Ok(Piece::new(sqn, None, len)),
            _ => err(RxwErrorKind::PayloadTooLong {
                len: payload_len,
                max: max_apdu_len,
            }),
        };
    };
    if f.apdu_len > max_apdu_len {
        return err(RxwErrorKind::ApduTooLong {
            apdu_len: f.apdu_len,
            max: max_apdu_len,
        });
    }
    let len = match u32::try_from(payload_len) {
        Ok(len) if u64::from(f.offset) + u64::from(len) <= u64::from(f.apdu_len) => len,
        _ => {
            return err(RxwErrorKind::FragmentBeyondApdu {
                offset: f.offset,
                len: payload_len,
                apdu_len: f.apdu_len,
            })
        }
    };
    if len == 0 && f.apdu_len > 0 {
        return err(RxwErrorKind::EmptyFragment {
            apdu_len: f.apdu_len,
        });
    }
    let back = seq::diff(sqn, f.first_sqn);
    if back < 0 || back >= i64::from(max_packets.max(1)) {
        return err(RxwErrorKind::FirstSqnOutOfRange {
            first_sqn: f.first_sqn,
            max_packets,
        });
    }
    if (back == 0) != (f.offset == 0) || i64::from(f.offset) < back {
        return err(RxwErrorKind::OffsetOutOfPlace {
            first_sqn: f.first_sqn,
            offset: f.offset,
        });
    }
    Ok(Piece::new(sqn, Some(f), len))
}

/// Checks the new packet `this` against its received neighbour `other` (one sequence number before or after
/// it): consecutive pieces of one APDU must agree on first sequence number and APDU length and abut exactly,
/// and a packet that starts an APDU must follow one that ends an APDU (§9.2.2, §9.2.3).
pub(super) fn check_neighbour(this: &Piece, other: &Piece) -> Result<(), RxwError> {
    let this_is_prev = this.sqn.wrapping_add(1) == other.sqn;
    let (prev, next) = if this_is_prev {
        (this, other)
    } else {
        (other, this)
    };
    let inconsistent = |field, expected, found| {
        Err(RxwError {
            sqn: this.sqn,
            kind: RxwErrorKind::Inconsistent {
                other_sqn: other.sqn,
                field,
                expected,
                found,
            },
        })
    };
    if next.is_continuation() {
        if !prev.fragmented || prev.first_sqn != next.first_sqn {
            return if this_is_prev {
                inconsistent(FragmentField::FirstSqn, next.first_sqn, this.first_sqn)
            } else {
                let expected = if prev.fragmented {
                    prev.first_sqn
                } else {
                    next.sqn
                };
                inconsistent(FragmentField::FirstSqn, expected, this.first_sqn)
            };
        }
        if prev.apdu_len != next.apdu_len {
            return inconsistent(FragmentField::ApduLen, other.apdu_len, this.apdu_len);
        }
        if prev.end != next.offset {
            return if this_is_prev {
                inconsistent(FragmentField::End, next.offset, this.end)
            } else {
                inconsistent(FragmentField::Offset, prev.end, this.offset)
            };
        }
    } else if !prev.ends_apdu() {
        return if this_is_prev {
            inconsistent(FragmentField::End, this.apdu_len, this.end)
        } else {
            inconsistent(FragmentField::FirstSqn, prev.first_sqn, this.first_sqn)
        };
    }
    Ok(())
}

/// Checks a continuation fragment against the received packet at its `first_sqn`.
pub(super) fn check_first(this: &Piece, first: &Piece) -> Result<(), RxwError> {
    if !first.fragmented || first.is_continuation() {
        return Err(RxwError {
            sqn: this.sqn,
            kind: RxwErrorKind::NotFragmentStart {
                first_sqn: this.first_sqn,
            },
        });
    }
    if first.apdu_len != this.apdu_len {
        return Err(RxwError {
            sqn: this.sqn,
            kind: RxwErrorKind::Inconsistent {
                other_sqn: first.sqn,
                field: FragmentField::ApduLen,
                expected: first.apdu_len,
                found: this.apdu_len,
            },
        });
    }
    Ok(())
}
