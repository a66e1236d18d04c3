//! The gRPC server of the bot: one Play stream per match, one `Strategy` per stream.

use std::fs;
use std::future::Future;
use std::marker::PhantomData;
use std::os::unix::fs::PermissionsExt;
use std::panic::{self, AssertUnwindSafe};
use std::time::Duration;

use tokio::net::{TcpListener, UnixListener};
use tokio::signal::unix::{signal, SignalKind};
use tokio::sync::{mpsc, oneshot};
use tokio_stream::wrappers::{ReceiverStream, TcpListenerStream, UnixListenerStream};
use tokio_stream::Stream;
use tonic::transport::server::Connected;
use tonic::transport::Server;
use tonic::{Request, Response, Status, Streaming};

use crate::address::{remove_socket, Address};
use crate::pb::agent_service_server::{AgentService, AgentServiceServer};
use crate::pb::{
    play_request, play_response, Decision, DecisionRequest, MatchStart, PlayRequest, PlayResponse,
    Ready,
};

/// The protocol this bot speaks, answered in `Ready`.
pub const PROTOCOL_VERSION: &str = "cardarena.v1";

/// The bot's name and version, from its Cargo.toml.
pub const BOT_NAME: &str = env!("CARGO_PKG_NAME");
pub const BOT_VERSION: &str = env!("CARGO_PKG_VERSION");

/// How long open streams may go on once SIGTERM or SIGINT arrives.
const GRACE: Duration = Duration::from_secs(1);

/// How a bot plays one match: made from `MatchStart`, asked for each decision.
pub trait Strategy: Send + 'static {
    /// The player of the match that `start` begins.
    fn start(start: &MatchStart) -> Self;

    /// The id of one of `request.legal_actions`.
    fn decide(&mut self, request: &DecisionRequest) -> u32;
}

/// Write one line on stderr, where the arena keeps a bot's log.
pub fn log(message: &str) {
    eprintln!("{BOT_NAME}: {message}");
}

/// The AgentService: each Play stream is played by a new `S`.
struct Agent<S> {
    strategy: PhantomData<fn() -> S>,
}

type Answers = ReceiverStream<Result<PlayResponse, Status>>;

#[tonic::async_trait]
impl<S: Strategy> AgentService for Agent<S> {
    type PlayStream = Answers;

    async fn play(
        &self,
        request: Request<Streaming<PlayRequest>>,
    ) -> Result<Response<Self::PlayStream>, Status> {
        let (answers, stream) = mpsc::channel(4);
        tokio::spawn(play_match::<S>(request.into_inner(), answers));
        Ok(Response::new(ReceiverStream::new(stream)))
    }
}

/// Read the arena's messages of one stream and send back each answer, in lock step.
async fn play_match<S: Strategy>(
    mut messages: Streaming<PlayRequest>,
    answers: mpsc::Sender<Result<PlayResponse, Status>>,
) {
    let mut state = MatchState::<S> { player: None };
    loop {
        let message = match messages.message().await {
            Ok(Some(message)) => message,
            Ok(None) => return,
            Err(status) => {
                log(&format!("the stream broke: {}", status.message()));
                return;
            }
        };
        match answer_or_panic(&mut state, message) {
            Ok(Some(answer)) => {
                if answers.send(Ok(answer)).await.is_err() {
                    return;
                }
            }
            Ok(None) => continue, // MatchEnd: wait for the next match or the end
            Err(status) => {
                log(&format!("ending the stream: {}", status.message()));
                let _ = answers.send(Err(status)).await;
                return;
            }
        }
    }
}

/// The answer to one message; a panic of the strategy ends the stream with INTERNAL naming it
/// (the panic hook has already printed it on stderr).
fn answer_or_panic<S: Strategy>(
    state: &mut MatchState<S>,
    message: PlayRequest,
) -> Result<Option<PlayResponse>, Status> {
    panic::catch_unwind(AssertUnwindSafe(|| state.answer(message))).unwrap_or_else(|panicked| {
        let reason = panicked
            .downcast_ref::<&str>()
            .map(|text| text.to_string())
            .or_else(|| panicked.downcast_ref::<String>().cloned())
            .unwrap_or_default();
        Err(Status::internal(format!(
            "bot {BOT_NAME} panicked: {reason}"
        )))
    })
}

/// One stream's match: no player before `MatchStart`.
struct MatchState<S> {
    player: Option<S>,
}

impl<S: Strategy> MatchState<S> {
    /// The answer to one message; `None` after `MatchEnd` (which ends the match: the stream
    /// may carry the next one), an error status for a bad message.
    fn answer(&mut self, message: PlayRequest) -> Result<Option<PlayResponse>, Status> {
        match message.message {
            Some(play_request::Message::MatchStart(start)) => self.start(&start).map(Some),
            Some(play_request::Message::DecisionRequest(request)) => {
                self.decide(&request).map(Some)
            }
            Some(play_request::Message::MatchEnd(_)) => {
                self.player = None;
                Ok(None)
            }
            None => Err(Status::invalid_argument("an empty PlayRequest")),
        }
    }

