//! I/O objects that record what passes through them: [`Recorded`] wraps an async
//! byte stream (a TCP socket under hyper, server side or client side), [`ReadTap`]
//! and [`WriteTap`] wrap a blocking pipe (the stdio server's stdin and stdout). Each
//! read or write becomes one [`What::Bytes`](super::event::What) event with exactly
//! the bytes that moved, so the events concatenated are the stream.

use super::event::{Dir, Lane, What};
use super::recorder::Recorder;
use bytes::Bytes;
use std::io::{self, IoSlice};
use std::pin::Pin;
use std::task::{Context, Poll};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// An async stream whose reads and writes are recorded on one lane.
pub struct Recorded<I> {
    inner: I,
    /// Where the events go.
    recorder: Recorder,
    /// This connection's lane.
    lane: Lane,
    /// The direction of what this side reads (a server reads `ToServer` bytes, a
    /// client reads `ToClient` ones); writes go the other way.
    reads: Dir,
    /// Set once EOF was read, so the close is recorded once.
    read_closed: bool,
    /// Set once the write side was shut down.
    write_closed: bool,
}

impl<I> Recorded<I> {
    /// Wraps `inner`, recording its opening when `opened` says who is on the other
    /// end (`None` for a second pipe of a lane already open).
    pub fn new(
        inner: I,
        recorder: Recorder,
        lane: Lane,
        reads: Dir,
        opened: Option<String>,
    ) -> Self {
        if let Some(peer) = opened {
            recorder.emit(lane, reads, What::Open(peer));
        }
        Recorded {
            inner,
            recorder,
            lane,
            reads,
            read_closed: false,
            write_closed: false,
        }
    }

    /// For a one-way pipe that is only read (a child's stdout or stderr): it has no
    /// write direction to record the end of.
    pub fn reading_only(mut self) -> Self {
        self.write_closed = true;
        self
    }

    /// For a one-way pipe that is only written (a child's stdin).
    pub fn writing_only(mut self) -> Self {
        self.read_closed = true;
        self
    }

    fn writes(&self) -> Dir {
        match self.reads {
            Dir::ToServer => Dir::ToClient,
            Dir::ToClient => Dir::ToServer,
        }
    }
}

impl<I: AsyncRead + Unpin> AsyncRead for Recorded<I> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        let polled = Pin::new(&mut this.inner).poll_read(cx, buf);
        match &polled {
            Poll::Ready(Ok(())) if buf.filled().len() > before => {
                this.recorder
                    .bytes(this.lane, this.reads, &buf.filled()[before..]);
            }
            Poll::Ready(Ok(())) if !this.read_closed => {
                this.read_closed = true;
                this.recorder
                    .emit(this.lane, this.reads, What::Close("EOF".into()));
            }
            Poll::Ready(Err(e)) if !this.read_closed => {
                this.read_closed = true;
                this.recorder.emit(
                    this.lane,
                    this.reads,
                    What::Close(format!("read error: {e}")),
                );
            }
            _ => {}
        }
        polled
    }
}

impl<I: AsyncWrite + Unpin> AsyncWrite for Recorded<I> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let (lane, dir) = (this.lane, this.writes());
        let inner = &mut this.inner;
        this.recorder.write(lane, dir, || {
            let polled = Pin::new(inner).poll_write(cx, buf);
            let written = match &polled {
                Poll::Ready(Ok(n)) => Some(Bytes::copy_from_slice(&buf[..*n])),
                _ => None,
            };
            (polled, written)
        })
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let (lane, dir) = (this.lane, this.writes());
        let inner = &mut this.inner;
        this.recorder.write(lane, dir, || {
            let polled = Pin::new(inner).poll_write_vectored(cx, bufs);
            let written = match &polled {
                // One event for one write: the first `n` bytes across the slices.
                Poll::Ready(Ok(n)) => {
                    let mut written = Vec::with_capacity(*n);
                    for b in bufs {
                        let take = (n - written.len()).min(b.len());
                        written.extend_from_slice(&b[..take]);
                        if written.len() == *n {
                            break;
                        }
                    }
                    Some(Bytes::from(written))
                }
                _ => None,
            };
            (polled, written)
        })
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let polled = Pin::new(&mut this.inner).poll_shutdown(cx);
        if let Poll::Ready(Ok(())) = polled
            && !this.write_closed
        {
            this.write_closed = true;
            this.recorder
                .emit(this.lane, this.writes(), What::Close("shutdown".into()));
        }
        polled
    }
}

