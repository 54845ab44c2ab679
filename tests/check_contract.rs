//! `check`'s contract through the real binary: `--expect-tool`, `--forbid-tool`,
//! `--expect-method`, `--max-duration`, `--max-latency`, `--max-errors` and
//! `--contract FILE`, against a recording written with known stamps (so each limit
//! is tested at its edge: held at the figure, broken just under it), in text, JSON,
//! JUnit and SARIF; bad terms refused with exit 2, quoting them; and a real session
//! of mcp-raw's own client and server.

mod common;
use common::cli_inproc::{cli_here, record_stdio_session};

use common::made::{self, Made, call, request, result};
use serde_json::{Value, json};

fn scratch(name: &str) -> std::path::PathBuf {
    common::scratch("check-contract", name)
}

/// `mcp-raw check ARGS…`: exit status, stdout, stderr.
fn check(args: &[&str]) -> (i32, String, String) {
    // The contract's flags, exit statuses and refusals are the CLI's: in-process.
    let out = cli_here(std::iter::once("check").chain(args.iter().copied()));
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The recording: the handshake (initialize 10 ms), tools/list (5 ms), ten calls of
/// `add` taking 1, 2 … 10 ms (the last answered isError: true), one call of `sub`
/// refused with -32602 after 50 ms; the last event at 1250 ms.
fn recording(path: &std::path::Path) {
    let mut m = Made::new("stdio");
    made::handshake(&mut m);
    m.line(20, "c2s", request(2, "tools/list", json!({})));
    m.line(
        25,
        "s2c",
        result(
            2,
            json!({"tools": [{"name": "add", "inputSchema": {"type": "object"}}, {"name": "sub", "inputSchema": {"type": "object"}}]}),
        ),
    );
    for i in 0..10u64 {
        let t = 100 + 100 * i;
        m.line(t, "c2s", call(10 + i, "add"));
        m.line(
            t + i + 1,
            "s2c",
            result(
                10 + i,
                json!({"content": [{"type": "text", "text": "3"}], "isError": i == 9}),
            ),
        );
    }
    m.line(1200, "c2s", call(30, "sub"));
    m.line(
        1250,
        "s2c",
        json!({"jsonrpc": "2.0", "id": 30, "error": {"code": -32602, "message": "Unknown tool: sub"}}),
    );
    m.write(path);
}

/// (rule, message) of each finding of a JSON report.
fn findings(json: &str) -> Vec<(String, String)> {
    let doc: Value = serde_json::from_str(json).unwrap_or_else(|e| panic!("{e}: {json}"));
    doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["rule"].as_str().unwrap().to_owned(),
                f["message"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(a, b)| ((*a).to_owned(), (*b).to_owned()))
        .collect()
}

/// Each term held at its figure, and broken just past it: the findings whole.
#[test]
fn each_term_holds_at_its_figure_and_breaks_past_it() {
    let dir = scratch("terms");
    let file = dir.join("session.jsonl");
    recording(&file);
    let f = file.to_str().unwrap();

    let (code, out, err) = check(&[f]);
    assert_eq!(
        (code, out.as_str()),
        (
            0,
            "0 errors, 0 warnings in 27 messages (27 events, 45 rules checked)\n"
        ),
        "{err}"
    );

    // Held: every figure exactly at its limit. tools/call latencies are 1…10 and 50
    // ms: p90 by nearest rank is the 10th of 11, 10 ms; all 13 requests' p99 is 50.
    let held = [
        "--expect-tool",
        "add",
        "--expect-tool",
        "sub",
        "--forbid-tool",
        "delete",
        "--expect-method",
        "tools/list",
        "--expect-method",
        "notifications/initialized",
        "--max-duration",
        "1.25",
        "--max-latency",
        "p90=10,method=tools/call",
        "--max-latency",
        "p99=50",
        "--max-latency",
        "p50=6",
        "--max-errors",
        "2",
    ];
    let (code, out, err) = check(&[&[f][..], &held[..]].concat());
    assert_eq!(
        (code, out.as_str()),
        (
            0,
            "0 errors, 0 warnings in 27 messages (27 events, 45 rules checked, 10 contract terms)\n"
        ),
        "{err}"
    );

    // Broken: each just past.
    let broken = [
        "--format",
        "json",
        "--expect-tool",
        "mul",
        "--forbid-tool",
        "sub",
        "--expect-method",
        "ping",
        "--max-duration",
        "1.249",
        "--max-latency",
        "p90=9.999,method=tools/call",
        "--max-latency",
        "p50=5.999",
        "--max-latency",
        "p99=1,method=resources/read",
        "--max-errors",
        "1",
    ];
    let (code, out, err) = check(&[&[f][..], &broken[..]].concat());
    assert_eq!(code, 1, "{err}");
    assert_eq!(
        findings(&out),
        pairs(&[
            (
                "contract/expect-tool",
                "tool \"mul\" was never called (tools/call)"
            ),
            (
                "contract/forbid-tool",
                "tool \"sub\" was called (a forbidden tool)"
            ),
            ("contract/expect-method", "method \"ping\" was never sent"),
            (
                "contract/max-duration",
                "the recording spans 1.250 s, over the 1.249 s allowed"
            ),
            (
                "contract/max-latency",
                "p90 latency of \"tools/call\" is 10.000 ms over 11 answered request(s), over the 9.999 ms allowed"
            ),
            (
                "contract/max-latency",
                "p50 latency of all requests is 6.000 ms over 13 answered request(s), over the 5.999 ms allowed"
            ),
            (
                "contract/max-errors",
                "2 error(s) (1 JSON-RPC error response(s), 1 isError result(s)), over the 1 allowed"
            ),
        ]),
        "a latency limit on a method never answered passes: {out}"
    );
    // The forbidden call is placed at its request's event (the 26th), the rest at the end.
    let doc: Value = serde_json::from_str(&out).unwrap();
    let events: Vec<u64> = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["event"].as_u64().unwrap())
        .collect();
    assert_eq!(events, [27, 26, 27, 27, 27, 27, 27]);
    assert_eq!(doc["errors"], 7);

    // Text: a line per finding, the summary counting the terms.
    let (code, out, _) = check(&[&[f][..], &broken[2..]].concat());
    assert_eq!(code, 1);
    assert!(
        out.contains("event 26 stdio c2s 1.200000s: error contract/forbid-tool: tool \"sub\" was called (a forbidden tool)  [the contract (check's flags or --contract FILE)]\n"),
        "{out}"
    );
    assert!(
        out.ends_with(
            "7 errors, 0 warnings in 27 messages (27 events, 45 rules checked, 8 contract terms)\n"
        ),
        "{out}"
    );

    // JUnit: the six contract rules join the 41 cases; the four kinds broken fail.
    let (code, xml, _) = check(&[&[f, "--format", "junit"][..], &broken[2..]].concat());
    assert_eq!(code, 1);
    assert_eq!(
        xml.lines().nth(1).unwrap(),
        r#"<testsuites name="mcp-raw check" tests="51" failures="6">"#,
        "{xml}"
    );
    assert!(xml.contains(r#"<failure message="2 finding(s): this percentile of request latency (of one method, or of all) stays within the limit" type="contract/max-latency">"#), "{xml}");
    // Without a contract the contract's cases are not listed.
    let (_, xml, _) = check(&[f, "--format", "junit"]);
    assert_eq!(xml.matches("<testcase ").count(), 45);
}

/// SARIF 2.1.0: the run's driver lists the rules, each result points at its rule
/// (by id and index) and at the transcript line holding its event.
#[test]
fn sarif_places_each_finding_at_its_line() {
    let dir = scratch("sarif");
    let file = dir.join("session.jsonl");
    recording(&file);
    let f = file.to_str().unwrap();
    let (code, out, err) = check(&[
        f,
        "--format",
        "sarif",
        "--forbid-tool",
        "add",
        "--max-errors",
        "0",
    ]);
    assert_eq!(code, 1, "{err}");
    let doc: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(doc["version"], "2.1.0");
    let run = &doc["runs"][0];
    assert_eq!(run["tool"]["driver"]["name"], "mcp-raw check");
    let rules = run["tool"]["driver"]["rules"].as_array().unwrap();
    assert_eq!(rules.len(), 51);
    let results = run["results"].as_array().unwrap();
    assert_eq!(results.len(), 11, "ten calls of add, and the errors");
    let text = std::fs::read_to_string(&file).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    for r in results {
        let i = r["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(rules[i]["id"], r["ruleId"]);
        assert_eq!(r["level"], "error");
        assert!(r["message"]["text"].as_str().is_some_and(|t| !t.is_empty()));
        let loc = &r["locations"][0]["physicalLocation"];
        assert_eq!(loc["artifactLocation"]["uri"], f);
        let line = loc["region"]["startLine"].as_u64().unwrap() as usize;
        if r["ruleId"] == "contract/forbid-tool" {
            assert!(
                lines[line - 1].contains(r#"\"method\":\"tools/call\""#),
                "{}",
                lines[line - 1]
            );
            assert!(lines[line - 1].contains(r#"\"name\":\"add\""#));
        } else {
            assert_eq!(
                line,
                lines.len(),
                "a whole-recording finding is at the last event"
            );
        }
    }
    // The first call of add is event 6, on line 7 (the header is line 1).
    assert_eq!(
        results[0]["locations"][0]["physicalLocation"]["region"]["startLine"],
        7
    );
}

/// `--contract FILE`: the same terms as the flags give the same findings; a bad
/// file or a bad flag value is exit 2, its error quoting what is wrong.
#[test]
fn a_contract_file_holds_the_terms_and_bad_terms_are_refused() {
    let dir = scratch("file");
    let file = dir.join("session.jsonl");
    recording(&file);
    let f = file.to_str().unwrap();
    let contract = dir.join("contract.json");
    std::fs::write(
        &contract,
        r#"{
  "expect-tool": ["mul"],
  "forbid-tool": ["sub"],
  "expect-method": ["ping"],
  "max-duration": 1.249,
  "max-latency": ["p90=9.999,method=tools/call", "p50=5.999"],
  "max-errors": 1
}
"#,
    )
    .unwrap();
    let (code, by_file, err) = check(&[
        f,
        "--format",
        "json",
        "--contract",
        contract.to_str().unwrap(),
    ]);
    assert_eq!(code, 1, "{err}");
    let (_, by_flags, _) = check(&[
        f,
        "--format",
        "json",
        "--expect-tool",
        "mul",
        "--forbid-tool",
        "sub",
        "--expect-method",
        "ping",
        "--max-duration",
        "1.249",
        "--max-latency",
        "p90=9.999,method=tools/call",
        "--max-latency",
        "p50=5.999",
        "--max-errors",
        "1",
    ]);
    assert_eq!(findings(&by_file), findings(&by_flags));
    assert_eq!(findings(&by_file).len(), 7);

    let c = contract.to_str().unwrap();
    let refused = |text: &str, want: &str| {
        std::fs::write(&contract, text).unwrap();
        let (code, out, err) = check(&[f, "--contract", c]);
        assert_eq!((code, out.as_str()), (2, ""), "{text}: {err}");
        assert_eq!(
            err,
            format!("mcp-raw check: contract {c}: {want}\n"),
            "{text}"
        );
    };
    refused(
        r#"{"max-latncy": ["p99=1"]}"#,
        "unknown key \"max-latncy\" (known: expect-tool, forbid-tool, expect-method, max-duration, max-latency, max-errors, allow)",
    );
    refused(
        r#"{"max-errors": -1}"#,
        "\"max-errors\" must be a whole number, not -1",
    );
    refused(
        r#"{"expect-tool": "add"}"#,
        "\"expect-tool\" must be an array of strings, not \"add\"",
    );
    refused(
        r#"{"max-latency": ["p101=5"]}"#,
        "--max-latency \"p101=5\": \"p101\" is not p1…p100 (write pNN=MS[,method=M], e.g. p99=250)",
    );
    refused(
        r#"{"max-duration": "30s"}"#,
        "\"max-duration\" must be a number of seconds, not \"30s\"",
    );
    // A number too large for a duration: refused, not a panic.
    refused(
        r#"{"max-duration": 1e300}"#,
        "\"max-duration\" must be a number of seconds, not 1e+300",
    );
    refused("[1]", "not a JSON object: [1]");
    std::fs::write(&contract, "{").unwrap();
    let (code, _, err) = check(&[f, "--contract", c]);
    assert_eq!(code, 2);
    assert!(
        err.starts_with(&format!(
            "mcp-raw check: contract {c}: not JSON: EOF while parsing"
        )),
        "{err}"
    );
    let (code, _, err) = check(&[f, "--contract", "/nonexistent/contract.json"]);
    assert_eq!(code, 2);
    assert_eq!(
        err,
        "mcp-raw check: cannot read contract /nonexistent/contract.json: No such file or directory (os error 2)\n"
    );

    // A flag's bad value: clap's refusal, exit 2, quoting it.
    for (flag, value, want) in [
        (
            "--max-duration",
            "abc",
            "--max-duration \"abc\": not a number of seconds (e.g. 30 or 2.5)",
        ),
        (
            "--max-latency",
            "p99",
            "--max-latency \"p99\": no '=' in the percentile (write pNN=MS[,method=M], e.g. p99=250)",
        ),
        (
            "--max-latency",
            "p99=5,meth=x",
            "--max-latency \"p99=5,meth=x\": \"meth=x\" is not method=M (once) (write pNN=MS[,method=M], e.g. p99=250)",
        ),
        (
            "--max-duration",
            "1e300",
            "--max-duration \"1e300\": not a number of seconds (e.g. 30 or 2.5)",
        ),
        (
            "--max-latency",
            "p99=1e300",
            "--max-latency \"p99=1e300\": \"1e300\" is not a number of milliseconds",
        ),
        ("--max-errors", "two", "invalid digit found in string"),
    ] {
        let (code, _, err) = check(&[f, flag, value]);
        assert_eq!(code, 2, "{flag} {value}");
        assert!(
            err.contains(&format!("invalid value '{value}' for '{flag}")),
            "{err}"
        );
        assert!(err.contains(want), "{err}");
    }
}

/// A real session, mcp-raw's client and server over stdio (2026-07-28, the client's
/// default era: no initialize): the contract it keeps
/// holds, one it breaks names the call.
#[test]
fn a_real_session_keeps_its_contract() {
    let dir = scratch("real");
    let file = dir.join("client.jsonl");
    record_stdio_session(&file, &["add={\"a\":2,\"b\":3}"]);
    let f = file.to_str().unwrap();
    let (code, out, err) = check(&[
        f,
        "--expect-tool",
        "add",
        "--expect-method",
        "tools/list",
        "--expect-method",
        "tools/call",
        "--max-errors",
        "0",
        "--max-latency",
        "p99=10000",
        "--max-duration",
        "60",
    ]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.ends_with(", 6 contract terms)\n"), "{out}");
    let (code, out, _) = check(&[f, "--forbid-tool", "add", "--format", "json"]);
    assert_eq!(code, 1);
    assert_eq!(
        findings(&out),
        pairs(&[(
            "contract/forbid-tool",
            "tool \"add\" was called (a forbidden tool)"
        )])
    );
}
