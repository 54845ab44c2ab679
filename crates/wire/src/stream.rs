//! A transcript read as a stream: its header line, then one event per line, each
//! read when asked for. Memory holds one line (the largest event's) and no more, so
//! a tool that renders or checks event by event (`show`, `check`) runs in bounded
//! memory on a recording of any size. Errors are [`super::transcript::read`]'s, by
//! line number.

use crate::event::Event;
use crate::transcript::{self, Header};
use std::io::BufRead;

/// The events of one transcript, in order, read from `R` line by line.
pub struct Events<R> {
    /// Where the lines come from.
    input: R,
    /// The line being read (its buffer reused from line to line).
    line: Vec<u8>,
    /// The number of the last line read, from 1, for errors.
    number: usize,
    /// An error was returned: the stream has ended.
    done: bool,
}

/// Opens a transcript: reads its header (the first line that is not blank) and
/// returns it with the events that follow. An input that is not a transcript is
/// refused here, with the line that says so.
pub fn open<R: BufRead>(input: R) -> Result<(Header, Events<R>), String> {
    let mut events = Events {
        input,
        line: Vec::new(),
        number: 0,
        done: false,
    };
    loop {
        match events.next_line()? {
            None => return Err("an empty file is not a transcript".into()),
            Some(text) if text.trim().is_empty() => continue,
            Some(text) => {
                let header = transcript::header_of_line(text)
                    .map_err(|why| format!("line {}: {why}", events.number))?;
                return Ok((header, events));
            }
        }
    }
}

impl<R: BufRead> Events<R> {
    /// The next line as text, or `None` at the end.
    fn next_line(&mut self) -> Result<Option<&str>, String> {
        self.line.clear();
        let n = self
            .input
            .read_until(b'\n', &mut self.line)
            .map_err(|e| format!("after line {}: cannot read on: {e}", self.number))?;
        if n == 0 {
            return Ok(None);
        }
        self.number += 1;
        // The line without its end, as `str::lines` gives it to the whole reader.
        let mut end = self.line.len();
        if self.line[..end].ends_with(b"\n") {
            end -= 1;
            if self.line[..end].ends_with(b"\r") {
                end -= 1;
            }
        }
        std::str::from_utf8(&self.line[..end])
            .map(Some)
            .map_err(|e| transcript::not_utf8(&self.line, e.valid_up_to(), self.number))
    }
}

impl<R: BufRead> Iterator for Events<R> {
    type Item = Result<Event, String>;

    fn next(&mut self) -> Option<Self::Item> {
        while !self.done {
            let number = self.number + 1;
            let read = match self.next_line() {
                Ok(None) => return None,
                Ok(Some(text)) => transcript::event_of_line(text),
                Err(e) => Err(e),
            };
            match read {
                Ok(None) => continue,
                Ok(Some(event)) => return Some(Ok(event)),
                Err(why) => {
                    self.done = true;
                    let why = if why.starts_with("line ") || why.starts_with("after line") {
                        why
                    } else {
                        format!("line {number}: {why}")
                    };
                    return Some(Err(why));
                }
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = "{\"transcript\":\"mcp-raw\",\"version\":4,\"role\":\"client\",\"transport\":\"stdio\",\"started\":\"2026-12-07T00:00:00Z\"}\n\
        {\"t\":0.001,\"lane\":\"stdio\",\"dir\":\"c2s\",\"text\":\"{}\\n\"}\n\
        \n\
        {\"fact\":\"message\",\"t\":0.001,\"lane\":\"stdio\",\"dir\":\"c2s\"}\n\
        {\"t\":0.002,\"lane\":\"stdio\",\"dir\":\"s2c\",\"text\":\"{}\\n\"}\n";

    #[test]
    fn the_stream_reads_what_the_whole_reader_reads() {
        let (header, events) = open(FILE.as_bytes()).unwrap();
        let streamed: Vec<Event> = events.map(Result::unwrap).collect();
        let (whole_header, whole) = transcript::read(FILE).unwrap();
        assert_eq!(header.role, whole_header.role);
        assert_eq!(streamed, whole);
        assert_eq!(streamed.len(), 2);
    }

    #[test]
    fn errors_name_their_line_as_the_whole_reader_does() {
        for bad in [
            format!("{FILE}not json\n"),
            format!("{FILE}{{\"t\":-1,\"lane\":\"stdio\",\"dir\":\"c2s\",\"text\":\"x\"}}\n"),
        ] {
            let (_, events) = open(bad.as_bytes()).unwrap();
            let err = events.filter_map(Result::err).next().unwrap();
            assert_eq!(err, transcript::read(&bad).unwrap_err());
        }
        let mut bytes = FILE.as_bytes().to_vec();
        bytes.extend_from_slice(
            b"{\"t\":0.003,\"lane\":\"stdio\",\"dir\":\"c2s\",\"text\":\"\xff\"}\n",
        );
        let (_, events) = open(&bytes[..]).unwrap();
        let err = events.filter_map(Result::err).next().unwrap();
        assert_eq!(err, transcript::read_bytes(&bytes).unwrap_err());
        assert_eq!(
            open(&b""[..]).err().unwrap(),
            "an empty file is not a transcript"
        );
    }
}
