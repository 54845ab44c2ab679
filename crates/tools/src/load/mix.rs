//! The calls a load run makes and in what order: `--call NAME=JSON` (a `tools/call`),
//! `--scenario FILE` (tools and any other method, each with a weight), picked in a
//! smooth weighted round-robin so a weight of 3 against 1 sends three calls of the
//! first for each of the second, spread out rather than in runs.

use serde_json::{Map, Value};

/// One kind of call in the mix.
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    /// The JSON-RPC method (`tools/call` for a tool).
    pub method: String,
    /// For `tools/call`: the tool's name (its figures are kept per tool too).
    pub tool: Option<String>,
    /// The tool's `arguments`, or the method's `params`.
    pub params: Value,
    /// How many of each round of the mix are this call (1 or more).
    pub weight: u32,
}

/// The calls and the order the round-robin takes them in.
#[derive(Debug, Clone)]
pub struct Mix {
    /// The kinds of call.
    calls: Vec<Call>,
    /// One round: indexes into `calls`, each as often as its weight.
    round: Vec<usize>,
}

impl Mix {
    /// A mix of these calls; refused when empty.
    pub fn new(calls: Vec<Call>) -> Result<Mix, String> {
        if calls.is_empty() {
            return Err("the mix has no calls".into());
        }
        // Smooth weighted round-robin: each step, every call gains its weight, the
        // richest is picked and pays the total back.
        let total: i64 = calls.iter().map(|c| i64::from(c.weight)).sum();
        let mut credit = vec![0i64; calls.len()];
        let mut round = Vec::with_capacity(total as usize);
        for _ in 0..total {
            for (c, call) in credit.iter_mut().zip(&calls) {
                *c += i64::from(call.weight);
            }
            let best = (0..calls.len())
                .max_by_key(|&i| (credit[i], std::cmp::Reverse(i)))
                .unwrap_or(0);
            credit[best] -= total;
            round.push(best);
        }
        Ok(Mix { calls, round })
    }

    /// The call that ticket `n` (the run's n-th call, counted from 0) makes.
    pub fn pick(&self, n: u64) -> &Call {
        let i = self.round[(n % self.round.len() as u64) as usize];
        &self.calls[i]
    }

    /// Whether some call is a tool's (each client lists the tools first, as a client
    /// must to learn their `x-mcp-header` arguments and task support).
    pub fn has_tools(&self) -> bool {
        self.calls.iter().any(|c| c.tool.is_some())
    }
}

/// `--call NAME=JSON` (or `NAME`, no arguments): a `tools/call`; the JSON must be an
/// object.
pub fn parse_call(text: &str) -> Result<Call, String> {
    let (name, json) = text.split_once('=').unwrap_or((text, "{}"));
    if name.is_empty() {
        return Err(format!(
            "--call {text:?}: expected NAME=JSON (a tool's name)"
        ));
    }
    let arguments: Value = serde_json::from_str(json)
        .map_err(|e| format!("--call {text:?}: the arguments are not JSON: {e}"))?;
    if !arguments.is_object() {
        return Err(format!(
            "--call {text:?}: the arguments must be a JSON object"
        ));
    }
    Ok(Call {
        method: "tools/call".into(),
        tool: Some(name.to_owned()),
        params: arguments,
        weight: 1,
    })
}

/// A `--scenario` file: `{"calls": [{"tool": NAME, "arguments": {…}, "weight": N},
/// {"method": M, "params": {…}, "weight": N}, …]}`; `weight` defaults to 1, an
/// unknown key is refused (a typo would otherwise change the mix unseen).
pub fn parse_scenario(text: &str) -> Result<Vec<Call>, String> {
    let doc: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
    let calls = doc
        .get("calls")
        .and_then(Value::as_array)
        .ok_or("expected {\"calls\": [...]}")?;
    calls
        .iter()
        .enumerate()
        .map(|(i, c)| scenario_call(c).map_err(|e| format!("calls[{i}]: {e}")))
        .collect()
}

fn scenario_call(c: &Value) -> Result<Call, String> {
    let map = c.as_object().ok_or("expected an object")?;
    let empty = Value::Object(Map::new());
    for key in map.keys() {
        if !["tool", "arguments", "method", "params", "weight"].contains(&key.as_str()) {
            return Err(format!(
                "unknown key {key:?} (tool, arguments, method, params, weight)"
            ));
        }
    }
    let weight = match map.get("weight") {
        None => 1,
        Some(w) => w
            .as_u64()
            .and_then(|w| u32::try_from(w).ok())
            .filter(|w| *w > 0)
            .ok_or_else(|| format!("weight {w}: expected a whole number from 1"))?,
    };
    let object = |key: &str| -> Result<Value, String> {
        let v = map.get(key).unwrap_or(&empty);
        if v.is_object() {
            Ok(v.clone())
        } else {
            Err(format!("{key} must be a JSON object, got {v}"))
        }
    };
    match (map.get("tool"), map.get("method")) {
        (Some(Value::String(tool)), None) => Ok(Call {
            method: "tools/call".into(),
            tool: Some(tool.clone()),
            params: object("arguments")?,
            weight,
        }),
        (None, Some(Value::String(method))) => Ok(Call {
            method: method.clone(),
            tool: None,
            params: object("params")?,
            weight,
        }),
        _ => Err("give either \"tool\" or \"method\" (a string)".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weights_spread_over_a_round() {
        let mut a = parse_call("a={}").unwrap();
        a.weight = 3;
        let b = parse_call("b").unwrap();
        let mix = Mix::new(vec![a, b]).unwrap();
        let names: Vec<_> = (0..8).map(|n| mix.pick(n).tool.clone().unwrap()).collect();
        assert_eq!(names, ["a", "a", "b", "a", "a", "a", "b", "a"]);
    }

    #[test]
    fn scenarios_are_read_strictly() {
        let calls = parse_scenario(
            r#"{"calls":[{"tool":"echo","arguments":{"x":1},"weight":2},{"method":"tools/list"}]}"#,
        )
        .unwrap();
        assert_eq!(calls[0].weight, 2);
        assert_eq!(calls[1].method, "tools/list");
        let e = parse_scenario(r#"{"calls":[{"tool":"echo","wieght":2}]}"#).unwrap_err();
        assert!(e.contains("unknown key \"wieght\""), "{e}");
        assert!(parse_call("x=[1]").unwrap_err().contains("JSON object"));
    }
}
