//! ``cardarena_wire``: the arena's side of its bots' Play streams, compiled.
//!
//! A ``Hub`` belongs to one asyncio event loop. Its channels connect to bots (a Unix socket or
//! ``host:port``) and its streams are Play calls on them, run by h2 on the process's one Tokio
//! thread, which never takes the GIL: the loop writes a request by handing its bytes
//! over (``write``), and learns what happened from ``take_events`` when the hub's eventfd
//! (``fileno``) is readable: responses with the moment they were read, ends of streams with
//! their gRPC status, channels ready, and requests taken by the transport when asked.
//! The arena's Python module ``arena.agents.native`` is the only user; its docstring has the
//! rules (flood limit, stalls, the clock).

mod channel;
mod events;
mod runtime;
mod server;
mod stream;

use bytes::Bytes;
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyTuple};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use tokio::runtime::Runtime;
use tokio::task::{AbortHandle, JoinHandle};

use events::{Event, Events};
use channel::{Channel, Limits, Target};
use server::{serve_connection, Out, Served};
use stream::StreamSlot;

/// The response, end, taken and ready events' kinds, as ``take_events`` gives them.
const RESPONSE: u8 = 0;
const END: u8 = 1;
const TAKEN: u8 = 2;
const READY: u8 = 3;
/// A served stream's opened, request and closed events' kinds.
const OPENED: u8 = 4;
const REQUEST: u8 = 5;
const CLOSED: u8 = 6;

struct ChannelSlot {
    channel: Option<Arc<Channel>>,
    connecting: Option<JoinHandle<()>>,
}

/// One event loop's channels and streams to its bots.
#[pyclass(module = "cardarena_wire")]
struct Hub {
    runtime: Arc<Runtime>,
    events: Arc<Events>,
    channels: HashMap<u64, ChannelSlot>,
    streams: HashMap<u64, StreamSlot>,
    next_id: u64,
    pid: u32,
}

impl Hub {
    fn new_id(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }
}

#[pymethods]
impl Hub {
    #[new]
    fn new() -> PyResult<Self> {
        let runtime = runtime::runtime().map_err(|error| PyOSError::new_err(error.to_string()))?;
        let events = Events::new().map_err(|error| PyOSError::new_err(error.to_string()))?;
        Ok(Hub { runtime, events: Arc::new(events), channels: HashMap::new(),
                 streams: HashMap::new(), next_id: 0, pid: std::process::id() })
    }

    /// The eventfd that is readable when events wait.
    fn fileno(&self) -> i32 {
        self.events.fd()
    }

    /// Start connecting to ``target`` (``unix:PATH`` or ``HOST:PORT``), trying again after
    /// each refusal (``backoff_ms``: the first and the longest wait) until it connects (a
    /// ready event) or the channel is closed; the channel's id.
    fn connect(&mut self, target: &str, max_message_bytes: usize, max_metadata_bytes: u32,
               backoff_ms: (u64, u64)) -> PyResult<u64> {
        let target = Target::parse(target).map_err(PyValueError::new_err)?;
        let id = self.new_id();
        let limits = Limits { max_message_bytes, max_metadata_bytes };
        let events = self.events.clone();
        let connecting = self.runtime.spawn(async move {
            let channel = Channel::connect(target, limits, backoff_ms).await;
            events.push(Event::Ready(id, Ok(Arc::new(channel))));
        });
        self.channels.insert(id, ChannelSlot { channel: None, connecting: Some(connecting) });
        Ok(id)
    }

    /// Keep the connected channel the ready event carried (called by the loop on that event).
    fn adopt(&mut self, channel: u64, connected: &ConnectedChannel) {
        if let Some(slot) = self.channels.get_mut(&channel) {
            slot.channel = Some(connected.0.clone());
            slot.connecting = None;
        }
    }

    /// Open a Play stream on a connected channel; ``unsolicited``: responses it may send
    /// beyond one per request that asks for one before it is stopped as a flood.
    fn open_stream(&mut self, channel: u64, unsolicited: u64) -> PyResult<u64> {
        let slot = self.channels.get(&channel)
            .ok_or_else(|| PyValueError::new_err(format!("no channel {channel}")))?;
        let connected = slot.channel.clone()
            .ok_or_else(|| PyValueError::new_err(format!("channel {channel} is not connected")))?;
        let id = self.new_id();
        let stream = StreamSlot::open(&self.runtime, self.events.clone(), id, connected,
                                      unsolicited);
        self.streams.insert(id, stream);
        Ok(id)
    }

    /// Queue a request's bytes on a stream (``answered``: it asks for one response); False
    /// when the stream takes no more requests.
    fn write(&mut self, stream: u64, data: &[u8], answered: bool) -> bool {
        self.streams.get(&stream).is_some_and(|slot| slot.write(data, answered))
    }

