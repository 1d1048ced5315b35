//! Congestion-control options: one module per scheme, registered once in the `schemes!` line at the end of
//! this file.
//!
//! A scheme's module defines its options as one value type implementing [`SchemeOptions`] (what is set on a
//! packet, how each option is decoded, how long it is and how its value is written) with the option type codes
//! it owns and their field offsets. The registration line adds the scheme as a field of [`CcOptions`] (carried
//! by every [`crate::OptionsRepr`] as `cc`) and as a variant of [`CcOption`] (what the typed view iterator,
//! [`crate::Options`], yields for it). Nothing else in the crate names a scheme: option walking, duplicate
//! detection, emission order and lengths go through the registry.
//!
//! Emission order: the schemes in registration order, each scheme's options in the order its
//! [`SchemeOptions::iter`] gives (type-code order by convention). Type codes must not overlap between schemes
//! (checked by a test below) nor with RFC 3208's or Convoy's session options ([`crate::opt`]).

use crate::{nla, PacketType, ParseError, ParseErrorKind};
use std::fmt::Debug;
use std::hash::Hash;
use std::net::IpAddr;

/// One option of a scheme's type, as the option walk found it (the TLV structure already checked): its bytes
/// and where it is, for errors that name the packet, the option and its offset.
#[derive(Clone, Copy, Debug)]
pub struct SchemeOption<'a> {
    /// The whole option, TLV header included.
    pub bytes: &'a [u8],
    /// Its offset from the start of the packet.
    pub offset: usize,
    /// The packet's type, when known.
    pub packet_type: Option<PacketType>,
    /// The option's name (from the scheme's [`SchemeOptions::TYPES`]).
    pub name: &'static str,
}

impl SchemeOption<'_> {
    /// The 7-bit option type.
    pub fn option_type(&self) -> u8 {
        self.bytes.first().map_or(0, |b| b & 0x7F)
    }

    /// The big-endian u32 at field `f` of the option (0 where the option is shorter: decoders check the length
    /// first).
    pub fn u32_at(&self, f: crate::field::Field) -> u32 {
        crate::field::be32(self.bytes, f.start)
    }

    /// The option's length byte.
    pub fn length(&self) -> usize {
        self.bytes.get(1).map_or(0, |b| usize::from(*b))
    }

    /// An error about this option.
    pub fn error(&self, kind: ParseErrorKind) -> ParseError {
        ParseError::new(self.packet_type, self.name, self.offset, kind)
    }

    /// The NLA at `offset` of the option, which must end the option exactly; `expected` names the valid lengths
    /// in the error (a truncated NLA reads as a wrong option length, an unknown AFI as itself).
    pub fn nla_at(&self, offset: usize, expected: &'static str) -> Result<IpAddr, ParseError> {
        let bad_length = || {
            self.error(ParseErrorKind::OptionLength {
                len: self.length(),
                expected,
            })
        };
        if self.length() < offset + nla::NLA_LEN_IPV4 {
            return Err(bad_length());
        }
        let (addr, end) =
            nla::parse(self.bytes, offset, self.packet_type, self.name).map_err(|e| {
                ParseError {
                    offset: self.offset + offset,
                    kind: match e.kind {
                        ParseErrorKind::Truncated { .. } => ParseErrorKind::OptionLength {
                            len: self.length(),
                            expected,
                        },
                        k => k,
                    },
                    ..e
                }
            })?;
        if end != self.length() {
            return Err(bad_length());
        }
        Ok(addr)
    }

    /// Fail unless the option is exactly `len` bytes long (`expected` says so in the error).
    pub fn exact_len(&self, len: usize, expected: &'static str) -> Result<(), ParseError> {
        if self.length() == len {
            Ok(())
        } else {
            Err(self.error(ParseErrorKind::OptionLength {
                len: self.length(),
                expected,
            }))
        }
    }
}

