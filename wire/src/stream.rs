//! A Play call on a channel, on the Tokio side: requests written as the bot's flow-control
//! window lets them in, responses read, framed and checked against the limits, and the
//! call's end with its gRPC status.

use bytes::{Buf, BufMut, Bytes, BytesMut};
use h2::client::ResponseFuture;
use h2::{RecvStream, SendStream};
use http::{HeaderMap, Request};
use percent_encoding::percent_decode_str;
use std::future::poll_fn;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};
use std::sync::Arc;
use tokio::runtime::Runtime;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use crate::channel::{Channel, Limits};
use crate::events::{now_ns, Event, Events, FLOODED, OVERSIZED_MESSAGE, OVERSIZED_METADATA};

/// The bot's Play method.
const PLAY_PATH: &str = "/cardarena.v1.AgentService/Play";

/// gRPC status codes used here.
const OK: i32 = 0;
const CANCELLED: i32 = 1;
const UNKNOWN: i32 = 2;
const RESOURCE_EXHAUSTED: i32 = 8;
const INTERNAL: i32 = 13;
const UNAVAILABLE: i32 = 14;

/// How a call ended: status code, text and flags.
struct End(i32, String, u32);

impl End {
    fn new(code: i32, details: impl Into<String>) -> End {
        End(code, details.into(), 0)
    }
}

/// What a stream's Python side and its Tokio side share.
struct Shared {
    id: u64,
    events: Arc<Events>,
    queued: AtomicU64,
    taken: AtomicU64,
    sent_ns: AtomicI64,
    asked: AtomicU64,
    watch: AtomicBool,
}

impl Shared {
    fn note_taken(&self) {
        let now = now_ns();
        self.sent_ns.store(now, Ordering::SeqCst);
        let taken = self.taken.fetch_add(1, Ordering::SeqCst) + 1;
        if taken == self.queued.load(Ordering::SeqCst) && self.watch.swap(false, Ordering::SeqCst) {
            self.events.push(Event::Taken(self.id, now));
        }
    }
}

/// One Play stream.
pub struct StreamSlot {
    sender: Option<mpsc::UnboundedSender<Bytes>>,
    task: JoinHandle<()>,
    shared: Arc<Shared>,
}

impl StreamSlot {
    /// Start the call on ``channel``; its responses and its end become events.
    pub fn open(runtime: &Runtime, events: Arc<Events>, id: u64, channel: Arc<Channel>,
                unsolicited: u64) -> StreamSlot {
        let (sender, queue) = mpsc::unbounded_channel();
        let shared = Arc::new(Shared {
            id, events, queued: AtomicU64::new(0), taken: AtomicU64::new(0),
            sent_ns: AtomicI64::new(0), asked: AtomicU64::new(0), watch: AtomicBool::new(false),
        });
        let task = runtime.spawn(play(channel, queue, shared.clone(), unsolicited));
        StreamSlot { sender: Some(sender), task, shared }
    }

    /// Queue a request; False when the call takes no more.
    pub fn write(&self, data: &[u8], answered: bool) -> bool {
        let Some(sender) = self.sender.as_ref() else { return false };
        let shared = &self.shared;
        shared.queued.fetch_add(1, Ordering::SeqCst);
        if answered {
            shared.asked.fetch_add(1, Ordering::SeqCst);
        }
        if sender.send(Bytes::copy_from_slice(data)).is_err() {
            shared.queued.fetch_sub(1, Ordering::SeqCst);
            if answered {
                shared.asked.fetch_sub(1, Ordering::SeqCst);
            }
            return false;
        }
        true
    }

    /// Requests queued and not yet let in by the bot's window.
    pub fn unsent(&self) -> u64 {
        let shared = &self.shared;
        shared.queued.load(Ordering::SeqCst).saturating_sub(shared.taken.load(Ordering::SeqCst))
    }

    /// Ask for a taken event; True (and no event) when nothing is left to take.
    pub fn watch_taken(&self) -> bool {
        let shared = &self.shared;
        shared.watch.store(true, Ordering::SeqCst);
        if shared.taken.load(Ordering::SeqCst) == shared.queued.load(Ordering::SeqCst) {
            return shared.watch.swap(false, Ordering::SeqCst);
        }
        false
    }

