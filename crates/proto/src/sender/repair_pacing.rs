//! Whether repairs (RDATA) leave under the congestion controller or beside it.

/// How the source paces repairs (RDATA).
///
/// Both keep `rate_max` and `repair_rate_max`, the PGM rate limiters (RFC 3208 §3.2), on top.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RepairPacing {
    /// Only the rate limiters pace repairs; the controller sees original data only. The pgmcc paper's rule
    /// (§3.8: "as soon as a NAK comes in, we sent the RDATA packet only subject to the throughput of the rate
    /// limiter"), which its experiments assume. With many receivers losing different packets the repairs can
    /// then far exceed the controlled rate on the source's own links.
    #[default]
    RateLimit,
    /// A repair needs the controller's permit and is charged to it like original data (Shi–Waldvogel §5.4:
    /// "the source should account for the retransmissions as part of its original data transmissions"). Repairs
    /// go first but, while original data also waits, take at most [`super::REPAIRS_PER_ODATA`] permits in a row,
    /// so a burst of NAKs (a late joiner recovering the session's start, paper §3.8's NAK storm) cannot starve the
    /// data that clocks the controller.
    Controller,
}

impl RepairPacing {
    /// The name scenario files and `convoy send` use.
    pub fn name(self) -> &'static str {
        match self {
            RepairPacing::RateLimit => "rate-limit",
            RepairPacing::Controller => "controller",
        }
    }

    /// Parse a name given by [`RepairPacing::name`].
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "rate-limit" => Some(RepairPacing::RateLimit),
            "controller" => Some(RepairPacing::Controller),
            _ => None,
        }
    }
}