/// What a scheme's wire module provides: the scheme's options of one packet as a value.
pub trait SchemeOptions: Clone + Default + Debug + PartialEq + Eq + Hash {
    /// One decoded option of this scheme.
    type Option: Copy + Debug + PartialEq + Eq;
    /// The type codes this scheme owns, each with its name (e.g. `(0x12, "OPT_PGMCC_DATA")`).
    const TYPES: &'static [(u8, &'static str)];
    /// Decode `option`, whose type is one of [`SchemeOptions::TYPES`]: check its exact length and fields.
    fn decode(option: &SchemeOption<'_>) -> Result<Self::Option, ParseError>;
    /// Keep a decoded option (a later one of the same type replaces an earlier one).
    fn insert(&mut self, option: Self::Option);
    /// The options that are set, in emission order.
    fn iter(&self) -> impl Iterator<Item = Self::Option> + '_;
    /// The option's type code.
    fn option_type(option: &Self::Option) -> u8;
    /// The option's encoded length, TLV header included.
    fn wire_len(option: &Self::Option) -> usize;
    /// Write the option's value into `bytes` (its whole encoding, [`SchemeOptions::wire_len`] bytes, type and
    /// length already written, the rest zero).
    fn emit_value(option: &Self::Option, bytes: &mut [u8]);
    /// The most bytes of this scheme's options a source puts on one data packet, with IPv6 (`ipv6`) or IPv4
    /// addresses in them.
    fn data_len_max(ipv6: bool) -> usize;
    /// On a NAK: the NAK carries this scheme's report only and asks for no repair (network elements keep no
    /// repair state for it and send no NCF; the source queues no repair).
    fn report_only(&self) -> bool {
        false
    }
    /// The loss rate (0 = none … 65535 = all) of a receiver report these options carry, for network elements
    /// that let a report of higher loss through (pgmcc paper §3.7).
    fn reported_loss(&self) -> Option<u16> {
        None
    }
}

/// Whether `option_type` belongs to `S`.
fn owns<S: SchemeOptions>(option_type: u8) -> bool {
    S::TYPES.iter().any(|&(t, _)| t == option_type)
}

/// Generates [`CcOptions`] and [`CcOption`] from the list of schemes: `field: Variant(module::Type)`.
/// A scheme's options listed once, in emission order, inside its `impl SchemeOptions`: generates `TYPES`,
/// `insert`, `iter` and `option_type`. Each entry is `value field: Variant = code, "NAME"` (an `Option<T>` field,
/// decoded as `Variant(T)`) or `flag field: Variant = code, "NAME"` (a `bool` field, decoded as the unit
/// `Variant`).
macro_rules! option_list {
    ($opt:ident { $($kind:ident $field:ident: $variant:ident = $code:expr, $name:literal;)* }) => {
        const TYPES: &'static [(u8, &'static str)] = &[$(($code, $name)),*];

        fn insert(&mut self, option: $opt) {
            $( option_list!(@insert $kind self.$field, option, $opt::$variant); )*
        }

        fn iter(&self) -> impl Iterator<Item = $opt> + '_ {
            [$( option_list!(@get $kind self.$field, $opt::$variant) ),*].into_iter().flatten()
        }

        fn option_type(option: &$opt) -> u8 {
            match option {
                $( $opt::$variant { .. } => $code, )*
            }
        }
    };
    (@insert value $place:expr, $option:ident, $($v:tt)+) => {
        if let $($v)+(x) = $option {
            $place = Some(x);
        }
    };
    (@insert flag $place:expr, $option:ident, $($v:tt)+) => {
        if let $($v)+ = $option {
            $place = true;
        }
    };
    (@get value $place:expr, $($v:tt)+) => {
        $place.map($($v)+)
    };
    (@get flag $place:expr, $($v:tt)+) => {
        $place.then_some($($v)+)
    };
}