    /// No more requests after those queued.
    pub fn done_writing(&mut self) {
        self.sender = None;
    }

    /// Stop the call (the bot sees it reset with CANCEL).
    pub fn cancel(self) {
        self.task.abort();
    }
}

async fn play(channel: Arc<Channel>, queue: mpsc::UnboundedReceiver<Bytes>, shared: Arc<Shared>,
              unsolicited: u64) {
    let End(code, details, flags) = call(&channel, queue, &shared, unsolicited).await;
    shared.events.push(Event::End(shared.id, code, details, flags, now_ns()));
}

async fn call(channel: &Channel, queue: mpsc::UnboundedReceiver<Bytes>, shared: &Shared,
              unsolicited: u64) -> End {
    let mut sender = match channel.sender().await {
        Ok(sender) => sender,
        Err(error) => return End::new(UNAVAILABLE, format!("cannot connect: {error}")),
    };
    let request = Request::post(format!("http://{}{PLAY_PATH}", channel.target.authority()))
        .header("content-type", "application/grpc")
        .header("te", "trailers")
        .header("grpc-accept-encoding", "identity")
        .body(())
        .expect("a well-formed request");
    let (response, send) = match sender.send_request(request, false) {
        Ok(started) => started,
        Err(error) => return h2_end(&error),
    };
    let reading = read(response, channel.limits, shared, unsolicited);
    tokio::pin!(reading);
    tokio::select! {
        end = &mut reading => return end,
        () = write(send, queue, shared) => {}
    }
    reading.await
}

/// Write each request once the bot's window is open, then half-close; stop at an error (the
/// reader says how the call ended).
async fn write(mut send: SendStream<Bytes>, mut queue: mpsc::UnboundedReceiver<Bytes>,
               shared: &Shared) {
    while let Some(message) = queue.recv().await {
        let mut frame = BytesMut::with_capacity(5 + message.len());
        frame.put_u8(0);
        frame.put_u32(message.len() as u32);
        frame.put(message);
        send.reserve_capacity(frame.len());
        while send.capacity() == 0 {
            match poll_fn(|context| send.poll_capacity(context)).await {
                Some(Ok(_)) => {}
                Some(Err(_)) | None => return,
            }
        }
        if send.send_data(frame.freeze(), false).is_err() {
            return;
        }
        shared.note_taken();
    }
    let _ = send.send_data(Bytes::new(), true);
    // Keep the stream's sending half until the call ends: dropping it would reset the call.
    std::future::pending::<()>().await;
}

/// Read the responses, then the status.
async fn read(response: ResponseFuture, limits: Limits, shared: &Shared, unsolicited: u64) -> End {
    let response = match response.await {
        Ok(response) => response,
        Err(error) => return h2_end(&error),
    };
    let (head, mut body) = response.into_parts();
    if let Some(end) = metadata_end(&head.headers, limits, "header") {
        return end;
    }
    if let Some(end) = status_of(&head.headers) {
        return end; // a response of trailers only
    }
    if head.status != http::StatusCode::OK {
        return End::new(UNKNOWN, format!("received HTTP status {}", head.status.as_u16()));
    }
    let mut buffer = BytesMut::new();
    let mut received: u64 = 0;
    loop {
        match body.data().await {
            Some(Ok(chunk)) => {
                let _ = body.flow_control().release_capacity(chunk.len());
                buffer.extend_from_slice(&chunk);
                if let Some(end) = messages(&mut buffer, limits, shared, &mut received, unsolicited) {
                    return end;
                }
            }
            Some(Err(error)) => return h2_end(&error),
            None => break,
        }
    }
    trailers_end(&mut body, limits, !buffer.is_empty()).await
}