    /// Make the player and answer `Ready`.
    fn start(&mut self, start: &MatchStart) -> Result<PlayResponse, Status> {
        if self.player.is_some() {
            return Err(Status::failed_precondition(
                "a second MatchStart on the same stream: one stream plays one match",
            ));
        }
        if start.protocol_version != PROTOCOL_VERSION {
            log(&format!(
                "the arena speaks {:?}, this bot {PROTOCOL_VERSION:?}",
                start.protocol_version
            ));
        }
        self.player = Some(S::start(start));
        Ok(response(play_response::Message::Ready(Ready {
            protocol_version: PROTOCOL_VERSION.to_string(),
            bot_name: BOT_NAME.to_string(),
            bot_version: BOT_VERSION.to_string(),
            keeps_stream: true,
        })))
    }

    /// Ask the player for a decision.
    fn decide(&mut self, request: &DecisionRequest) -> Result<PlayResponse, Status> {
        let player = self
            .player
            .as_mut()
            .ok_or_else(|| Status::failed_precondition("a DecisionRequest before MatchStart"))?;
        let action_id = player.decide(request);
        Ok(response(play_response::Message::Decision(Decision {
            request_id: request.request_id,
            action_id,
            debug: String::new(),
        })))
    }
}

/// A `PlayResponse` holding one message.
fn response(message: play_response::Message) -> PlayResponse {
    PlayResponse {
        message: Some(message),
    }
}

/// Serve the bot at `address` until SIGTERM or SIGINT, then stop and remove the socket.
pub async fn serve<S: Strategy>(address: Address) -> Result<(), String> {
    let mut stop = StopSignals::new()?;
    match address {
        Address::Unix(path) => {
            let listener = UnixListener::bind(&path)
                .map_err(|error| format!("cannot listen on unix:{}: {error}", path.display()))?;
            // Any local user may connect: the socket's folder is what keeps others out.
            let _ = fs::set_permissions(&path, fs::Permissions::from_mode(0o666));
            log(&format!(
                "{BOT_VERSION} listening on unix:{}",
                path.display()
            ));
            let served = run::<S, _, _>(UnixListenerStream::new(listener), stop.wait()).await;
            remove_socket(&path);
            served
        }
        Address::Tcp(target) => {
            let listener = TcpListener::bind(&target)
                .await
                .map_err(|error| format!("cannot listen on {target}: {error}"))?;
            let bound = listener.local_addr().map_err(|error| error.to_string())?;
            log(&format!("{BOT_VERSION} listening on {bound}"));
            run::<S, _, _>(TcpListenerStream::new(listener), stop.wait()).await
        }
    }
}

/// Serve connections from `incoming` until `stopping` ends, then give open streams `GRACE`.
async fn run<S, I, IO>(incoming: I, stopping: impl Future<Output = ()>) -> Result<(), String>
where
    S: Strategy,
    I: Stream<Item = std::io::Result<IO>> + Send + 'static,
    IO: tokio::io::AsyncRead + tokio::io::AsyncWrite + Connected + Unpin + Send + 'static,
{
    let service = AgentServiceServer::new(Agent::<S> {
        strategy: PhantomData,
    });
    let (shutdown, shutdown_requested) = oneshot::channel::<()>();
    let mut server = tokio::spawn(
        Server::builder()
            .add_service(service)
            .serve_with_incoming_shutdown(incoming, async {
                let _ = shutdown_requested.await;
            }),
    );
    tokio::select! {
        finished = &mut server => return server_result(finished),
        () = stopping => {}
    }
    let _ = shutdown.send(());
    match tokio::time::timeout(GRACE, &mut server).await {
        Ok(finished) => server_result(finished),
        Err(_) => {
            server.abort();
            Ok(())
        }
    }
}

/// The server task's outcome as a message.
fn server_result(
    finished: Result<Result<(), tonic::transport::Error>, tokio::task::JoinError>,
) -> Result<(), String> {
    match finished {
        Ok(Ok(())) => Ok(()),
        Ok(Err(error)) => Err(format!("the server failed: {error}")),
        Err(error) => Err(format!("the server task failed: {error}")),
    }
}

/// SIGTERM and SIGINT, the signals that stop the bot.
struct StopSignals {
    terminate: tokio::signal::unix::Signal,
    interrupt: tokio::signal::unix::Signal,
}

impl StopSignals {
    /// Catch both signals from now on.
    fn new() -> Result<Self, String> {
        let catch = |kind| signal(kind).map_err(|error| format!("cannot catch signals: {error}"));
        Ok(Self {
            terminate: catch(SignalKind::terminate())?,
            interrupt: catch(SignalKind::interrupt())?,
        })
    }

    /// Wait for the first of them.
    async fn wait(&mut self) {
        tokio::select! {
            _ = self.terminate.recv() => log("SIGTERM: stopping"),
            _ = self.interrupt.recv() => log("SIGINT: stopping"),
        }
    }
}
