//! PGM (RFC 3208) and PGMCC packets on the wire.
//!
//! Facts and captured bytes are in `docs/wire-format.md` (called "wire-format.md" below),
//! which reconciles RFC 3208, the pgmcc Internet-Draft, OpenPGM 5.3, Wireshark and tcpdump.
//! Where they disagree this crate follows what interoperates: OpenPGM and Wireshark.
//!
//! # Views and reprs
//!
//! As in smoltcp's `wire` module there are two levels:
//!
//! * **Views** borrow the bytes. [`Packet::new_checked`] validates a whole packet once (common
//!   header, type-specific header, option TLVs, TSDU length); afterwards no accessor can panic.
//!   [`Header`] views just the 16-byte common header, [`RawOptions`] walks option TLVs and
//!   [`Options`] yields typed [`PgmOption`]s. Field offsets live in [`field`], one module per
//!   packet type.
//! * **Reprs** are plain values: [`PacketRepr`] = ports + [`Gsi`] + [`BodyRepr`] (the
//!   type-specific header) + [`OptionsRepr`] + payload slice. [`PacketRepr::parse`] checks the
//!   checksum and builds a repr; [`PacketRepr::emit`] writes one (after
//!   [`PacketRepr::buffer_len`] tells how much room it needs). `parse(emit(x)) == x` for every
//!   `x` that `emit` accepts; [`PacketRepr::check`] tells in advance whether it does.
//!
//! ```
//! use convoy_wire::{BodyRepr, Gsi, OptionsRepr, Packet, PacketRepr, PgmccData};
//!
//! let mut options = OptionsRepr::default();
//! options.cc.pgmcc.data = Some(PgmccData { tstamp: 42, acker: "10.99.0.3".parse().unwrap() });
//! let repr = PacketRepr {
//!     source_port: 1093,
//!     dest_port: 7500,
//!     gsi: Gsi([0x65, 0xaa, 0xce, 0xce, 0xac, 0xc1]),
//!     body: BodyRepr::Odata { sqn: 7, trail: 0 },
//!     options,
//!     payload: b"hello",
//! };
//! let mut buf = [0u8; 1500];
//! let len = repr.emit(&mut buf)?;
//! assert_eq!(len, repr.buffer_len());
//! assert_eq!(PacketRepr::parse(&buf[..len])?, repr);
//!
//! let view = Packet::new_checked(&buf[..len])?;
//! assert_eq!(view.sqn(), Some(7));
//! assert_eq!(view.payload(), b"hello");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! All multi-byte fields are big-endian (network byte order). Offsets in errors are counted
//! from the first byte of the PGM header (the first byte of the UDP payload with UDP
//! encapsulation, wire-format.md §1.6).
//!
//! # Packets
//!
//! | code | type | fixed part (IPv4 NLAs) | RFC 3208 |
//! |---|---|---|---|
//! | 0x00 | SPM | 36 bytes | §8.1 |
//! | 0x01 | POLL | 44 bytes | §14.7.1 |
//! | 0x02 | POLR | 24 bytes | §14.7.2 |
//! | 0x04 | ODATA | 24 bytes + payload | §8.2 |
//! | 0x05 | RDATA | 24 bytes + payload | §8.2 |
//! | 0x08 | NAK | 36 bytes | §8.3 |
//! | 0x09 | NNAK | 36 bytes | §8.3 |
//! | 0x0A | NCF | 36 bytes | §8.3 |
//! | 0x0C | SPMR | 16 bytes | §13.6 |
//! | 0x0D | ACK (PGMCC) | 24 bytes | not in the RFC: OpenPGM and Wireshark (wire-format.md §1.2, §1.9 D1) |
//!
//! Every network-layer address (NLA) is `AFI u16 | reserved u16 | address`, AFI 1 = IPv4
//! (4 bytes) or 2 = IPv6 (16 bytes); an IPv6 NLA shifts the later fields by 12 bytes. Another
//! AFI is an error naming the field ([`nla`]). The version bits (byte 4, bits 7–6) must be 0;
//! the reserved bits 5–4 are tolerated. 0x0B, the ACK code of Rizzo's code and old tcpdump, is
//! rejected as unknown.
//!
//! Port orientation (wire-format.md §1.1): downstream packets (SPM, POLL, ODATA, RDATA, NCF)
//! carry the data-source port as source port; upstream packets (NAK, NNAK, SPMR, POLR, ACK)
//! carry the data-destination port as source port and the data-source port as destination port.
//! [`PacketRepr::tsi`] and [`Packet::tsi`] take this into account ([`PacketType::is_upstream`]).
//!
//! The header options byte uses the bit values of the implementations, not the literal RFC
//! (wire-format.md §1.9 D11): 0x01 OPT_PRESENT, 0x02 OPT_NETWORK, 0x40 OPT_VAR_PKTLEN, 0x80
//! OPT_PARITY ([`flags`]). On emission OPT_NETWORK is set exactly when a network-significant option is present
//! (OPT_NAK_LIST, OPT_PARITY_PRM, OPT_CURR_TGSIZE except on ODATA: [`OptionsRepr::is_network_significant`]);
//! on receipt it is not checked. OPT_PARITY and OPT_VAR_PKTLEN are the two options RFC 3208 §11.3 encodes
//! directly in this byte: they are [`ParityOptions::parity`] and [`ParityOptions::var_pktlen`], allowed where the
//! RFC has them (OPT_PARITY on ODATA and RDATA, a parity packet, and on NAK, NNAK and NCF, a parity NAK;
//! OPT_VAR_PKTLEN beside it on ODATA and RDATA) and refused elsewhere on parse and emit
//! ([`ParityOptions::flags_allowed`], [`ParseErrorKind::UnsupportedFlags`]). A parity packet's OPT_FRAGMENT is the
//! encoded option of §11.2 and is written with F (OP_ENCODED) set.
//!
//! The TSDU length must equal the bytes after the options exactly, and must be 0 except on
//! ODATA and RDATA (RFC 3208 §8: "Only data packet headers … may be followed … by application
//! data").
//!
//! # Checksum (RFC 3208 §8, wire-format.md §1.5)
//!
//! The Internet one's-complement checksum (RFC 1071) over the whole PGM packet (header,
//! type-specific part, options, payload) with the checksum field taken as zero, **without** a
//! pseudo-header. A computed 0 is transmitted as 0xFFFF. A received 0 means "no checksum" and
//! is accepted, except on ODATA and RDATA, where the checksum is mandatory and OpenPGM rejects
//! 0: so do we ([`ParseErrorKind::MissingChecksum`]). See [`checksum`].
//!
//! # Options (RFC 3208 §9, wire-format.md §1.3)
//!
//! Options follow the type-specific header when OPT_PRESENT is set. Each is a TLV: type byte
//! (0x80 = OPT_END, low 7 bits = type), total length byte, byte 2 (reserved/F/OPX), byte 3
//! (U bit and option-specific bits), value. Rules applied on receipt:
//!
//! * The first option must be OPT_LENGTH (type 0x00, length 4) whose u16 is the total length of
//!   all options including itself; the total must be ≥ 4 and fit in the packet.
//! * Every other option must have length ≥ 4 and end within that total. (Length ≥ 4 because the
//!   TLV header itself is 4 bytes; it also guarantees progress.)
//! * The option carrying OPT_END must end exactly at the total, and the option that reaches the
//!   total must carry OPT_END. OPT_END on OPT_LENGTH is ignored (OpenPGM never sets it, and
//!   OpenPGM, Wireshark and tcpdump all skip OPT_LENGTH before looking for OPT_END).
//! * At most 16 options, OPT_LENGTH included ([`MAX_OPTIONS`]).
//! * Byte 2 is ignored whatever its value (OpenPGM leaves it uninitialised: 0x78 and 0x88 have
//!   been seen). Byte 3 is ignored except by OPT_RST.
//! * Known options must have exactly their length; a known option appearing twice is an error
//!   ([`ParseErrorKind::DuplicateOption`]) rather than a silent choice between two values.
//! * Unknown options are skipped, and may repeat: the other RFC options (OPT_NAK_BO_IVL,
//!   OPT_NAK_BO_RNG, OPT_REDIRECT, OPT_NBR_UNREACH,
//!   OPT_PATH_NLA, OPT_CR, OPT_CRQST), OPT_INVALID (0x7F), Convoy's reserved codes and anything
//!   else.
//!
//! Known options ([`opt`] has the codes):
//!
//! | type | name | length | value | repr field |
//! |---|---|---|---|---|
//! | 0x00 | OPT_LENGTH | 4 | `[2]` u16 total | implied |
//! | 0x01 | OPT_FRAGMENT | 16 | `[4]` first SQN, `[8]` offset, `[12]` APDU length (§9.2; the RFC text says 12, its figure and every implementation 16) | `fragment` |
//! | 0x02 | OPT_NAK_LIST | 4+4N, N ≤ 62 | `[4…]` SQNs; network-significant | `nak_list` |
//! | 0x03 | OPT_JOIN | 8 | `[4]` minimum SQN | `join` |
//! | 0x08 | OPT_PARITY_PRM | 8 | `[3]` P 0x02 (pro-active), O 0x01 (on-demand), one at least; `[4]` transmission group size; network-significant (§11.8.1; OpenPGM swaps P and O, wire-format.md §1.9 D3) | `parity.params` |
//! | 0x09 | OPT_PARITY_GRP | 8 | `[4]` parity group number, not 0 (§11.8.2) | `parity.group` |
//! | 0x0A | OPT_CURR_TGSIZE | 8 | `[4]` actual transmission group size; network-significant except on ODATA (§11.8.3) | `parity.curr_tg_size` |
//! | 0x0D | OPT_SYN | 4 | – | `syn` |
//! | 0x0E | OPT_FIN | 4 | – | `fin` |
//! | 0x0F | OPT_RST | 4 | `[3]` N bit 0x40, error code 0x3F | `rst` (whole byte 3) |
//! | 0x33 | OPT_CONVOY_RECEIVER_STATUS | 16 | `[4]` u32 token, `[8]` u32 state, `[12]` u32 detail | `receiver_status` |
//! | 0x3B | OPT_CONVOY_NEEDS | 4+8N, 1 ≤ N ≤ 31 | `[4+8i]` u32 first block, `[8+8i]` u32 count | `needs` |
//! | 0x3C | OPT_CONVOY_AUTH | 44 | `[3]` 0x01 payload encrypted, high nibble the AEAD suite, `[4]` 16-byte sender identity, `[20]` u64 counter, `[28]` 16-byte AEAD tag | `auth` |
//! | 0x3E | OPT_CONVOY_LEAVE | 20 / 32 | `[4]` u32 the session's minimum rate (kbit/s), `[8]` u32 the receiver's credited rate (kbit/s), `[12]` the receiver's NLA (IPv4 / IPv6); on ODATA and SPMs | `leave` |
//! | 0x3D | OPT_CONVOY_PARITY_CODE | 4 | `[3]` the parity code, 1 = Convoy's Reed–Solomon over GF(2^16) ([`options::PARITY_CODE_RS16`]); on SPMs beside OPT_PARITY_PRM | `parity.code` |
//!
//! OPT_CONVOY_RECEIVER_STATUS (Convoy's own, see below) rides on an SPMR sent unicast to the
//! source: an application status report from a receiver (values application-defined; Convoy's
//! file transfer announces receivers and reports completion with it). OPT_CONVOY_NEEDS rides beside it:
//! the blocks of a transfer the receiver still lacks, so a resumed transfer sends only those.
//!
//! ## Congestion-control options
//!
//! Each congestion-control scheme's options live in one module of [`cc`] (their codes, field
//! offsets, decoding, emission, round-trip tests), registered in one line there; an
//! [`OptionsRepr`] carries them as `cc`, the view yields them as [`PgmOption::Cc`]. pgmcc's
//! ([`cc::pgmcc`]): 0x12 OPT_PGMCC_DATA and 0x13 OPT_PGMCC_FEEDBACK (OpenPGM, Wireshark and
//! tcpdump decode both; their length must match their NLA's AFI, 16 with IPv4, 28 with IPv6),
//! and Convoy's 0x30 OPT_CONVOY_RXW_LEAD, 0x31 OPT_CONVOY_ELECTION, 0x32
//! OPT_CONVOY_ACKER_LEAVING, 0x39 OPT_CONVOY_START_UP and 0x3A OPT_CONVOY_RX_RATE. TFMCC's ([`cc::tfmcc`]): 0x34 OPT_CONVOY_TFMCC_DATA and 0x35
//! OPT_CONVOY_TFMCC_FEEDBACK (RFC 4654 §2.2, Convoy's layouts).
//!
//! ## Convoy's own options
//!
//! Option types 0x30–0x3F are reserved for Convoy: 0x30–0x32 and 0x39–0x3A are pgmcc's (above), 0x33 is
//! OPT_CONVOY_RECEIVER_STATUS, 0x34–0x35 are TFMCC's ([`cc::tfmcc`]), 0x36–0x38 aimd's ([`cc::aimd`]), 0x3B is
//! OPT_CONVOY_NEEDS, 0x3C OPT_CONVOY_AUTH (a keyed session's tag: [`AuthOption`]), 0x3D
//! OPT_CONVOY_PARITY_CODE (the parity code, [`ParityOptions::code`]), 0x3E OPT_CONVOY_LEAVE (a receiver asked
//! to leave: [`LeaveOption`]); 0x3F is left for a later scheme's module. Other implementations skip them (Wireshark shows them as unknown). All are receiver-significant
//! (not network-significant), byte 2 is zero.
//!
//! ## Emission
//!
//! [`PacketRepr::emit`] writes OPT_LENGTH, then OPT_NAK_LIST (network-significant options come
//! first, §9.1), OPT_FRAGMENT, OPT_JOIN, OPT_SYN, OPT_FIN, OPT_RST, the schemes' options
//! (registration order, each scheme's by type code), OPT_CONVOY_RECEIVER_STATUS, OPT_CONVOY_NEEDS, OPT_CONVOY_LEAVE and OPT_CONVOY_AUTH; OPT_END on
//! the last one; bytes 2 and 3
//! zero except OPT_RST's byte 3. An empty `nak_list` writes no OPT_NAK_LIST; options all unset
//! write no options at all (not even OPT_LENGTH).
//!
//! # Errors
//!
//! [`ParseError`] names the packet type (when known), the field, its offset and what was wrong,
//! e.g. `NAK: OPT_NAK_LIST at offset 40: length 6 is not 4+4N with N ≤ 62` or
//! `ODATA: checksum at offset 6: computed 0x1234, packet has 0x5678`. [`EmitError`] names the
//! packet type and the repr field. No input makes a parser panic; `fuzz/` holds the
//! cargo-fuzz targets.

