//! W3C Trace Context (Level 1) as OpenTelemetry's MCP conventions carry it in
//! `params._meta`: a `traceparent` read into its ids and flags, and fresh random ids
//! for the spans that start a trace or sit under one.

/// A W3C `traceparent` (Trace Context Level 1 §3.2: `00-{32 hex}-{16 hex}-{2 hex}`;
/// a later version may append fields after a dash): trace id, parent id, flags. An
/// all-zero id, version `ff`, or any other shape is invalid: the span starts a new
/// trace (§3.2.2.3, §3.2.2.4).
pub fn traceparent(text: &str) -> Option<([u8; 16], [u8; 8], u8)> {
    let t = text.trim();
    let b = t.as_bytes();
    if b.len() < 55 || b[2] != b'-' || b[35] != b'-' || b[52] != b'-' {
        return None;
    }
    let version = hex::<1>(&t[0..2])?[0];
    if version == 0xff || (version == 0 && b.len() != 55) || (b.len() > 55 && b[55] != b'-') {
        return None;
    }
    let trace = hex::<16>(&t[3..35])?;
    let span = hex::<8>(&t[36..52])?;
    let flags = hex::<1>(&t[53..55])?[0];
    if trace == [0; 16] || span == [0; 8] {
        return None;
    }
    Some((trace, span, flags))
}

/// `N` bytes from `2N` lowercase hex digits (W3C: uppercase is invalid).
fn hex<const N: usize>(s: &str) -> Option<[u8; N]> {
    let b = s.as_bytes();
    if b.len() != 2 * N {
        return None;
    }
    let digit = |c: u8| match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        _ => None,
    };
    let mut out = [0; N];
    for (i, o) in out.iter_mut().enumerate() {
        *o = digit(b[2 * i])? << 4 | digit(b[2 * i + 1])?;
    }
    Some(out)
}

/// A random trace id (16 random bytes of a v4 UUID's generator, never all zero).
pub fn fresh_trace_id() -> [u8; 16] {
    let mut id = *uuid::Uuid::new_v4().as_bytes();
    id[0] |= 1;
    id
}

/// A random span id.
pub fn fresh_span_id() -> [u8; 8] {
    let u = *uuid::Uuid::new_v4().as_bytes();
    let mut id = [0; 8];
    id.copy_from_slice(&u[..8]);
    id[0] |= 1;
    id
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn traceparent_reads_the_w3c_shape_and_refuses_the_rest() {
        let (t, s, f) =
            traceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01").unwrap();
        assert_eq!(t[0], 0x4b);
        assert_eq!(s[7], 0xb7);
        assert_eq!(f, 1);
        for bad in [
            "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
            "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-x",
            "garbage",
        ] {
            assert_eq!(traceparent(bad), None, "{bad}");
        }
        assert!(
            traceparent("01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-later").is_some()
        );
    }
}
