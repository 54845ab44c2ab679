//! W3C Trace Context carried in `params._meta` (OpenTelemetry's MCP semantic
//! conventions put the `traceparent` and `tracestate` of the caller's span there, since
//! a stdio message has no headers): the one place a `traceparent` is read, checked and
//! written.
//!
//! ```text
//! traceparent: 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01
//!              version-trace-id (16 bytes)-parent-id (8 bytes)-trace-flags
//! ```

use std::fmt;

/// The `_meta` key of the caller's span (W3C Trace Context Level 1 §3.2).
pub const TRACEPARENT: &str = "traceparent";
/// The `_meta` key of the vendors' trace state that travels with it (§3.3).
pub const TRACESTATE: &str = "tracestate";

/// A `traceparent`, read or made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TraceParent {
    /// The whole trace's id: every span of one trace shares it.
    pub trace_id: [u8; 16],
    /// The span that sent it: the receiver's span becomes its child.
    pub parent_id: [u8; 8],
    /// Trace flags; bit 0 is "sampled" (§3.2.2.5).
    pub flags: u8,
}

impl TraceParent {
    /// Reads one, as W3C Trace Context Level 1 §3.2 defines it: version `00` is
    /// exactly 55 characters; lower-case hex only; an all-zero trace id or parent id
    /// is invalid; version `ff` is invalid. A later version is read for its first four
    /// fields (§3.2.4 "Versioning of traceparent"). The error quotes the value.
    pub fn parse(text: &str) -> Result<TraceParent, String> {
        let bad = |why: &str| format!("traceparent {text:?}: {why}");
        let parts: Vec<&str> = text.split('-').collect();
        if parts.len() < 4 {
            return Err(bad("not version-traceid-parentid-flags"));
        }
        let version = hex::<1>(parts[0]).ok_or_else(|| bad("the version is not two hex digits"))?;
        if version[0] == 0xff {
            return Err(bad("version ff is invalid"));
        }
        if version[0] == 0 && (parts.len() != 4 || text.len() != 55) {
            return Err(bad("version 00 is exactly 55 characters"));
        }
        let trace_id = hex::<16>(parts[1])
            .ok_or_else(|| bad("the trace id is not 32 lower-case hex digits"))?;
        let parent_id = hex::<8>(parts[2])
            .ok_or_else(|| bad("the parent id is not 16 lower-case hex digits"))?;
        let flags = hex::<1>(parts[3]).ok_or_else(|| bad("the flags are not two hex digits"))?[0];
        if trace_id == [0; 16] {
            return Err(bad("the trace id is all zeros"));
        }
        if parent_id == [0; 8] {
            return Err(bad("the parent id is all zeros"));
        }
        Ok(TraceParent {
            trace_id,
            parent_id,
            flags,
        })
    }

    /// A new trace, sampled, its first span `span`.
    pub fn new_trace(span: [u8; 8]) -> TraceParent {
        TraceParent {
            trace_id: random(),
            parent_id: span,
            flags: 1,
        }
    }

    /// The same trace, sent from the span `span` (a child of this one's parent).
    pub fn from_span(&self, span: [u8; 8]) -> TraceParent {
        TraceParent {
            parent_id: span,
            ..*self
        }
    }
}

impl fmt::Display for TraceParent {
    /// Version `00`, the form every receiver reads.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "00-{}-{}-{:02x}",
            lower_hex(&self.trace_id),
            lower_hex(&self.parent_id),
            self.flags
        )
    }
}

/// A fresh span id (or trace id): random bytes from the OS, never all zeros.
pub fn random<const N: usize>() -> [u8; N] {
    let mut id = [0u8; N];
    while id == [0u8; N] {
        getrandom::fill(&mut id).expect("the OS random number generator is unavailable");
    }
    id
}

/// Bytes as lower-case hex, as trace ids are written.
pub fn lower_hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Exactly `2 × N` lower-case hex digits.
fn hex<const N: usize>(text: &str) -> Option<[u8; N]> {
    let digits = text.as_bytes();
    if digits.len() != 2 * N {
        return None;
    }
    let nibble = |c: u8| match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        _ => None,
    };
    let mut out = [0u8; N];
    for (i, pair) in digits.chunks(2).enumerate() {
        out[i] = nibble(pair[0])? << 4 | nibble(pair[1])?;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_specs_example_round_trips() {
        let text = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
        let tp = TraceParent::parse(text).unwrap();
        assert_eq!(tp.flags, 1);
        assert_eq!(lower_hex(&tp.parent_id), "00f067aa0ba902b7");
        assert_eq!(tp.to_string(), text);
        let child = tp.from_span([1, 2, 3, 4, 5, 6, 7, 8]);
        assert_eq!(
            child.to_string(),
            "00-4bf92f3577b34da6a3ce929d0e0e4736-0102030405060708-01"
        );
    }

    #[test]
    fn what_the_spec_refuses_is_refused_with_the_value_quoted() {
        for (text, why) in [
            (
                "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
                "trace id",
            ),
            (
                "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
                "all zeros",
            ),
            (
                "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
                "all zeros",
            ),
            (
                "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
                "ff",
            ),
            (
                "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-x",
                "55",
            ),
            ("00-4bf92f3577b34da6a3ce929d0e0e4736", "version-traceid"),
        ] {
            let e = TraceParent::parse(text).unwrap_err();
            assert!(e.contains(why) && e.contains(text), "{e}");
        }
        // A later version: its first four fields, the rest ignored (§3.2.4).
        let later = "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-what-comes";
        assert_eq!(TraceParent::parse(later).unwrap().flags, 1);
    }

    #[test]
    fn new_ids_are_random_and_never_zero() {
        let a = TraceParent::new_trace(random());
        let b = TraceParent::new_trace(random());
        assert_ne!(a.trace_id, b.trace_id);
        assert_ne!(a.trace_id, [0; 16]);
        assert_eq!(TraceParent::parse(&a.to_string()).unwrap(), a);
    }
}