macro_rules! schemes {
    ($($field:ident: $variant:ident($module:ident::$ty:ident)),* $(,)?) => {
        $( pub mod $module; )*

        /// The congestion-control options of one packet: one field per registered scheme.
        #[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
        pub struct CcOptions {
            $(
                #[doc = concat!("The `", stringify!($module), "` scheme's options.")]
                pub $field: $module::$ty,
            )*
        }

        /// One decoded congestion-control option, tagged with its scheme.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum CcOption {
            $(
                #[doc = concat!("An option of the `", stringify!($module), "` scheme.")]
                $variant(<$module::$ty as SchemeOptions>::Option),
            )*
        }

        impl CcOptions {
            /// The name of a type code some scheme owns.
            pub fn type_name(option_type: u8) -> Option<&'static str> {
                [$(<$module::$ty as SchemeOptions>::TYPES),*]
                    .into_iter()
                    .flatten()
                    .find(|(t, _)| *t == option_type)
                    .map(|(_, n)| *n)
            }

            /// Every (type code, name) of every scheme, in registration order.
            pub fn all_types() -> impl Iterator<Item = (u8, &'static str)> {
                [$(<$module::$ty as SchemeOptions>::TYPES),*].into_iter().flatten().copied()
            }

            /// Decode the option of type `option_type` in `bytes` (at `offset` of a packet of type
            /// `packet_type`) if a scheme owns its type.
            pub(crate) fn decode(
                bytes: &[u8],
                offset: usize,
                packet_type: Option<PacketType>,
            ) -> Option<Result<CcOption, ParseError>> {
                let t = bytes.first().map_or(0, |b| b & 0x7F);
                $(
                    if owns::<$module::$ty>(t) {
                        let option = SchemeOption {
                            bytes,
                            offset,
                            packet_type,
                            name: Self::type_name(t).unwrap_or("unknown option"),
                        };
                        return Some(<$module::$ty>::decode(&option).map(CcOption::$variant));
                    }
                )*
                None
            }

            /// The most bytes of options any one scheme puts on a data packet
            /// ([`SchemeOptions::data_len_max`]).
            pub fn data_len_max(ipv6: bool) -> usize {
                [$(<$module::$ty as SchemeOptions>::data_len_max(ipv6)),*].into_iter().max().unwrap_or(0)
            }

            /// [`SchemeOptions::data_len_max`] of the scheme whose module is called `scheme`; 0 for other names.
            pub fn data_len_max_of(scheme: &str, ipv6: bool) -> usize {
                $(
                    if scheme == stringify!($module) {
                        return <$module::$ty as SchemeOptions>::data_len_max(ipv6);
                    }
                )*
                0
            }

            /// Keep a decoded option.
            pub(crate) fn insert(&mut self, option: CcOption) {
                match option {
                    $( CcOption::$variant(o) => self.$field.insert(o), )*
                }
            }

            /// The options that are set, in emission order.
            pub fn iter(&self) -> impl Iterator<Item = CcOption> + '_ {
                std::iter::empty()
                    $( .chain(self.$field.iter().map(CcOption::$variant)) )*
            }

            /// The loss rate of the first scheme's receiver report carried here
            /// ([`SchemeOptions::reported_loss`]).
            pub fn reported_loss(&self) -> Option<u16> {
                None $( .or_else(|| self.$field.reported_loss()) )*
            }

            /// Whether a scheme marks this NAK as a report only ([`SchemeOptions::report_only`]).
            pub fn report_only(&self) -> bool {
                false $( || self.$field.report_only() )*
            }
        }

        impl CcOption {
            /// The option's type code.
            pub fn option_type(&self) -> u8 {
                match self {
                    $( CcOption::$variant(o) => <$module::$ty>::option_type(o), )*
                }
            }

            /// The option's encoded length.
            pub fn wire_len(&self) -> usize {
                match self {
                    $( CcOption::$variant(o) => <$module::$ty>::wire_len(o), )*
                }
            }

            /// Write the option's value (see [`SchemeOptions::emit_value`]).
            pub(crate) fn emit_value(&self, bytes: &mut [u8]) {
                match self {
                    $( CcOption::$variant(o) => <$module::$ty>::emit_value(o, bytes), )*
                }
            }
        }
    };
}

schemes! {
    pgmcc: Pgmcc(pgmcc::PgmccOptions),
    tfmcc: Tfmcc(tfmcc::TfmccOptions),
    aimd: Aimd(aimd::AimdOptions),
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::opt;

    #[test]
    fn scheme_type_codes_are_distinct_and_not_session_options() {
        let mut seen = std::collections::BTreeSet::new();
        for (t, name) in CcOptions::all_types() {
            assert!(seen.insert(t), "{name} ({t:#04x}) registered twice");
            assert!(t & opt::END == 0, "{name}: type codes are 7 bits");
            assert_eq!(opt::name(t), name, "{name}: the view names it");
            assert!(
                !matches!(
                    t,
                    opt::LENGTH
                        ..=opt::CRQST
                            | opt::CONVOY_RECEIVER_STATUS
                            | opt::CONVOY_NEEDS
                            | opt::CONVOY_AUTH
                            | opt::CONVOY_PARITY_CODE
                            | opt::CONVOY_LEAVE
                            | opt::INVALID
                ),
                "{name} ({t:#04x}) collides with an RFC 3208 or session option"
            );
        }
    }
}
