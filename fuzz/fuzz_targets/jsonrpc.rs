//! Feeds arbitrary bytes to `jsonrpc::parse`, as one stdio line or HTTP body, and
//! every element of a batch to `jsonrpc::classify`.
//!
//! Must hold: nothing panics; a refusal is `-32700` or `-32600` and its `to_bytes`
//! is a well-formed response (one that re-parses as the same response when it has an
//! id); an accepted message has a string or integer id and object-or-absent params,
//! and its JSON parses back to the same message. And `jsonrpc::parse_lifting` (a
//! server's read, `params._meta` lifted out) agrees with `jsonrpc::parse`: the same
//! refusal, or the same message with `_meta` taken out of its `params`.
#![no_main]

use checks::{check_message, check_refusal};
use libfuzzer_sys::fuzz_target;
use mcp_raw_wire::jsonrpc::{self, Lifted, Message, Notification, Parsed, Request};
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    match (jsonrpc::parse(data), jsonrpc::parse_lifting::<Value>(data)) {
        (Err(plain), Err(lifted)) => assert_eq!(plain.to_bytes(), lifted.to_bytes()),
        (Ok(Parsed::Batch(plain)), Ok(Lifted::Batch(lifted))) => assert_eq!(plain, lifted),
        (Ok(Parsed::One(plain)), Ok(Lifted::One(lifted, meta))) => {
            let mut want = plain.clone();
            let mut want_meta = None;
            if let Message::Request(Request { params, .. })
            | Message::Notification(Notification { params, .. }) = &mut want
                && let Some(p) = params.take()
            {
                let mut p = p.into_value();
                if let Value::Object(m) = &mut p {
                    want_meta = m.shift_remove("_meta");
                }
                *params = Some(p.into());
            }
            assert_eq!(lifted, want);
            if !matches!(plain, Message::Response(_)) {
                assert_eq!(meta, want_meta);
            }
        }
        (plain, lifted) => panic!("parse: {plain:?}; parse_lifting: {lifted:?}"),
    }
    match jsonrpc::parse(data) {
        Err(refusal) => check_refusal(&refusal),
        Ok(Parsed::One(message)) => check_message(&message),
        Ok(Parsed::Batch(items)) => {
            for item in items {
                match jsonrpc::classify(item) {
                    Ok(message) => check_message(&message),
                    Err(refusal) => {
                        // An element is JSON already: only -32600 fits.
                        let code = refusal.outcome.as_ref().err().map(|e| e.code);
                        assert_eq!(code, Some(jsonrpc::code::INVALID_REQUEST));
                        check_refusal(&refusal);
                    }
                }
            }
        }
    }
});