mod auth_slot;
mod body;
pub mod cc;
pub mod checksum;
mod error;
pub mod field;
mod header;
pub mod nla;
mod option_values;
pub mod options;
mod options_repr;
mod packet;
mod packet_type;
mod repr;
mod session_id;
pub mod summary;

pub use auth_slot::AuthSlot;
pub use body::BodyRepr;
pub use cc::pgmcc::{PgmccData, PgmccFeedback, PgmccOptions};
pub use cc::{CcOption, CcOptions, SchemeOptions};
pub use error::{EmitError, EmitErrorKind, ParseError, ParseErrorKind};
pub use field::{MAX_NAK_LIST, MAX_NEEDS, MAX_OPTIONS};
pub use header::{flags, Header};
pub use option_values::{
    AuthOption, BlockRange, FragmentOption, LeaveOption, ParityOptions, ParityParams,
    ReceiverStatus,
};
pub use options::{
    opt, NakList, NeedList, Options, PgmOption, RawOption, RawOptions, AUTH_ENCRYPTED,
    AUTH_SUITE_SHIFT, OPT_LENGTH_LEN, PARITY_CODE_RS16,
};
pub use options_repr::OptionsRepr;
pub use packet::Packet;
pub use packet_type::PacketType;
pub use repr::{DetachedRepr, PacketRepr};
pub use session_id::{Gsi, Tsi};
pub use summary::PacketSummary;
