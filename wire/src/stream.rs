//! Channels to a bot and Play streams on them, on the Tokio side.

use bytes::Bytes;
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::net::UnixStream;
use tokio::runtime::Runtime;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tonic::codec::CompressionEncoding;
use tonic::codegen::http::uri::PathAndQuery;
use tonic::transport::{Channel, Endpoint, Uri};
use tonic::{Code, Status};

use crate::codec::RawCodec;
use crate::events::{now_ns, Event, Events, FLOODED, OVERSIZED_MESSAGE, OVERSIZED_METADATA};

/// The bot's Play method.
const PLAY_METHOD: &str = "/cardarena.v1.AgentService/Play";

/// How long one attempt to connect may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(20);

/// The receive limits of a channel.
#[derive(Clone, Copy)]
pub struct Limits {
    pub max_message_bytes: usize,
    pub max_metadata_bytes: u32,
}

/// Where a bot listens.
pub enum Target {
    Unix(PathBuf),
    Tcp(String),
}

impl Target {
    /// ``unix:PATH`` (or ``unix:///PATH``), else ``HOST:PORT`` (``dns:///`` and ``ipv4:``
    /// prefixes allowed).
    pub fn parse(target: &str) -> Result<Target, String> {
        if let Some(path) = target.strip_prefix("unix://") {
            return Ok(Target::Unix(PathBuf::from(path)));
        }
        if let Some(path) = target.strip_prefix("unix:") {
            return Ok(Target::Unix(PathBuf::from(path)));
        }
        let address = target.trim_start_matches("dns:///").trim_start_matches("ipv4:");
        if address.is_empty() || !address.contains(':') {
            return Err(format!("not a bot address: {target:?} (unix:PATH or HOST:PORT)"));
        }
        Ok(Target::Tcp(format!("http://{address}")))
    }
}

async fn connect_once(target: &Target, limits: Limits) -> Result<Channel, String> {
    let endpoint = match target {
        Target::Unix(_) => Endpoint::from_static("http://localhost"),
        Target::Tcp(uri) => Endpoint::from_shared(uri.clone()).map_err(|error| error.to_string())?,
    }
    .http2_max_header_list_size(limits.max_metadata_bytes)
    .connect_timeout(CONNECT_TIMEOUT);
    let connected = match target {
        Target::Unix(path) => {
            let path = path.clone();
            endpoint.connect_with_connector(tower::service_fn(move |_: Uri| {
                let path = path.clone();
                async move { UnixStream::connect(path).await.map(hyper_util::rt::TokioIo::new) }
            })).await
        }
        Target::Tcp(_) => endpoint.connect().await,
    };
    connected.map_err(|error| error.to_string())
}

