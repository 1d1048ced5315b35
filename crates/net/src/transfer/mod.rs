//! File transfer (to come).
