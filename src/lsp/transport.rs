//! JSON-RPC over a byte stream, framed by `Content-Length` headers.
//!
//! `lsp-server` ships a stdio transport, but its reader thread stops at the
//! first body that is not a JSON-RPC message, which would take the whole
//! server down on one bad write by a client. This reader recovers from
//! everything that leaves the stream in a known state: a body that is not
//! JSON, a JSON value that is not a message, a header block without a
//! length, a body over [`MAX_BODY_BYTES`] (scanned for the next header,
//! never buffered or skipped blindly). Each is handed to the run loop
//! as [`Incoming::Invalid`] so it can be answered as JSON-RPC says (a
//! parse error carries a `null` id). Only the stream ending, or failing to
//! read, ends the reader.
//!
//! A frame whose `Content-Length` is wrong leaves the stream out of step:
//! too short, and the rest of its body runs into the next header line; too
//! long, and its body would swallow the next frame's header. Either way the
//! reader finds its way back at the next `Content-Length:` header: a header
//! line is read from where that name starts in it, and a body ends where a
//! raw header line turns up in it, the rest read again as the next frame.
//! One bad frame costs at most that frame, never every one after it, and
//! the reader never waits for a body longer than what was sent.

use std::io::{self, BufRead, BufReader, Read, Write};
use std::thread::JoinHandle;

use crossbeam_channel::{Receiver, Sender};
use lsp_server::{ErrorCode, Message, RequestId};

/// The largest body read. A 4 MiB manifest (the compiler's own limit) is
/// at most about 24 MiB as an escaped JSON string; past this a body is
/// skipped, not buffered.
pub const MAX_BODY_BYTES: usize = 64 * 1024 * 1024;

/// The longest header line kept; longer ones are cut, which at worst makes
/// the header unreadable, never exhausts memory.
const MAX_HEADER_LINE: u64 = 8 * 1024;

/// What the reader hands to the run loop.
#[derive(Debug)]
pub enum Incoming {
    Message(Message),
    /// A frame that was not a message: answered with `code`, under `id`
    /// when the body had a readable one and `null` otherwise.
    Invalid {
        id: Option<RequestId>,
        code: ErrorCode,
        message: String,
    },
}

/// Reads frames from `input` on a thread of its own, so the run loop can
/// look ahead for cancellations and newer edits while it works.
pub fn spawn_reader(input: impl Read + Send + 'static) -> (Receiver<Incoming>, JoinHandle<()>) {
    let (sender, receiver) = crossbeam_channel::unbounded();
    let handle = std::thread::spawn(move || read_all(BufReader::new(input), &sender));
    (receiver, handle)
}

fn read_all(input: impl BufRead, sender: &Sender<Incoming>) {
    let mut input = Resync::new(input);
    loop {
        let incoming = match read_frame(&mut input) {
            Ok(Some(Frame::Body(body))) => {
                let incoming = parse(&body);
                if let Incoming::Invalid {
                    code: ErrorCode::ParseError,
                    ..
                } = incoming
                {
                    // A body too long for its frame: what follows the
                    // header it swallowed is the next frame.
                    if let Some(at) = header_start(&body, 1) {
                        input.push_back(&body[at..]);
                    }
                }
                incoming
            }
            Ok(Some(Frame::Invalid(message))) => Incoming::Invalid {
                id: None,
                code: ErrorCode::InvalidRequest,
                message,
            },
            Ok(None) | Err(_) => return,
        };
        if sender.send(incoming).is_err() {
            return;
        }
    }
}

enum Frame {
    Body(Vec<u8>),
    /// Headers without a usable length, or a body too large to keep.
    Invalid(String),
}