/// Hand over every whole message in ``buffer``; the end of a call that broke a limit.
fn messages(buffer: &mut BytesMut, limits: Limits, shared: &Shared, received: &mut u64,
            unsolicited: u64) -> Option<End> {
    while buffer.len() >= 5 {
        let compressed = buffer[0];
        let size = u32::from_be_bytes([buffer[1], buffer[2], buffer[3], buffer[4]]) as usize;
        if size > limits.max_message_bytes {
            return Some(End(RESOURCE_EXHAUSTED, format!(
                "received a message larger than max ({size} vs. {})", limits.max_message_bytes),
                OVERSIZED_MESSAGE));
        }
        if compressed != 0 {
            return Some(End::new(INTERNAL, "received a compressed message; the arena accepts \
                                            identity encoding only"));
        }
        if buffer.len() < 5 + size {
            return None;
        }
        buffer.advance(5);
        let message = buffer.split_to(size).freeze();
        let read_ns = now_ns();
        *received += 1;
        if *received > shared.asked.load(Ordering::SeqCst) + unsolicited {
            return Some(End(CANCELLED, String::new(), FLOODED));
        }
        let sent_ns = shared.sent_ns.load(Ordering::SeqCst);
        shared.events.push(Event::Response(shared.id, message, read_ns, sent_ns));
    }
    None
}

async fn trailers_end(body: &mut RecvStream, limits: Limits, partial: bool) -> End {
    match body.trailers().await {
        Ok(Some(trailers)) => {
            if let Some(end) = metadata_end(&trailers, limits, "trailer") {
                return end;
            }
            if partial {
                return End::new(INTERNAL, "the stream ended in the middle of a message");
            }
            status_of(&trailers)
                .unwrap_or_else(|| End::new(UNKNOWN, "the stream ended without a gRPC status"))
        }
        Ok(None) => End::new(UNKNOWN, "the stream ended without trailers (no gRPC status)"),
        Err(error) => h2_end(&error),
    }
}

/// The end of a call whose header or trailer metadata is over the limit.
fn metadata_end(headers: &HeaderMap, limits: Limits, which: &str) -> Option<End> {
    let size: usize = headers.iter().map(|(name, value)| name.as_str().len() + value.len() + 32)
        .sum();
    if size > limits.max_metadata_bytes as usize {
        return Some(End(RESOURCE_EXHAUSTED, format!(
            "received {which} metadata size {size} exceeds limit ({})", limits.max_metadata_bytes),
            OVERSIZED_METADATA));
    }
    None
}

/// The gRPC status the metadata carries, if any.
fn status_of(headers: &HeaderMap) -> Option<End> {
    let status = headers.get("grpc-status")?;
    let code = status.to_str().ok().and_then(|text| text.trim().parse::<i32>().ok())
        .filter(|code| (0..=16).contains(code))
        .unwrap_or(UNKNOWN);
    let details = headers.get("grpc-message")
        .map(|text| percent_decode_str(&String::from_utf8_lossy(text.as_bytes()))
            .decode_utf8_lossy().into_owned())
        .unwrap_or_default();
    Some(End::new(code, if code == OK { String::new() } else { details }))
}

/// The end of a call that HTTP/2 broke.
fn h2_end(error: &h2::Error) -> End {
    let text = error.to_string();
    match error.reason() {
        Some(h2::Reason::PROTOCOL_ERROR) if error.is_reset() && error.is_library() =>
            // h2 refuses a header block over HEADER_LIST_CAP this way.
            End(RESOURCE_EXHAUSTED, format!("received metadata size over the limit ({text})"),
                OVERSIZED_METADATA),
        Some(h2::Reason::ENHANCE_YOUR_CALM)
            if error.is_library() && text.contains("too_many_continuations") =>
            // A header block spread over more CONTINUATION frames than one under the cap takes.
            End(RESOURCE_EXHAUSTED, format!("received metadata size over the limit ({text})"),
                OVERSIZED_METADATA),
        Some(h2::Reason::REFUSED_STREAM) => End::new(UNAVAILABLE, text),
        Some(h2::Reason::CANCEL) => End::new(CANCELLED, text),
        Some(h2::Reason::ENHANCE_YOUR_CALM) => End::new(RESOURCE_EXHAUSTED, text),
        Some(_) if error.is_reset() || error.is_go_away() => End::new(INTERNAL, text),
        _ => End::new(UNAVAILABLE, text),
    }
}
