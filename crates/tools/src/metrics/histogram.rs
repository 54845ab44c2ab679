//! A latency histogram as Prometheus reads one: cumulative buckets by upper bound
//! in seconds, a sum and a count.

/// Upper bounds of the buckets, in seconds (`le`); `+Inf` follows them. From half a
/// millisecond (a stdio round trip) to a minute (a slow tool call).
pub const BOUNDS: [f64; 16] = [
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0,
    60.0,
];

/// One histogram's counts.
#[derive(Debug, Clone, Default)]
pub struct Histogram {
    /// Observations at or below each bound, not cumulative (summed when rendered).
    pub buckets: [u64; BOUNDS.len()],
    /// Observations above the last bound.
    pub over: u64,
    /// The observations' sum, in seconds.
    pub sum: f64,
    /// How many observations.
    pub count: u64,
}

impl Histogram {
    /// Counts one observation of `secs` seconds.
    pub fn observe(&mut self, secs: f64) {
        match BOUNDS.iter().position(|b| secs <= *b) {
            Some(i) => self.buckets[i] += 1,
            None => self.over += 1,
        }
        self.sum += secs;
        self.count += 1;
    }

    /// The cumulative counts per bound, `+Inf` last (it equals the count).
    pub fn cumulative(&self) -> Vec<(String, u64)> {
        let mut acc = 0;
        let mut out: Vec<(String, u64)> = BOUNDS
            .iter()
            .zip(self.buckets)
            .map(|(b, n)| {
                acc += n;
                (super::exposition::float(*b), acc)
            })
            .collect();
        out.push(("+Inf".to_owned(), acc + self.over));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_are_cumulative_and_end_at_the_count() {
        let mut h = Histogram::default();
        for s in [0.0001, 0.003, 0.003, 7.0, 100.0] {
            h.observe(s);
        }
        let c = h.cumulative();
        assert_eq!(c[0], ("0.0005".to_owned(), 1));
        assert_eq!(c[3], ("0.005".to_owned(), 3));
        assert_eq!(c.last().unwrap(), &("+Inf".to_owned(), 5));
        assert_eq!(h.count, 5);
    }
}
