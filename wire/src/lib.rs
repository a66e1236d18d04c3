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
mod stream;

use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyTuple};
use std::collections::HashMap;
use std::sync::Arc;
use tokio::runtime::Runtime;
use tokio::task::JoinHandle;

use events::{Event, Events};
use channel::{Channel, Limits, Target};
use stream::StreamSlot;

/// The response, end, taken and ready events' kinds, as ``take_events`` gives them.
const RESPONSE: u8 = 0;
const END: u8 = 1;
const TAKEN: u8 = 2;
const READY: u8 = 3;

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

    /// When the transport took the stream's last request taken (0 before the first).
    fn sent_ns(&self, stream: u64) -> i64 {
        self.streams.get(&stream).map_or(0, StreamSlot::sent_ns)
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
        let events = self.events.take();
        let mut taken = Vec::with_capacity(events.len());
        for event in events {
            let item = match event {
                Event::Response(id, data, ns, sent_ns) =>
                    (RESPONSE, id, PyBytes::new(py, &data).into_any(), ns, sent_ns)
                        .into_pyobject(py)?,
                Event::End(id, code, details, flags, ns) =>
                    (END, id, (code, details, flags).into_pyobject(py)?.into_any(), ns, 0i64)
                        .into_pyobject(py)?,
                Event::Taken(id, ns) =>
                    (TAKEN, id, py.None().into_bound(py), ns, 0i64).into_pyobject(py)?,
                Event::Ready(id, Ok(channel)) =>
                    (READY, id, Bound::new(py, ConnectedChannel(channel))?.into_any(), 0i64, 0i64)
                        .into_pyobject(py)?,
                Event::Ready(id, Err(error)) =>
                    (READY, id, error.into_pyobject(py)?.into_any(), 0i64, 0i64)
                        .into_pyobject(py)?,
            };
            taken.push(item);
        }
        Ok(taken)
    }
}

impl Drop for Hub {
    fn drop(&mut self) {
        self.close();
    }
}

/// A channel that has connected, as a ready event hands it to the loop.
#[pyclass(module = "cardarena_wire", frozen)]
struct ConnectedChannel(Arc<Channel>);

/// The module.
#[pymodule]
fn cardarena_wire(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_class::<Hub>()?;
    module.add_class::<ConnectedChannel>()?;
    module.add("FLOODED", events::FLOODED)?;
    module.add("OVERSIZED_MESSAGE", events::OVERSIZED_MESSAGE)?;
    module.add("OVERSIZED_METADATA", events::OVERSIZED_METADATA)?;
    module.add("RESPONSE", RESPONSE)?;
    module.add("END", END)?;
    module.add("TAKEN", TAKEN)?;
    module.add("READY", READY)?;
    Ok(())
}
