"""The bot server in this process: streams, bot instances, errors and stopping."""

from __future__ import annotations

import itertools
import operator
import os
import random
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import ClassVar

import grpc
import pytest
from cardarena_sdk import Bot, BotServer, MatchInfo, Request
from cardarena_sdk.address import AddressError
from cardarena_sdk.answer import serialize_response
from cardarena_sdk.grpc_server import GrpcServer
from cardarena_sdk.native_server import TRANSPORT_ENV, NativeServer, native_serving
from cardarena_sdk.server import BotSource, _Stream
from cardarena_sdk.status import Code

from arena.games import ActionKind, load_game
from arena.protocol import RequestEncoder
from arena.protocol.v1 import agent_pb2 as pb

from .harness import Conversation, connect, play_match, start_message

Serve = Callable[[BotSource], grpc.Channel]


@pytest.fixture(params=["native", "grpc"])
def serve_bot(tmp_path: Path, request: pytest.FixtureRequest,
              monkeypatch: pytest.MonkeyPatch) -> Iterator[Serve]:
    """Start in-process bot servers on fresh sockets, on each server in turn (the compiled
    transport's and grpc.aio's); stop them and close channels after."""
    if request.param == "native" and not native_serving():
        if os.environ.get("CI") == "true":
            pytest.fail("the compiled transport (wire/) is not installed")
        pytest.skip("the compiled transport (wire/) is not installed")
    monkeypatch.setenv(TRANSPORT_ENV, request.param)
    servers: list[BotServer] = []
    channels: list[grpc.Channel] = []
    counter = itertools.count()

    def start(source: BotSource) -> grpc.Channel:
        """Serve ``source`` and return a ready channel to it."""
        server = BotServer(source, f"unix:{tmp_path}/bot{next(counter)}.sock")
        servers.append(server)
        server.start()
        channels.append(connect(server.address.target))
        return channels[-1]

    try:
        yield start
    finally:
        for channel in channels:
            channel.close()
        for server in servers:
            server.stop(grace=0)


class FirstLegal(Bot):
    """Answers the first legal id and notes how many matches each instance saw."""

    name = "first"
    version = "2.1"
    made: ClassVar[list[FirstLegal]] = []

    def __init__(self) -> None:
        """Count the instance."""
        self.starts = 0
        self.ends: list[pb.MatchEnd] = []
        FirstLegal.made.append(self)

    def on_match_start(self, match: MatchInfo) -> None:
        """Count the match."""
        self.starts += 1

    def act(self, request: Request) -> int:
        """The first legal id, with a long debug note."""
        request.debug = "é" * 2000
        return request.legal_ids[0]

    def on_match_end(self, end: pb.MatchEnd) -> None:
        """Keep the result."""
        self.ends.append(end)


class Broken(Bot):
    """Raises in act from the second request on."""

    name = "broken"

    def act(self, request: Request) -> int:
        """The first legal id once, then a ZeroDivisionError."""
        if request.request_id >= 2:
            return 1 // 0
        return request.legal_ids[0]


def first_request(match_id: str = "m-1") -> tuple[pb.PlayRequest, pb.PlayRequest]:
    """A MatchStart and the first DecisionRequest of seat 0 of a two-seat briscola."""
    game = load_game("briscola", players=2)
    state = game.new_initial_state(4)
    return start_message(game, 0, match_id), RequestEncoder(state, 0).request(1, 1000, 1000)


def test_ready_and_decisions_with_one_bot_per_match(serve_bot: Serve) -> None:
    """Each stream gets a new instance; Ready names the bot; debug is capped at 1 KiB."""
    FirstLegal.made.clear()
    channel = serve_bot(FirstLegal)
    play_match(channel, "briscola", 2, seed=1, bot_seats=[0, 1])
    assert len(FirstLegal.made) == 2
    assert all(bot.starts == 1 and len(bot.ends) == 1 for bot in FirstLegal.made)
    assert FirstLegal.made[0].ends[0].returns
    start, request = first_request()
    stream = Conversation(channel)
    ready = stream.ask(start).ready
    assert (ready.protocol_version, ready.bot_name, ready.bot_version) == ("cardarena.v1",
                                                                           "first", "2.1")
    decision = stream.ask(request).decision
    assert decision.action_id == request.decision_request.legal_actions[0].id
    assert len(decision.debug.encode()) <= 1024 and decision.debug.startswith("éé")
    assert stream.finish() == []


