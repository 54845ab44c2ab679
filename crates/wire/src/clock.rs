//! UTC time as RFC 3339 text (`2026-12-01T22:09:25.123Z`), from the system clock.
//! Civil-date conversion after Howard Hinnant's `civil_from_days` algorithm.

use std::time::{SystemTime, UNIX_EPOCH};

/// The current UTC time, millisecond precision, `Z` suffix.
pub fn now_rfc3339() -> String {
    let since = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    format_unix_millis(since.as_millis() as i64)
}

/// Formats milliseconds since 1970-01-01T00:00:00Z.
pub fn format_unix_millis(ms: i64) -> String {
    let secs = ms.div_euclid(1000);
    let millis = ms.rem_euclid(1000);
    let days = secs.div_euclid(86_400);
    let sod = secs.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{millis:03}Z",
        sod / 3600,
        sod % 3600 / 60,
        sod % 60
    )
}

fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

/// Formats microseconds since 1970-01-01T00:00:00Z (`2026-12-01T22:09:25.123456Z`).
pub fn format_unix_micros(us: i64) -> String {
    let text = format_unix_millis(us.div_euclid(1000));
    format!("{}{:03}Z", &text[..text.len() - 1], us.rem_euclid(1000))
}

/// Reads RFC 3339 text (`2026-12-01T22:09:25.123Z`, `…+02:00`, any number of
/// fraction digits) back into microseconds since 1970-01-01T00:00:00Z; `None` when it
/// is not that shape (a HAR's `startedDateTime` is ISO 8601 in this profile).
pub fn parse_rfc3339_micros(s: &str) -> Option<i64> {
    let b = s.as_bytes();
    let num = |r: std::ops::Range<usize>| -> Option<i64> {
        let part = s.get(r)?;
        (!part.is_empty() && part.bytes().all(|c| c.is_ascii_digit()))
            .then(|| part.parse().ok())
            .flatten()
    };
    if b.len() < 20 || b[4] != b'-' || b[7] != b'-' || !matches!(b[10], b'T' | b't' | b' ') {
        return None;
    }
    if b[13] != b':' || b[16] != b':' {
        return None;
    }
    let (y, m, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (h, mi, sec) = (num(11..13)?, num(14..16)?, num(17..19)?);
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) || h > 23 || mi > 59 || sec > 60 {
        return None;
    }
    let mut i = 19;
    let mut micros = 0i64;
    if b.get(i) == Some(&b'.') {
        let start = i + 1;
        i = start;
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        if i == start {
            return None;
        }
        let digits = &s[start..i.min(start + 6)];
        micros = digits.parse::<i64>().ok()? * 10i64.pow(6 - digits.len() as u32);
    }
    let offset = match s.get(i..)? {
        "Z" | "z" => 0,
        tz if tz.len() == 6
            && matches!(tz.as_bytes()[0], b'+' | b'-')
            && tz.as_bytes()[3] == b':' =>
        {
            let mins = num(i + 1..i + 3)? * 60 + num(i + 4..i + 6)?;
            if tz.starts_with('-') { -mins } else { mins }
        }
        _ => return None,
    };
    let days = days_from_civil(y, m as u32, d as u32);
    let secs = days * 86_400 + h * 3600 + mi * 60 + sec - offset * 60;
    Some(secs * 1_000_000 + micros)
}

fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = i64::from((m + 9) % 12);
    let doy = (153 * mp + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// Shape check used by tests: `YYYY-MM-DDTHH:MM:SS.mmmZ`.
pub fn looks_like_rfc3339_utc(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 24
        && b[4] == b'-'
        && b[7] == b'-'
        && b[10] == b'T'
        && b[13] == b':'
        && b[16] == b':'
        && b[19] == b'.'
        && b[23] == b'Z'
        && b.iter()
            .enumerate()
            .all(|(i, c)| [4, 7, 10, 13, 16, 19, 23].contains(&i) || c.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_instants() {
        assert_eq!(format_unix_millis(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(
            format_unix_millis(951_782_400_000),
            "2000-02-29T00:00:00.000Z"
        );
        assert_eq!(
            format_unix_millis(1_796_083_199_999),
            "2026-11-30T23:59:59.999Z"
        );
        assert_eq!(format_unix_millis(-1), "1969-12-31T23:59:59.999Z");
    }

    #[test]
    fn rfc3339_reads_back() {
        for ms in [0, 951_782_400_000, 1_796_083_199_999, -1] {
            assert_eq!(
                parse_rfc3339_micros(&format_unix_millis(ms)),
                Some(ms * 1000)
            );
            let us = ms * 1000 + 7;
            assert_eq!(parse_rfc3339_micros(&format_unix_micros(us)), Some(us));
        }
        assert_eq!(
            parse_rfc3339_micros("2000-02-29T02:00:00.5+02:00"),
            Some(951_782_400_500_000)
        );
        assert_eq!(parse_rfc3339_micros("2000-02-29"), None);
        assert_eq!(parse_rfc3339_micros("2000-13-01T00:00:00Z"), None);
    }

    #[test]
    fn now_has_the_shape() {
        assert!(looks_like_rfc3339_utc(&now_rfc3339()));
    }
}