/// Connect, waiting ``backoff_ms.0`` after the first refusal and up to ``backoff_ms.1``
/// after later ones, until a connection is made.
pub async fn connect_until_ready(target: &Target, limits: Limits,
                                 backoff_ms: (u64, u64)) -> Result<Channel, String> {
    let mut wait = backoff_ms.0.max(1);
    loop {
        if let Ok(channel) = connect_once(target, limits).await {
            return Ok(channel);
        }
        tokio::time::sleep(Duration::from_millis(wait)).await;
        wait = (wait * 8 / 5).min(backoff_ms.1.max(1));
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

    fn end(&self, code: Code, details: String, flags: u32) {
        self.events.push(Event::End(self.id, code as i32, details, flags, now_ns()));
    }
}

/// The requests of a stream as the transport takes them.
struct Requests {
    queue: mpsc::UnboundedReceiver<Bytes>,
    shared: Arc<Shared>,
}

impl futures_core::Stream for Requests {
    type Item = Bytes;

    fn poll_next(mut self: Pin<&mut Self>, context: &mut Context<'_>) -> Poll<Option<Bytes>> {
        let next = self.queue.poll_recv(context);
        if let Poll::Ready(Some(_)) = next {
            self.shared.note_taken();
        }
        next
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
    pub fn open(runtime: &Runtime, events: Arc<Events>, id: u64, channel: Channel,
                limits: Limits, unsolicited: u64) -> StreamSlot {
        let (sender, queue) = mpsc::unbounded_channel();
        let shared = Arc::new(Shared {
            id, events, queued: AtomicU64::new(0), taken: AtomicU64::new(0),
            sent_ns: AtomicI64::new(0), asked: AtomicU64::new(0), watch: AtomicBool::new(false),
        });
        let requests = Requests { queue, shared: shared.clone() };
        let task = runtime.spawn(play(channel, limits, requests, shared.clone(), unsolicited));
        StreamSlot { sender: Some(sender), task, shared }
    }

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

    pub fn unsent(&self) -> u64 {
        let shared = &self.shared;
        shared.queued.load(Ordering::SeqCst).saturating_sub(shared.taken.load(Ordering::SeqCst))
    }

    pub fn sent_ns(&self) -> i64 {
        self.shared.sent_ns.load(Ordering::SeqCst)
    }

    pub fn watch_taken(&self) -> bool {
        let shared = &self.shared;
        shared.watch.store(true, Ordering::SeqCst);
        if shared.taken.load(Ordering::SeqCst) == shared.queued.load(Ordering::SeqCst) {
            return shared.watch.swap(false, Ordering::SeqCst);
        }
        false
    }

    pub fn done_writing(&mut self) {
        self.sender = None;
    }

    pub fn cancel(self) {
        self.task.abort();
    }
}

/// The flags of a status: a message over the limit, or metadata over it.
fn flags_of(status: &Status) -> u32 {
    let message = status.message();
    if (status.code() == Code::OutOfRange && message.contains("decoded message length too large"))
        || message.contains("size limit, of")
    {
        return OVERSIZED_MESSAGE;
    }
    let mut source: Option<&(dyn std::error::Error + 'static)> = std::error::Error::source(status);
    while let Some(error) = source {
        if let Some(h2) = error.downcast_ref::<h2::Error>() {
            if h2.is_reset() && h2.is_library() && h2.reason() == Some(h2::Reason::PROTOCOL_ERROR)
                && message.contains("protocol error")
            {
                return OVERSIZED_METADATA;
            }
        }
        source = error.source();
    }
    0
}

async fn play(channel: Channel, limits: Limits, requests: Requests, shared: Arc<Shared>,
              unsolicited: u64) {
    let mut grpc = tonic::client::Grpc::new(channel)
        .max_decoding_message_size(limits.max_message_bytes)
        .accept_compressed(CompressionEncoding::Gzip)
        .accept_compressed(CompressionEncoding::Deflate);
    if let Err(error) = grpc.ready().await {
        shared.end(Code::Unavailable, error.to_string(), 0);
        return;
    }
    let path = PathAndQuery::from_static(PLAY_METHOD);
    let response = match grpc.streaming(tonic::Request::new(requests), path, RawCodec).await {
        Ok(response) => response,
        Err(status) => {
            shared.end(status.code(), status.message().to_string(), flags_of(&status));
            return;
        }
    };
    let mut body = response.into_inner();
    let mut received: u64 = 0;
    loop {
        match body.message().await {
            Ok(Some(data)) => {
                let read_ns = now_ns();
                received += 1;
                if received > shared.asked.load(Ordering::SeqCst) + unsolicited {
                    shared.end(Code::Cancelled, String::new(), FLOODED);
                    return;
                }
                let sent_ns = shared.sent_ns.load(Ordering::SeqCst);
                shared.events.push(Event::Response(shared.id, data, read_ns, sent_ns));
            }
            Ok(None) => {
                shared.end(Code::Ok, String::new(), 0);
                return;
            }
            Err(status) => {
                shared.end(status.code(), status.message().to_string(), flags_of(&status));
                return;
            }
        }
    }
}