def test_a_stream_carries_matches_in_turn_each_with_a_fresh_bot(serve_bot: Serve) -> None:
    """Ready says keeps_stream; after MatchEnd the same stream takes the next MatchStart, which
    gets a new Bot; the arena's half-close then ends the stream cleanly."""
    FirstLegal.made.clear()
    channel = serve_bot(FirstLegal)
    stream = Conversation(channel)
    end = pb.PlayRequest(match_end=pb.MatchEnd(returns=[1.0, -1.0]))
    for match_id in ("m-1", "m-2"):
        start, request = first_request(match_id)
        ready = stream.ask(start).ready
        assert ready.keeps_stream and ready.bot_name == "first"
        decision = stream.ask(request).decision
        assert decision.action_id == request.decision_request.legal_actions[0].id
        stream.send(end)
    assert stream.finish() == []
    assert len(FirstLegal.made) == 2
    assert [(bot.starts, len(bot.ends)) for bot in FirstLegal.made] == [(1, 1), (1, 1)]


def test_a_shared_instance_plays_every_match(serve_bot: Serve) -> None:
    """A Bot instance given to the server is used for every stream."""
    FirstLegal.made.clear()
    bot = FirstLegal()
    channel = serve_bot(bot)
    play_match(channel, "briscola", 2, seed=2, bot_seats=[0, 1])
    assert FirstLegal.made == [bot] and bot.starts == 2


def test_an_exception_in_act_ends_the_stream_with_internal(
        serve_bot: Serve, capfd: pytest.CaptureFixture[str]) -> None:
    """The status names the bot, the exception and where; the traceback goes to stderr."""
    channel = serve_bot(Broken)
    game = load_game("briscola", players=2)
    state = game.new_initial_state(4)
    stream = Conversation(channel)
    stream.ask(start_message(game, 0))
    encoder = RequestEncoder(state, 0)
    state.apply_action(stream.ask(encoder.request(1, 1000, 1000)).decision.action_id - 1)
    state.apply_action(state.legal_actions()[0])
    with pytest.raises(grpc.RpcError) as error:
        stream.ask(encoder.request(2, 1000, 1000))
    assert error.value.code() == grpc.StatusCode.INTERNAL
    assert error.value.details() == (
        "bot broken raised ZeroDivisionError in act: integer division or modulo by zero")
    assert "Traceback" in capfd.readouterr().err
    start, _ = first_request("m-2")
    again = Conversation(channel)
    assert again.ask(start).WhichOneof("message") == "ready"


@pytest.mark.parametrize("method, where", [("on_match_start", "on_match_start"),
                                           ("__init__", "__init__")])
def test_an_exception_before_ready_ends_the_stream(serve_bot: Serve, method: str,
                                                   where: str) -> None:
    """A bot that cannot start ends the stream with INTERNAL naming the method."""
    def boom(self: Bot, *args: object) -> None:
        """Fail."""
        raise RuntimeError("no tables " + "x" * 2000)

    channel = serve_bot(type("Failing", (Bot,), {"name": "failing", method: boom}))
    with pytest.raises(grpc.RpcError) as error:
        Conversation(channel).ask(first_request()[0])
    assert error.value.code() == grpc.StatusCode.INTERNAL
    details = error.value.details()
    assert details.startswith(f"bot failing raised RuntimeError in {where}: no tables")
    assert len(details) <= 1000


@pytest.mark.parametrize("answer", ["1", None, True, 2**40])
def test_an_answer_that_is_no_action_id_ends_the_stream(serve_bot: Serve, answer: object) -> None:
    """act must return an int that fits an action id."""
    channel = serve_bot(type("Wrong", (Bot,), {"name": "wrong", "act": lambda self, r: answer}))
    start, request = first_request()
    stream = Conversation(channel)
    stream.ask(start)
    with pytest.raises(grpc.RpcError) as error:
        stream.ask(request)
    assert error.value.code() == grpc.StatusCode.INTERNAL
    assert error.value.details().startswith("bot wrong raised TypeError in act: act returned")