/// One frame, or `None` at the end of the stream.
fn read_frame<R: BufRead>(input: &mut Resync<R>) -> io::Result<Option<Frame>> {
    let mut length: Option<Result<usize, String>> = None;
    let mut saw_header = false;
    loop {
        let mut line = Vec::new();
        let read = input
            .by_ref()
            .take(MAX_HEADER_LINE)
            .read_until(b'\n', &mut line)?;
        if read == 0 {
            return Ok(None);
        }
        // A body too short for its frame leaves its tail in front of the
        // next header: read the line from the header's name.
        let from = header_start(&line, 0).unwrap_or(0);
        let line = String::from_utf8_lossy(&line[from..]);
        let line = line.trim_end_matches(['\r', '\n']);
        if line.is_empty() {
            if saw_header {
                break;
            }
            // Blank lines between frames are tolerated.
            continue;
        }
        saw_header = true;
        if let Some((name, value)) = line.split_once(':') {
            if name.trim().eq_ignore_ascii_case("content-length") {
                length =
                    Some(value.trim().parse::<usize>().map_err(|_| {
                        format!("`Content-Length: {}` is not a length", value.trim())
                    }));
            }
        }
    }
    let length = match length {
        Some(Ok(length)) => length,
        Some(Err(message)) => return Ok(Some(Frame::Invalid(message))),
        None => {
            return Ok(Some(Frame::Invalid(
                "a message without a `Content-Length` header".to_string(),
            )))
        }
    };
    read_body(input, length).map(Some)
}

/// How far back a header line may start before the bytes just read: the
/// longest `Content-Length: N` line that splits across two reads.
const HEADER_OVERLAP: usize = 40;

/// The body of a frame of `length` bytes, read as it comes. A length can
/// be wrong, or huge: when the next frame's header line turns up first
/// (`Content-Length: N` and a line break, which no JSON body holds raw),
/// the body ends there and the header is put back to be read as the next
/// frame, so the reader never waits for bytes that will not come. A body
/// over [`MAX_BODY_BYTES`] is not kept, only scanned.
fn read_body<R: BufRead>(input: &mut Resync<R>, length: usize) -> io::Result<Frame> {
    let keep = length <= MAX_BODY_BYTES;
    let mut body: Vec<u8> = Vec::with_capacity(if keep { length.min(1 << 20) } else { 0 });
    let mut read = 0;
    while read < length {
        let available = input.fill_buf()?;
        if available.is_empty() {
            return Err(io::ErrorKind::UnexpectedEof.into());
        }
        let take = available.len().min(length - read);
        let scan_from = body.len().saturating_sub(HEADER_OVERLAP);
        body.extend_from_slice(&available[..take]);
        input.consume(take);
        read += take;
        if let Some(at) = next_header(&body, scan_from) {
            input.push_back(&body[at..]);
            body.truncate(at);
            return Ok(if keep {
                Frame::Body(body)
            } else {
                too_large(length)
            });
        }
        if !keep {
            let drop = body.len().saturating_sub(HEADER_OVERLAP);
            body.drain(..drop);
        }
    }
    Ok(if keep {
        Frame::Body(body)
    } else {
        too_large(length)
    })
}

fn too_large(length: usize) -> Frame {
    Frame::Invalid(format!(
        "a message of {length} bytes, over the limit of {MAX_BODY_BYTES}"
    ))
}

/// Where a whole `Content-Length: N` header line starts in `bytes`, at
/// `from` or after.
fn next_header(bytes: &[u8], from: usize) -> Option<usize> {
    let mut from = from;
    while let Some(at) = header_start(bytes, from) {
        let value = &bytes[at + "content-length:".len()..];
        let spaces = value
            .iter()
            .take_while(|&&b| b == b' ' || b == b'\t')
            .count();
        let digits = value[spaces..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
        let after = &value[spaces + digits..];
        if digits > 0 && (after.starts_with(b"\r\n") || after.starts_with(b"\n")) {
            return Some(at);
        }
        from = at + 1;
    }
    None
}

/// Where a `Content-Length:` header (any case) starts in `bytes`, at
/// `from` or after.
fn header_start(bytes: &[u8], from: usize) -> Option<usize> {
    const NAME: &[u8] = b"content-length:";
    (from..bytes.len().saturating_sub(NAME.len() - 1))
        .find(|&at| bytes[at..at + NAME.len()].eq_ignore_ascii_case(NAME))
}

/// A buffered reader that bytes can be put back in front of.
struct Resync<R> {
    pending: Vec<u8>,
    at: usize,
    inner: R,
}

impl<R: BufRead> Resync<R> {
    fn new(inner: R) -> Self {
        Resync {
            pending: Vec::new(),
            at: 0,
            inner,
        }
    }

    /// Makes `bytes` the next thing read.
    fn push_back(&mut self, bytes: &[u8]) {
        let mut pending = bytes.to_vec();
        pending.extend_from_slice(&self.pending[self.at..]);
        self.pending = pending;
        self.at = 0;
    }
}

impl<R: BufRead> Read for Resync<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let available = self.fill_buf()?;
        let count = available.len().min(out.len());
        out[..count].copy_from_slice(&available[..count]);
        self.consume(count);
        Ok(count)
    }
}