    /// Requests queued on a stream that the transport has not taken yet.
    fn unsent(&self, stream: u64) -> u64 {
        self.streams.get(&stream).map_or(0, StreamSlot::unsent)
    }

    /// Ask for a taken event once every request queued on the stream is taken; True when
    /// they already are (no event then).
    fn watch_taken(&self, stream: u64) -> bool {
        self.streams.get(&stream).is_none_or(StreamSlot::watch_taken)
    }

    /// Half-close a stream: no more requests after those queued.
    fn done_writing(&mut self, stream: u64) {
        if let Some(slot) = self.streams.get_mut(&stream) {
            slot.done_writing();
        }
    }

    /// Stop a stream at once (the bot sees it cancelled); nothing more comes of it.
    fn cancel(&mut self, stream: u64) {
        if let Some(slot) = self.streams.remove(&stream) {
            slot.cancel();
        }
    }

    /// Forget a stream that has ended.
    fn forget(&mut self, stream: u64) {
        self.streams.remove(&stream);
    }

    /// Stop connecting and drop the channel (its streams are the caller's to cancel first).
    fn close_channel(&mut self, channel: u64) {
        if let Some(slot) = self.channels.remove(&channel) {
            if let Some(connecting) = slot.connecting {
                connecting.abort();
            }
        }
    }

    /// Stop every stream and channel (in a forked child, only forget the parent's: their
    /// runtime's threads are not there to stop them).
    fn close(&mut self) {
        if self.pid != std::process::id() {
            std::mem::forget(std::mem::take(&mut self.streams));
            std::mem::forget(std::mem::take(&mut self.channels));
            return;
        }
        for (_, slot) in self.streams.drain() {
            slot.cancel();
        }
        for (_, slot) in self.channels.drain() {
            if let Some(connecting) = slot.connecting {
                connecting.abort();
            }
        }
    }

    /// The events since the last call, oldest first, as ``(kind, id, value, ns, sent_ns)``:
    /// a response (0, stream, bytes, when read, when its request was taken), an end (1,
    /// stream, (code, details, flags), when, 0), requests taken (2, stream, None, when, 0), a
    /// channel ready (3, channel, ConnectedChannel or the error's text, 0, 0).
    fn take_events<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyTuple>>> {
        events_tuples(py, &self.events)
    }
}

/// The events queued, as Python tuples ``(kind, id, value, ns, sent_ns)``.
fn events_tuples<'py>(py: Python<'py>, events: &Events) -> PyResult<Vec<Bound<'py, PyTuple>>> {
    let queued = events.take();
    let mut tuples = Vec::with_capacity(queued.len());
    for event in queued {
        let none = || py.None().into_bound(py);
        let item = match event {
            Event::Response(id, data, ns, sent_ns) =>
                (RESPONSE, id, PyBytes::new(py, &data).into_any(), ns, sent_ns).into_pyobject(py)?,
            Event::End(id, code, details, flags, ns) =>
                (END, id, (code, details, flags).into_pyobject(py)?.into_any(), ns, 0i64)
                    .into_pyobject(py)?,
            Event::Taken(id, ns) => (TAKEN, id, none(), ns, 0i64).into_pyobject(py)?,
            Event::Ready(id, Ok(channel)) =>
                (READY, id, Bound::new(py, ConnectedChannel(channel))?.into_any(), 0i64, 0i64)
                    .into_pyobject(py)?,
            Event::Ready(id, Err(error)) =>
                (READY, id, error.into_pyobject(py)?.into_any(), 0i64, 0i64).into_pyobject(py)?,
            Event::Opened(id) => (OPENED, id, none(), 0i64, 0i64).into_pyobject(py)?,
            Event::Request(id, data) =>
                (REQUEST, id, PyBytes::new(py, &data).into_any(), 0i64, 0i64).into_pyobject(py)?,
            Event::Closed(id, half) =>
                (CLOSED, id, half.into_pyobject(py)?.to_owned().into_any(), 0i64, 0i64)
                    .into_pyobject(py)?,
        };
        tuples.push(item);
    }
    Ok(tuples)
}

impl Drop for Hub {
    fn drop(&mut self) {
        self.close();
    }
}

/// A channel that has connected, as a ready event hands it to the loop.
#[pyclass(module = "cardarena_wire", frozen)]
struct ConnectedChannel(Arc<Channel>);

/// A bot's gRPC server of Play streams: their requests are events, the loop answers.
#[pyclass(module = "cardarena_wire")]
struct Server {
    runtime: Arc<Runtime>,
    events: Arc<Events>,
    served: Arc<Served>,
    accepting: Option<JoinHandle<()>>,
    connections: Arc<Mutex<Vec<AbortHandle>>>,
    pid: u32,
}

