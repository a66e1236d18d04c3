//! A connection to a bot: HTTP/2 (h2) over a Unix socket or TCP, made again when it is lost.

use bytes::Bytes;
use h2::client::SendRequest;
use std::path::PathBuf;
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::{TcpStream, UnixStream};
use tokio::sync::Mutex;

/// How long one attempt to connect (and greet in HTTP/2) may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(20);

/// The most header or trailer metadata h2 decodes before refusing a response outright;
/// below it, ``Limits::max_metadata_bytes`` is checked on what was decoded.
pub const HEADER_LIST_CAP: u32 = 256 * 1024;

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
        Ok(Target::Tcp(address.to_string()))
    }

    /// The HTTP/2 authority of requests: ``localhost`` over a Unix socket (some servers
    /// refuse a socket path as an authority), else the address.
    pub fn authority(&self) -> &str {
        match self {
            Target::Unix(_) => "localhost",
            Target::Tcp(address) => address,
        }
    }
}

trait Io: AsyncRead + AsyncWrite + Unpin + Send {}
impl<T: AsyncRead + AsyncWrite + Unpin + Send> Io for T {}

async fn open(target: &Target) -> std::io::Result<Box<dyn Io>> {
    Ok(match target {
        Target::Unix(path) => Box::new(UnixStream::connect(path).await?),
        Target::Tcp(address) => {
            let stream = TcpStream::connect(address).await?;
            stream.set_nodelay(true)?;
            Box::new(stream)
        }
    })
}

/// Connect once and greet in HTTP/2; the connection runs in a task of its own. The
/// connection is handed out only once the bot has answered a PING: its SETTINGS come first
/// (RFC 9113, 3.4), so its windows are known before any request is written, and a request
/// counts as taken only when the bot's own window let it in, however late its SETTINGS came.
async fn handshake(target: &Target) -> Result<SendRequest<Bytes>, String> {
    let greeted = tokio::time::timeout(CONNECT_TIMEOUT, async {
        let io = open(target).await.map_err(|error| error.to_string())?;
        let (client, mut connection) = h2::client::Builder::new()
            .enable_push(false)
            .max_header_list_size(HEADER_LIST_CAP)
            .handshake::<_, Bytes>(io)
            .await
            .map_err(|error| error.to_string())?;
        let mut ping_pong = connection.ping_pong().ok_or("the connection's PING was taken")?;
        tokio::spawn(async move {
            let _ = connection.await;
        });
        ping_pong.ping(h2::Ping::opaque()).await.map_err(|error| error.to_string())?;
        Ok::<_, String>(client)
    })
    .await;
    greeted.unwrap_or_else(|_| Err("timed out connecting".to_string()))
}

/// A bot's channel: where it listens, the limits, and the connection while it lasts.
pub struct Channel {
    pub target: Target,
    pub limits: Limits,
    client: Mutex<Option<SendRequest<Bytes>>>,
}

impl Channel {
    /// Connect, waiting ``backoff_ms.0`` after the first refusal and up to ``backoff_ms.1``
    /// after later ones, until a connection is made.
    pub async fn connect(target: Target, limits: Limits, backoff_ms: (u64, u64)) -> Channel {
        let mut wait = backoff_ms.0.max(1);
        loop {
            if let Ok(client) = handshake(&target).await {
                return Channel { target, limits, client: Mutex::new(Some(client)) };
            }
            tokio::time::sleep(Duration::from_millis(wait)).await;
            wait = (wait * 8 / 5).min(backoff_ms.1.max(1));
        }
    }

    /// A sender ready for a new stream: the connection's, or a new connection's when it
    /// was lost.
    pub async fn sender(&self) -> Result<SendRequest<Bytes>, String> {
        let current = self.client.lock().await.clone();
        if let Some(current) = current {
            if let Ok(ready) = current.ready().await {
                return Ok(ready);
            }
        }
        let fresh = handshake(&self.target).await?;
        *self.client.lock().await = Some(fresh.clone());
        fresh.ready().await.map_err(|error| error.to_string())
    }
}