impl<R: BufRead> BufRead for Resync<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if self.at < self.pending.len() {
            Ok(&self.pending[self.at..])
        } else {
            self.inner.fill_buf()
        }
    }

    fn consume(&mut self, count: usize) {
        if self.at < self.pending.len() {
            self.at += count;
            if self.at >= self.pending.len() {
                self.pending.clear();
                self.at = 0;
            }
        } else {
            self.inner.consume(count);
        }
    }
}

fn parse(body: &[u8]) -> Incoming {
    let value: serde_json::Value = match serde_json::from_slice(body) {
        Ok(value) => value,
        Err(error) => {
            return Incoming::Invalid {
                id: None,
                code: ErrorCode::ParseError,
                message: format!("the message is not JSON: {error}"),
            }
        }
    };
    let id = value
        .get("id")
        .and_then(|id| serde_json::from_value::<RequestId>(id.clone()).ok());
    match serde_json::from_value::<Message>(value) {
        Ok(message) => Incoming::Message(message),
        Err(error) => Incoming::Invalid {
            id,
            code: ErrorCode::InvalidRequest,
            message: format!(
                "the message is not a JSON-RPC request, response or notification: {error}"
            ),
        },
    }
}

/// Writes messages, framed, and flushes each so the client sees it at once.
pub struct Writer {
    output: Box<dyn Write + Send>,
}

impl Writer {
    pub fn new(output: impl Write + Send + 'static) -> Self {
        Writer {
            output: Box::new(output),
        }
    }

    pub fn send(&mut self, message: impl Into<Message>) -> io::Result<()> {
        message.into().write(&mut self.output)?;
        self.output.flush()
    }