def test_an_illegal_id_is_sent_as_is(serve_bot: Serve,
                                     capfd: pytest.CaptureFixture[str]) -> None:
    """The arena judges legality; the bot's log notes the illegal answer."""
    channel = serve_bot(type("Illegal", (Bot,), {"name": "illegal", "act": lambda self, r: 999}))
    start, request = first_request()
    stream = Conversation(channel)
    stream.ask(start)
    assert stream.ask(request).decision.action_id == 999
    assert "answered action 999, which is not legal" in capfd.readouterr().err


def test_out_of_order_messages_are_refused(serve_bot: Serve) -> None:
    """A DecisionRequest before MatchStart, a second MatchStart, or an empty message."""
    channel = serve_bot(FirstLegal)
    start, request = first_request()
    cases = [([request], grpc.StatusCode.FAILED_PRECONDITION, "before MatchStart"),
             ([start, start], grpc.StatusCode.FAILED_PRECONDITION, "a second MatchStart"),
             ([pb.PlayRequest()], grpc.StatusCode.INVALID_ARGUMENT, "an empty PlayRequest")]
    for messages, code, text in cases:
        stream = Conversation(channel)
        for message in messages[:-1]:
            stream.ask(message)
        with pytest.raises(grpc.RpcError) as error:
            stream.ask(messages[-1])
        assert error.value.code() == code and text in error.value.details()


def test_another_protocol_version_still_gets_ready(serve_bot: Serve,
                                                   capfd: pytest.CaptureFixture[str]) -> None:
    """The bot answers Ready with its own version and leaves the decision to the arena."""
    channel = serve_bot(FirstLegal)
    start, _ = first_request()
    start.match_start.protocol_version = "cardarena.v9"
    ready = Conversation(channel).ask(start).ready
    assert ready.protocol_version == "cardarena.v1"
    assert "the arena speaks 'cardarena.v9'" in capfd.readouterr().err


def test_stop_removes_the_socket_and_a_second_server_is_refused(tmp_path: Path) -> None:
    """Two servers cannot share a socket; stopping removes the file."""
    path = tmp_path / "one.sock"
    with BotServer(FirstLegal, f"unix:{path}") as server:
        assert server.bound == f"unix:{path}" and path.exists()
        with pytest.raises(AddressError, match="in use"):
            BotServer(FirstLegal, f"unix:{path}")
    assert not path.exists()


def test_tcp_port_zero_reports_the_bound_port() -> None:
    """Port 0 binds a free port and the server reports it; the port is then taken."""
    with BotServer(FirstLegal, "127.0.0.1:0") as server:
        assert server.bound is not None
        host, port = server.bound.rsplit(":", 1)
        assert host == "127.0.0.1" and int(port) > 0
        with pytest.raises(AddressError, match=f"cannot listen on 127.0.0.1:{port}"):
            BotServer(FirstLegal, server.bound).start()


class Aborted(Exception):
    """What the fake context raises on abort."""


class FakeContext:
    """A servicer context that keeps the status a stream ends with."""

    def __init__(self) -> None:
        """No status yet."""
        self.status: tuple[Code, str] | None = None

    def abort(self, code: Code, details: str) -> None:
        """Keep the status and end the call."""
        self.status = (code, details)
        raise Aborted(details)


class Answers(Bot):
    """Answers the next planned answer and debug note."""

    name = "answers"
    plan: ClassVar[list[tuple[object, object]]] = []

    def act(self, request: Request) -> int:
        """The planned answer (any object); the debug note set unless it is the default."""
        answer, debug = Answers.plan.pop(0)
        if debug != "":
            request.debug = debug  # type: ignore[assignment]
        return answer  # type: ignore[return-value]


class IntLike:
    """An answer that stands for an int, as a numpy integer does."""

    def __index__(self) -> int:
        """Two."""
        return 2


