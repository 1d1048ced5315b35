//! Typed indices into the simulator's tables (docs/architecture.md, "Determinism": tables are vectors indexed by ids).

macro_rules! id_type {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(pub u32);

        impl $name {
            /// The index as `usize`.
            pub fn index(self) -> usize {
                self.0 as usize
            }
        }
    };
}

id_type!(
    /// A node (host or router).
    NodeId
);
id_type!(
    /// One direction of a link.
    LinkId
);
id_type!(
    /// A traffic endpoint attached to a host.
    AgentId
);
id_type!(
    /// A multicast group (one per PGM session).
    GroupId
);
id_type!(
    /// A flow as named in the scenario: a TCP connection, a CBR source, a multicast session.
    FlowId
);
