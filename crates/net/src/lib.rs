//! Convoy network driver (PGM over UDP multicast). Not yet built: see the project issues.