    /// An error response to a request whose id could not be read, which
    /// JSON-RPC answers with `"id": null` (a `Message` cannot hold that).
    pub fn send_unidentified_error(&mut self, code: ErrorCode, message: &str) -> io::Result<()> {
        let body = serde_json::json!({
            "jsonrpc": "2.0",
            "id": null,
            "error": { "code": code as i32, "message": message },
        })
        .to_string();
        write!(self.output, "Content-Length: {}\r\n\r\n{body}", body.len())?;
        self.output.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frames(input: &str) -> Vec<Incoming> {
        let (sender, receiver) = crossbeam_channel::unbounded();
        read_all(input.as_bytes(), &sender);
        drop(sender);
        receiver.into_iter().collect()
    }

    fn frame(body: &str) -> String {
        format!("Content-Length: {}\r\n\r\n{body}", body.len())
    }

    #[test]
    fn reads_messages_and_recovers_from_bad_ones() {
        let input = [
            frame(r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"#),
            frame("{not json"),
            frame(r#"{"jsonrpc":"2.0","id":7,"params":{}}"#),
            "X-Garbage: 1\r\n\r\n".to_string(),
            "Content-Length: lots\r\n\r\n".to_string(),
            frame(r#"{"jsonrpc":"2.0","method":"exit"}"#),
        ]
        .concat();
        let got = frames(&input);
        assert_eq!(got.len(), 6);
        assert!(
            matches!(&got[0], Incoming::Message(Message::Request(r)) if r.method == "initialize")
        );
        assert!(matches!(
            &got[1],
            Incoming::Invalid {
                id: None,
                code: ErrorCode::ParseError,
                ..
            }
        ));
        assert!(
            matches!(&got[2], Incoming::Invalid { id: Some(id), code: ErrorCode::InvalidRequest, .. } if *id == RequestId::from(7))
        );
        assert!(matches!(&got[3], Incoming::Invalid { id: None, .. }));
        assert!(matches!(&got[4], Incoming::Invalid { id: None, .. }));
        assert!(
            matches!(&got[5], Incoming::Message(Message::Notification(n)) if n.method == "exit")
        );
    }

    fn is_request(incoming: &Incoming, method: &str) -> bool {
        matches!(incoming, Incoming::Message(Message::Request(r)) if r.method == method)
    }

    #[test]
    fn a_frame_with_a_length_too_short_costs_only_that_frame() {
        let first = r#"{"jsonrpc":"2.0","id":1,"method":"first","params":{}}"#;
        let input = [
            format!("Content-Length: {}\r\n\r\n{first}", first.len() - 10),
            frame(r#"{"jsonrpc":"2.0","id":2,"method":"second","params":{}}"#),
            frame(r#"{"jsonrpc":"2.0","id":3,"method":"third","params":{}}"#),
        ]
        .concat();
        let got = frames(&input);
        assert!(matches!(got[0], Incoming::Invalid { .. }));
        assert!(is_request(&got[1], "second"), "{got:?}");
        assert!(is_request(&got[2], "third"), "{got:?}");
    }

    /// Its body ends where the next frame's header starts, so it is read
    /// as what it holds, and so are the frames after it.
    #[test]
    fn a_frame_with_a_length_too_long_is_cut_at_the_next_header() {
        let first = r#"{"jsonrpc":"2.0","id":1,"method":"first","params":{}}"#;
        let input = [
            format!("Content-Length: {}\r\n\r\n{first}", first.len() + 30),
            frame(r#"{"jsonrpc":"2.0","id":2,"method":"second","params":{}}"#),
            frame(r#"{"jsonrpc":"2.0","id":3,"method":"third","params":{}}"#),
        ]
        .concat();
        let got = frames(&input);
        assert!(is_request(&got[0], "first"), "{got:?}");
        assert!(is_request(&got[1], "second"), "{got:?}");
        assert!(is_request(&got[2], "third"), "{got:?}");
        assert_eq!(got.len(), 3);
    }

    #[test]
    fn a_truncated_stream_ends_the_reader() {
        assert!(frames("Content-Length: 50\r\n\r\n{\"jsonrpc\"").is_empty());
    }

    /// A frame whose length is huge, over the limit or under it, is
    /// answered as invalid and the frames after it are read: the reader
    /// neither skips them as its body nor waits for bytes that never come.
    #[test]
    fn a_huge_length_costs_only_its_frame() {
        for length in [
            "18446744073709551615".to_string(),
            (MAX_BODY_BYTES + 1).to_string(),
            (MAX_BODY_BYTES - 1).to_string(),
        ] {
            let input = [
                format!("Content-Length: {length}\r\n\r\n{{\"jsonrpc\":\"2.0\"}}"),
                frame(r#"{"jsonrpc":"2.0","id":2,"method":"second","params":{}}"#),
                frame(r#"{"jsonrpc":"2.0","id":3,"method":"third","params":{}}"#),
            ]
            .concat();
            let got = frames(&input);
            assert_eq!(got.len(), 3, "{length}: {got:?}");
            assert!(matches!(got[0], Incoming::Invalid { .. }), "{got:?}");
            assert!(is_request(&got[1], "second"), "{got:?}");
            assert!(is_request(&got[2], "third"), "{got:?}");
        }
    }

    /// A body may mention the header in a string: only a raw header line
    /// (a line break, which JSON escapes in strings) ends a body early.
    #[test]
    fn a_body_that_mentions_the_header_is_read_whole() {
        let body = r#"{"jsonrpc":"2.0","id":1,"method":"first","params":{"text":"Content-Length: 12\r\n"}}"#;
        let got = frames(&frame(body));
        assert_eq!(got.len(), 1);
        assert!(is_request(&got[0], "first"), "{got:?}");
    }
}
