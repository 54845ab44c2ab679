//! Server-Sent Events framing (WHATWG HTML "Server-sent events", the format Streamable
//! HTTP uses for `text/event-stream` bodies): an event is `field: value` lines ended by
//! a blank line. MCP puts one JSON-RPC message in each event's `data`.

/// Frames one message as an SSE event: `data: <json>\n\n`. A message holding
/// newlines (pretty JSON) is split over several `data:` lines, which the reader
/// joins back with `\n`.
pub fn encode_event(data: &[u8]) -> Vec<u8> {
    encode(None, None, data)
}

/// An event with an `id:` (what a client resumes from with `Last-Event-ID`) and a
/// `retry:` (milliseconds to wait before reconnecting), when given.
pub fn encode(id: Option<&str>, retry: Option<u64>, data: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(data.len() + 32);
    if let Some(id) = id {
        out.extend_from_slice(format!("id: {id}\n").as_bytes());
    }
    if let Some(ms) = retry {
        out.extend_from_slice(format!("retry: {ms}\n").as_bytes());
    }
    for line in data.split(|b| *b == b'\n') {
        out.extend_from_slice(b"data: ");
        out.extend_from_slice(line);
        out.push(b'\n');
    }
    out.push(b'\n');
    out
}

/// One decoded event.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Event {
    /// `id:` — what a client would send back as `Last-Event-ID` to resume.
    pub id: Option<String>,
    /// `event:` — the type; absent means `message`.
    pub event: Option<String>,
    /// The `data:` lines, joined with `\n`.
    pub data: String,
    /// `retry:` — milliseconds a client waits before reconnecting.
    pub retry: Option<u64>,
}

/// Decodes a whole `text/event-stream` body into its events. Comment lines
/// (`: ...`) and events with no field are skipped, as the WHATWG parser does.
pub fn decode(body: &str) -> Vec<Event> {
    let mut events = Vec::new();
    let mut current = Event::default();
    let mut data_lines: Vec<&str> = Vec::new();
    let mut touched = false;
    for line in body.split('\n').map(|l| l.strip_suffix('\r').unwrap_or(l)) {
        if line.is_empty() {
            if touched {
                current.data = data_lines.join("\n");
                events.push(std::mem::take(&mut current));
                data_lines.clear();
                touched = false;
            }
            continue;
        }
        if line.starts_with(':') {
            continue;
        }
        let (field, value) = match line.split_once(':') {
            Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
            None => (line, ""),
        };
        touched = true;
        match field {
            "data" => data_lines.push(value),
            "id" => current.id = Some(value.to_owned()),
            "event" => current.event = Some(value.to_owned()),
            "retry" => current.retry = value.parse().ok(),
            _ => {}
        }
    }
    events
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_message_one_event() {
        assert_eq!(encode_event(br#"{"a":1}"#), b"data: {\"a\":1}\n\n");
    }

    #[test]
    fn round_trip_with_newlines_and_fields() {
        let mut body = String::from("id: 7\nretry: 100\n: a comment\n");
        body.push_str(std::str::from_utf8(&encode_event(b"line1\nline2")).unwrap());
        body.push_str("data:x\r\n\r\n");
        let events = decode(&body);
        assert_eq!(events.len(), 2);
        assert_eq!(events[0].id.as_deref(), Some("7"));
        assert_eq!(events[0].retry, Some(100));
        assert_eq!(events[0].data, "line1\nline2");
        assert_eq!(events[1].data, "x");
    }
}