def expected_answer(answer: object, request_id: int, debug: object) -> bytes | str:
    """The bytes the server sent before it wrote them itself, or the status details."""
    try:
        action_id = operator.index(answer)  # type: ignore[arg-type]
        if isinstance(answer, bool):
            raise TypeError("a bool is not an action id")
        text = str(debug)
        data = text.encode()
        if len(data) > 1024:
            text = data[:1024].decode(errors="ignore")
        decision = pb.Decision(request_id=request_id, action_id=action_id, debug=text)
    except (TypeError, ValueError) as exc:
        return (f"bot answers raised TypeError in act: act returned {answer!r}, not a wire "
                f"action id (an int of request.legal_ids): {exc}")
    return pb.PlayResponse(decision=decision).SerializeToString()


def test_decide_answers_as_protobuf_did(capfd: pytest.CaptureFixture[str]) -> None:
    """Bytes, crash details and the illegal-answer log are those of the protobuf answers."""
    start, request = first_request()
    message = request.decision_request
    answers = [1, 2, 3, 999, 0, 2**32 - 1, IntLike(), True, False, None, "1", 1.0, -1,
               2**32, 2**40, ActionKind.PLAY]
    debugs: list[object] = ["", "why", 7, "é" * 2000, "🂡" * 300, "\ud800"]
    for (answer, debug), request_id in itertools.product(itertools.product(answers, debugs),
                                                        [1, 200, 2**40]):
        Answers.plan.append((answer, debug))
        stream = _Stream(Answers, "answers", context := FakeContext())
        assert stream.start(start.match_start).WhichOneof("message") == "ready"
        message.request_id = request_id
        expected = expected_answer(answer, request_id, debug)
        if isinstance(expected, str):
            with pytest.raises(Aborted):
                stream.decide(message)
            assert context.status == (Code.INTERNAL, expected), (answer, debug)
            assert "which is not legal" not in capfd.readouterr().err
            continue
        assert serialize_response(stream.decide(message)) == expected, (answer, debug)
        assert context.status is None
        action_id = pb.PlayResponse.FromString(expected).decision.action_id
        legal = [action.id for action in message.legal_actions]
        log = (f"bot answers answered action {action_id}, which is not legal in request "
               f"{request_id}; legal ids: {legal}")
        assert (log in capfd.readouterr().err) == (action_id not in legal)


def test_random_answers_are_the_same_draws() -> None:
    """A seeded bot drawing from the message plays what it drew from the list before."""
    start, request = first_request()

    class Drawing(Bot):
        """Draws a random legal id."""

        def act(self, request: Request) -> int:
            """One draw."""
            return request.random_action(rng)

    rng = random.Random(3)
    stream = _Stream(Drawing, "drawing", FakeContext())
    stream.start(start.match_start)
    reference = random.Random(3)
    legal = list(request.decision_request.legal_actions)
    for _ in range(200):
        data = stream.decide(request.decision_request)
        expected = reference.choice(legal).id
        assert pb.PlayResponse.FromString(data).decision.action_id == expected
    assert rng.getstate() == reference.getstate()


@pytest.mark.parametrize("transport", ["native", "grpc"])
def test_the_transport_chooses_the_server(transport: str, tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """``CARDARENA_TRANSPORT=grpc`` serves with grpc.aio; otherwise the compiled transport
    serves when it is installed."""
    if transport == "native" and not native_serving():
        if os.environ.get("CI") == "true":
            pytest.fail("the compiled transport (wire/) is not installed")
        pytest.skip("the compiled transport (wire/) is not installed")
    monkeypatch.setenv(TRANSPORT_ENV, transport)
    with BotServer(FirstLegal, f"unix:{tmp_path}/bot.sock") as server:
        kind = NativeServer if transport == "native" else GrpcServer
        assert isinstance(server._server, kind)
        stream = Conversation(connect(server.address.target))
        start, request = first_request()
        assert stream.ask(start).ready.bot_name == "first"
        assert stream.ask(request).decision.action_id == (
            request.decision_request.legal_actions[0].id)
        assert stream.finish() == []
