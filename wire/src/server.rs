//! The bot's side of Play streams, served over HTTP/2 (h2) on the Tokio thread: each stream's
//! requests become events, and the event loop answers with ``send`` and ends the call with
//! ``finish`` (its gRPC status).

use bytes::{Buf, BufMut, Bytes, BytesMut};
use h2::server::SendResponse;
use h2::{RecvStream, SendStream};
use http::{HeaderMap, HeaderValue, Request, Response};
use percent_encoding::{utf8_percent_encode, AsciiSet, CONTROLS};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::mpsc;

use crate::events::{Event, Events};

/// The bot's Play method.
const PLAY_PATH: &str = "/cardarena.v1.AgentService/Play";

/// The largest request a bot takes (gRPC's default receive limit).
const MAX_REQUEST_BYTES: usize = 4 * 1024 * 1024;

/// Characters a ``grpc-message`` percent-encodes: controls, ``%`` and non-ASCII.
const MESSAGE_ESCAPES: &AsciiSet = &CONTROLS.add(b'%');

const UNIMPLEMENTED: i32 = 12;
const RESOURCE_EXHAUSTED: i32 = 8;
const INTERNAL: i32 = 13;

/// What the loop sends down a served stream.
pub enum Out {
    Message(Bytes),
    Finish(i32, String),
}

/// What a server's streams share.
pub struct Served {
    pub events: Arc<Events>,
    pub streams: Mutex<HashMap<u64, mpsc::UnboundedSender<Out>>>,
    next_id: AtomicU64,
}

impl Served {
    pub fn new(events: Arc<Events>) -> Served {
        Served { events, streams: Mutex::new(HashMap::new()), next_id: AtomicU64::new(0) }
    }

    fn streams(&self) -> std::sync::MutexGuard<'_, HashMap<u64, mpsc::UnboundedSender<Out>>> {
        self.streams.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Hand ``out`` to a stream; False when it is gone.
    pub fn send(&self, stream: u64, out: Out) -> bool {
        self.streams().get(&stream).is_some_and(|sender| sender.send(out).is_ok())
    }
}

/// Serve the Play streams of one connection until it closes.
pub async fn serve_connection<T: AsyncRead + AsyncWrite + Unpin + Send + 'static>(io: T,
                                                                               served: Arc<Served>) {
    let Ok(mut connection) = h2::server::handshake(io).await else { return };
    while let Some(accepted) = connection.accept().await {
        let Ok((request, respond)) = accepted else { break };
        tokio::spawn(serve_stream(request, respond, served.clone()));
    }
}

fn status_headers(code: i32, details: &str) -> HeaderMap {
    let mut headers = HeaderMap::new();
    headers.insert("grpc-status", HeaderValue::from(code));
    if !details.is_empty() {
        let encoded = utf8_percent_encode(details, MESSAGE_ESCAPES).to_string();
        if let Ok(value) = HeaderValue::from_str(&encoded) {
            headers.insert("grpc-message", value);
        }
    }
    headers
}

fn response_head(trailers_only: Option<(i32, &str)>) -> Response<()> {
    let mut response = Response::new(());
    let headers = response.headers_mut();
    headers.insert("content-type", HeaderValue::from_static("application/grpc"));
    if let Some((code, details)) = trailers_only {
        headers.extend(status_headers(code, details));
    }
    response
}

/// End a call: trailers after its responses, or a response of trailers only.
fn finish(respond: &mut SendResponse<Bytes>, send: Option<&mut SendStream<Bytes>>, code: i32,
          details: &str) {
    match send {
        Some(send) => {
            let _ = send.send_trailers(status_headers(code, details));
        }
        None => {
            let _ = respond.send_response(response_head(Some((code, details))), true);
        }
    }
}

async fn serve_stream(request: Request<RecvStream>, mut respond: SendResponse<Bytes>,
                      served: Arc<Served>) {
    if request.uri().path() != PLAY_PATH {
        finish(&mut respond, None, UNIMPLEMENTED, &format!("no method {}", request.uri().path()));
        return;
    }
    let id = served.next_id.fetch_add(1, Ordering::SeqCst) + 1;
    let (sender, mut outgoing) = mpsc::unbounded_channel();
    served.streams().insert(id, sender);
    served.events.push(Event::Opened(id));
    let mut body = request.into_body();
    let mut buffer = BytesMut::new();
    let mut send: Option<SendStream<Bytes>> = None;
    let mut reading = true;
    loop {
        tokio::select! {
            chunk = body.data(), if reading => match chunk {
                Some(Ok(data)) => {
                    let _ = body.flow_control().release_capacity(data.len());
                    buffer.extend_from_slice(&data);
                    if let Some((code, details)) = requests(&mut buffer, id, &served.events) {
                        finish(&mut respond, send.as_mut(), code, &details);
                        served.events.push(Event::Closed(id, false));
                        break;
                    }
                }
                Some(Err(_)) => {
                    served.events.push(Event::Closed(id, false));
                    break;
                }
                None => {
                    reading = false;
                    served.events.push(Event::Closed(id, true));
                }
            },
            out = outgoing.recv() => match out {
                Some(Out::Message(message)) => {
                    if send.is_none() {
                        match respond.send_response(response_head(None), false) {
                            Ok(stream) => send = Some(stream),
                            Err(_) => break,
                        }
                    }
                    let mut frame = BytesMut::with_capacity(5 + message.len());
                    frame.put_u8(0);
                    frame.put_u32(message.len() as u32);
                    frame.put(message);
                    if let Some(stream) = send.as_mut() {
                        if stream.send_data(frame.freeze(), false).is_err() {
                            break;
                        }
                    }
                }
                Some(Out::Finish(code, details)) => {
                    finish(&mut respond, send.as_mut(), code, &details);
                    break;
                }
                None => break,
            },
        }
    }
    served.streams().remove(&id);
}

/// Hand over every whole request in ``buffer``; the status of a call that broke the rules.
fn requests(buffer: &mut BytesMut, id: u64, events: &Events) -> Option<(i32, String)> {
    while buffer.len() >= 5 {
        let compressed = buffer[0];
        let size = u32::from_be_bytes([buffer[1], buffer[2], buffer[3], buffer[4]]) as usize;
        if size > MAX_REQUEST_BYTES {
            return Some((RESOURCE_EXHAUSTED, format!(
                "received message larger than max ({size} vs. {MAX_REQUEST_BYTES})")));
        }
        if compressed != 0 {
            return Some((INTERNAL, "compressed requests are not accepted".to_string()));
        }
        if buffer.len() < 5 + size {
            return None;
        }
        buffer.advance(5);
        events.push(Event::Request(id, buffer.split_to(size).freeze()));
    }
    None
}
