//! The results table: medians over the repetitions, each with its ratio to the
//! floor of the same repetition (the median of those per-repetition ratios).

use std::collections::BTreeMap;

/// How a metric compares with the floor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Better {
    /// More is better (calls/s): the ratio is floor ÷ peer, "× slower".
    Higher,
    /// Less is better (latency, CPU, memory, time): the ratio is peer ÷ floor.
    Lower,
    /// Less is better, but the floor's value is ~0 (the floor keeps no sessions), so
    /// no ratio is printed: the goal is absolute (≤ 1 KiB per session).
    Absolute,
}

/// One row of the table: a workload and one of its metrics.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct RowKey {
    /// Sort key: the order rows were first recorded in.
    pub order: usize,
    /// "stdio, sequential".
    pub workload: String,
    /// "calls/s".
    pub metric: String,
}

/// One row's values: peer → one value per repetition.
type Cells = BTreeMap<String, Vec<Option<f64>>>;

/// Every measured value: row → peer → one value per repetition (`None` where the
/// peer failed or does not have that workload).
#[derive(Default)]
pub struct Table {
    /// The rows, in recording order.
    rows: BTreeMap<RowKey, (Better, Cells)>,
    /// Row names already seen, to keep the first order.
    seen: Vec<(String, String)>,
    /// Peers in column order.
    pub peers: Vec<String>,
    /// The name of the floor column for each row's transport ("floor").
    pub floor: String,
}

impl Table {
    /// An empty table with these columns; `floor` names the floor column.
    pub fn new(peers: Vec<String>, floor: &str) -> Table {
        Table {
            peers,
            floor: floor.to_owned(),
            ..Table::default()
        }
    }

    /// Records `value` for `peer` in repetition `rep`.
    pub fn put(
        &mut self,
        workload: &str,
        metric: &str,
        better: Better,
        peer: &str,
        rep: usize,
        value: Option<f64>,
    ) {
        let name = (workload.to_owned(), metric.to_owned());
        let order = match self.seen.iter().position(|s| *s == name) {
            Some(i) => i,
            None => {
                self.seen.push(name);
                self.seen.len() - 1
            }
        };
        let key = RowKey {
            order,
            workload: workload.to_owned(),
            metric: metric.to_owned(),
        };
        let entry = self
            .rows
            .entry(key)
            .or_insert_with(|| (better, BTreeMap::new()));
        let reps = entry.1.entry(peer.to_owned()).or_default();
        if reps.len() <= rep {
            reps.resize(rep + 1, None);
        }
        reps[rep] = value;
    }

    /// The table as GitHub Markdown.
    pub fn markdown(&self) -> String {
        let mut s = String::new();
        s.push_str("| workload | metric |");
        for p in &self.peers {
            s.push_str(&format!(" {p} |"));
        }
        s.push_str("\n|---|---|");
        for _ in &self.peers {
            s.push_str("---|");
        }
        s.push('\n');
        for (key, (better, cells)) in &self.rows {
            s.push_str(&format!("| {} | {} |", key.workload, key.metric));
            let floor = cells.get(&self.floor);
            for p in &self.peers {
                let cell = match cells.get(p) {
                    None => "—".to_owned(),
                    Some(reps) => match median(reps.iter().flatten().copied().collect()) {
                        None => "failed".to_owned(),
                        Some(v) => {
                            let ratios: Vec<f64> = match floor {
                                Some(f) if p != &self.floor && *better != Better::Absolute => reps
                                    .iter()
                                    .zip(f)
                                    .filter_map(|(v, f)| Some(ratio(*better, (*v)?, (*f)?)))
                                    .collect(),
                                _ => Vec::new(),
                            };
                            match median(ratios) {
                                Some(r) => format!("{} ({r:.1}×)", number(v)),
                                None => number(v),
                            }
                        }
                    },
                };
                s.push_str(&format!(" {cell} |"));
            }
            s.push('\n');
        }
        s
    }
}

/// How many times worse than the floor (1.0 = at the floor).
fn ratio(better: Better, v: f64, floor: f64) -> f64 {
    match better {
        Better::Higher => floor / v.max(1e-9),
        Better::Lower | Better::Absolute => v / floor.max(1e-9),
    }
}

/// The median of some values.
pub fn median(mut v: Vec<f64>) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    Some(v[v.len() / 2])
}

/// A number the way the table prints it: thousands separated, one decimal below 100.
fn number(v: f64) -> String {
    if v.abs() >= 100.0 {
        let n = v.round() as i64;
        let digits = n.abs().to_string();
        let mut out = String::new();
        for (i, c) in digits.chars().enumerate() {
            if i > 0 && (digits.len() - i).is_multiple_of(3) {
                out.push(',');
            }
            out.push(c);
        }
        if n < 0 { format!("-{out}") } else { out }
    } else if v.abs() >= 10.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ratios_are_per_repetition_medians() {
        let mut t = Table::new(vec!["floor".into(), "x".into()], "floor");
        for (rep, (f, x)) in [(100.0, 50.0), (200.0, 50.0), (300.0, 100.0)]
            .into_iter()
            .enumerate()
        {
            t.put("w", "calls/s", Better::Higher, "floor", rep, Some(f));
            t.put("w", "calls/s", Better::Higher, "x", rep, Some(x));
        }
        let md = t.markdown();
        // Ratios 2, 4, 3 → median 3; values' median 50.
        assert!(md.contains("| w | calls/s | 200 | 50.0 (3.0×) |"), "{md}");
    }

    #[test]
    fn numbers_print_with_separators() {
        assert_eq!(number(1_062_443.0), "1,062,443");
        assert_eq!(number(15.46), "15.5");
        assert_eq!(number(1.234), "1.23");
    }
}