impl Server {
    fn accept_with<L, F, T>(&mut self, listener: L, accept: F)
    where
        L: Send + 'static,
        F: Fn(&L) -> std::pin::Pin<Box<dyn std::future::Future<Output = std::io::Result<T>> + Send + '_>>
            + Send + 'static,
        T: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
    {
        let served = self.served.clone();
        let connections = self.connections.clone();
        let runtime = self.runtime.clone();
        self.accepting = Some(self.runtime.spawn(async move {
            while let Ok(io) = accept(&listener).await {
                let task = runtime.spawn(serve_connection(io, served.clone()));
                let mut kept = connections.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
                kept.retain(|handle| !handle.is_finished());
                kept.push(task.abort_handle());
            }
        }));
    }
}

#[pymethods]
impl Server {
    #[new]
    fn new() -> PyResult<Self> {
        let runtime = runtime::runtime().map_err(|error| PyOSError::new_err(error.to_string()))?;
        let events = Arc::new(Events::new().map_err(|error| PyOSError::new_err(error.to_string()))?);
        Ok(Server { runtime, served: Arc::new(Served::new(events.clone())), events,
                    accepting: None, connections: Arc::new(Mutex::new(Vec::new())),
                    pid: std::process::id() })
    }

    /// The eventfd that is readable when events wait.
    fn fileno(&self) -> i32 {
        self.events.fd()
    }

    /// Listen on a Unix socket at ``path`` (which must not exist).
    fn listen_unix(&mut self, path: &str) -> PyResult<()> {
        let listener = std::os::unix::net::UnixListener::bind(path)
            .and_then(|listener| listener.set_nonblocking(true).map(|()| listener))
            .map_err(|error| PyOSError::new_err(format!("cannot listen on unix:{path}: {error}")))?;
        let listener = {
            let _entered = self.runtime.enter();
            tokio::net::UnixListener::from_std(listener)
                .map_err(|error| PyOSError::new_err(error.to_string()))?
        };
        self.accept_with(listener, |listener| Box::pin(async move {
            listener.accept().await.map(|(stream, _)| stream)
        }));
        Ok(())
    }

    /// Listen on TCP at ``address`` (``host:port``, port 0 for any); the port bound.
    fn listen_tcp(&mut self, address: &str) -> PyResult<u16> {
        let listener = std::net::TcpListener::bind(address)
            .and_then(|listener| listener.set_nonblocking(true).map(|()| listener))
            .map_err(|error| PyOSError::new_err(format!("cannot listen on {address}: {error}")))?;
        let port = listener.local_addr().map_err(|error| PyOSError::new_err(error.to_string()))?
            .port();
        let listener = {
            let _entered = self.runtime.enter();
            tokio::net::TcpListener::from_std(listener)
                .map_err(|error| PyOSError::new_err(error.to_string()))?
        };
        self.accept_with(listener, |listener| Box::pin(async move {
            let (stream, _) = listener.accept().await?;
            stream.set_nodelay(true)?;
            Ok(stream)
        }));
        Ok(port)
    }

    /// Send a response's bytes on a stream; False when the stream is gone.
    fn send(&self, stream: u64, data: &[u8]) -> bool {
        self.served.send(stream, Out::Message(Bytes::copy_from_slice(data)))
    }

    /// End a stream with a gRPC status.
    fn finish(&self, stream: u64, code: i32, details: &str) -> bool {
        self.served.send(stream, Out::Finish(code, details.to_string()))
    }

    /// Served streams still open.
    fn open_streams(&self) -> usize {
        self.served.streams.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).len()
    }

    /// Stop taking connections (open ones go on).
    fn stop_listening(&mut self) {
        if let Some(accepting) = self.accepting.take() {
            accepting.abort();
        }
    }

    /// Stop everything: listening, connections and their streams.
    fn close(&mut self) {
        if self.pid != std::process::id() {
            return;
        }
        self.stop_listening();
        for handle in self.connections.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
            .drain(..)
        {
            handle.abort();
        }
    }

    /// The events since the last call, as ``(kind, id, value, 0, 0)``: a stream opened (4,
    /// stream, None), a request (5, stream, bytes), a stream closed (6, stream, True for the
    /// client's half-close, False when it stopped or broke the call).
    fn take_events<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyTuple>>> {
        events_tuples(py, &self.events)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.close();
    }
}

/// The module.
#[pymodule]
fn cardarena_wire(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_class::<Hub>()?;
    module.add_class::<ConnectedChannel>()?;
    module.add_class::<Server>()?;
    module.add("OPENED", OPENED)?;
    module.add("REQUEST", REQUEST)?;
    module.add("CLOSED", CLOSED)?;
    module.add("FLOODED", events::FLOODED)?;
    module.add("OVERSIZED_MESSAGE", events::OVERSIZED_MESSAGE)?;
    module.add("OVERSIZED_METADATA", events::OVERSIZED_METADATA)?;
    module.add("RESPONSE", RESPONSE)?;
    module.add("END", END)?;
    module.add("TAKEN", TAKEN)?;
    module.add("READY", READY)?;
    Ok(())
}
