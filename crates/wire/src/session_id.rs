//! Who sent a packet: the Global Source Identifier and the Transport Session Identifier (RFC 3208 §3, §8).

/// Global Source Identifier (RFC 3208 §8: 6 bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Gsi(pub [u8; 6]);

/// Transport Session Identifier: GSI plus data-source port (RFC 3208 §3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Tsi {
    /// Global source identifier.
    pub gsi: Gsi,
    /// Data-source port.
    pub source_port: u16,
}

impl core::fmt::Display for Gsi {
    /// Twelve lowercase hex digits, as Wireshark shows a GSI.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        for b in self.0 {
            write!(f, "{b:02x}")?;
        }
        Ok(())
    }
}

impl core::fmt::Display for Tsi {
    /// `GSI.port`, e.g. `65aaceceacc1.1093`.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{}.{}", self.gsi, self.source_port)
    }
}
