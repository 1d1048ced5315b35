//! Sequence-number (serial-number) arithmetic on 32-bit PGM sequence numbers.
//!
//! RFC 3208 §4 requires sequence numbers to be compared modulo 2³²; the pgmcc draft §2.1.2 asks for RX_MAX
//! "taking care to deal with sequence number wrapping correctly". These helpers follow RFC 1982 serial-number
//! arithmetic with SERIAL_BITS = 32.

/// `a < b` in serial-number order.
pub fn lt(a: u32, b: u32) -> bool {
    a != b && b.wrapping_sub(a) < 0x8000_0000
}

/// `a <= b` in serial-number order.
pub fn le(a: u32, b: u32) -> bool {
    a == b || lt(a, b)
}

/// `a > b` in serial-number order.
pub fn gt(a: u32, b: u32) -> bool {
    lt(b, a)
}

/// `a >= b` in serial-number order.
pub fn ge(a: u32, b: u32) -> bool {
    le(b, a)
}

/// The later of two sequence numbers.
pub fn max(a: u32, b: u32) -> u32 {
    if lt(a, b) {
        b
    } else {
        a
    }
}

/// Signed distance `b − a` (positive when `b` is later), valid for distances below 2³¹.
pub fn diff(b: u32, a: u32) -> i64 {
    b.wrapping_sub(a) as i32 as i64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wraps_around_zero() {
        assert!(lt(u32::MAX, 0));
        assert!(lt(u32::MAX - 5, 3));
        assert!(gt(3, u32::MAX - 5));
        assert_eq!(diff(3, u32::MAX - 5), 9);
        assert_eq!(diff(u32::MAX - 5, 3), -9);
        assert_eq!(max(u32::MAX, 1), 1);
        assert!(le(7, 7) && ge(7, 7) && !lt(7, 7));
    }
}