/// A stream dropped with a direction still open (a reset, a timeout, the end of the
/// program) records that direction's end too, so every lane a recording opens is
/// closed in it, and the views forget it.
impl<I> Drop for Recorded<I> {
    fn drop(&mut self) {
        if !self.read_closed {
            self.recorder
                .emit(self.lane, self.reads, What::Close("dropped".into()));
        }
        if !self.write_closed {
            let writes = self.writes();
            self.recorder
                .emit(self.lane, writes, What::Close("dropped".into()));
        }
    }
}

/// A blocking reader whose reads are recorded (the stdio server's stdin).
pub struct ReadTap<R> {
    /// The pipe read from.
    pub inner: R,
    /// Where each read goes as an event.
    pub recorder: Recorder,
    /// The pipe's lane.
    pub lane: Lane,
    /// Which way what is read travels (stdin: `ToServer`).
    pub dir: Dir,
}

impl<R: io::Read> io::Read for ReadTap<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        if n == 0 {
            self.recorder
                .emit(self.lane, self.dir, What::Close("EOF".into()));
        }
        self.recorder.bytes(self.lane, self.dir, &buf[..n]);
        Ok(n)
    }
}

/// A blocking writer whose writes are recorded (the stdio server's stdout).
pub struct WriteTap<W> {
    /// The pipe written to.
    pub inner: W,
    /// Where each write goes as an event.
    pub recorder: Recorder,
    /// The pipe's lane.
    pub lane: Lane,
    /// Which way what is written travels (stdout: `ToClient`).
    pub dir: Dir,
}

impl<W: io::Write> io::Write for WriteTap<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let inner = &mut self.inner;
        self.recorder.write(self.lane, self.dir, || {
            let result = inner.write(buf);
            let written = match &result {
                Ok(n) => Some(Bytes::copy_from_slice(&buf[..*n])),
                Err(_) => None,
            };
            (result, written)
        })
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::LaneKind;
    use crate::recorder::Memory;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    /// Bytes both ways become events with exactly those bytes; a stream dropped
    /// without a shutdown still records the end of both directions.
    #[tokio::test]
    async fn every_byte_recorded_and_every_direction_closed() {
        let memory = Memory::default();
        let recorder = Recorder::new(vec![Box::new(memory.clone())]);
        let lane = recorder.lane(LaneKind::Http);
        let (ours, mut theirs) = tokio::io::duplex(64);
        let mut io = Recorded::new(ours, recorder, lane, Dir::ToServer, Some("test".into()));
        theirs.write_all(b"GET / HTTP/1.1\r\n\r\n").await.unwrap();
        let mut buf = [0u8; 64];
        let n = io.read(&mut buf).await.unwrap();
        io.write_all(b"HTTP/1.1 204 No Content\r\n\r\n")
            .await
            .unwrap();
        assert_eq!(memory.bytes(lane, Dir::ToServer), &buf[..n]);
        assert_eq!(
            memory.bytes(lane, Dir::ToClient),
            b"HTTP/1.1 204 No Content\r\n\r\n"
        );
        drop(io);
        let closes: Vec<Dir> = memory
            .events()
            .iter()
            .filter(|e| matches!(e.what, What::Close(_)))
            .map(|e| e.dir)
            .collect();
        assert_eq!(closes, vec![Dir::ToServer, Dir::ToClient]);
    }
}
