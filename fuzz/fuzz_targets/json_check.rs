//! Feeds arbitrary bytes to the frame checker (`jsonrpc::is_json`) and to serde_json,
//! and holds the checker to its one promise: it says yes exactly when serde_json reads
//! the text into a `Value`. A frame it accepts is read where it lies, one it refuses
//! is read by serde_json; so a yes where serde_json says no would let bytes through
//! that every other read refuses, and a no where serde_json says yes would cost only
//! speed, but both are bugs.
//!
//! For text it accepts, also: every member found by hopping along the tape
//! (`jsonrpc::Doc`) is the one the `Value` holds, down to the leaves (the last of a
//! name given twice, as a map keeps it); and `jsonrpc::parse` reads the same message
//! as `jsonrpc::classify` makes of the `Value`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcp_raw_wire::jsonrpc::{self, Doc, Parsed, Raw};
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let value = serde_json::from_str::<Value>(text);
    assert_eq!(
        jsonrpc::is_json(text),
        value.is_ok(),
        "checker and serde_json disagree on {text:?} (serde_json: {value:?})"
    );
    let Ok(value) = value else { return };
    let doc = Doc::parse(text).expect("checked twice, the same answer");
    agree(doc.root(), &value);
    if let Value::Object(_) = value {
        let read = jsonrpc::parse(data);
        let made = jsonrpc::classify(value);
        match (read, made) {
            (Ok(Parsed::One(read)), Ok(made)) => assert_eq!(read, made),
            (Err(read), Err(made)) => assert_eq!(read.to_bytes(), made.to_bytes()),
            (read, made) => panic!("parse: {read:?}; classify: {made:?}"),
        }
    }
});

/// `raw`, read in place, is `value`, member by member.
fn agree(raw: Raw<'_>, value: &Value) {
    assert_eq!(raw.kind(), jsonrpc::kind(value), "{raw:?}");
    assert_eq!(raw.is_object(), value.is_object());
    assert_eq!(raw.is_null(), value.is_null());
    assert_eq!(&raw.to_value(), value, "{raw:?}");
    assert_eq!(raw.as_str().as_deref(), value.as_str(), "{raw:?}");
    match value {
        Value::Object(map) => {
            let mut names = Vec::new();
            for (name, _) in raw.members() {
                let name = name.as_str().into_owned();
                if !names.contains(&name) {
                    names.push(name);
                }
            }
            let keys: Vec<_> = map.keys().cloned().collect();
            assert_eq!(names, keys, "{raw:?}");
            for (key, inner) in map {
                let found = raw.get(key).expect("a member the value has");
                agree(found, inner);
                // A member's text is JSON on its own, and reads as the member did.
                let alone = Doc::parse(found.text()).expect("a member is JSON on its own");
                assert_eq!(&alone.root().to_value(), inner);
            }
        }
        _ => assert_eq!(raw.members().count(), 0),
    }
}
