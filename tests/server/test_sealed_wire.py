"""Sealed deals over the wire: while a league runs on ``arena serve``, nothing a bot or a user
can see (the bot's MatchStart and DecisionRequests, API replies, live watching, web pages, the
command line, the service's log) holds a deal seed, the league's secret or a hidden card, and
no seed can be worked out from it; once a match is over its whole deal is shown.

A spy bot (``bots/wirespy``) keeps every message it is sent and holds its second answer until
the test has looked at everything, so the look happens while a match is running.
"""

from __future__ import annotations

import base64
import hashlib
import itertools
import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import grpc
import pytest
from google.protobuf.json_format import MessageToJson
from sqlalchemy import select, update

from arena.games import State, load_game
from arena.league.create import LeagueSettings, create_league
from arena.league.schedule import deal_seed, seed_key
from arena.match.timecontrol import TimeControl
from arena.protocol.v1 import agent_pb2
from arena.protocol.v1 import arena_pb2 as pb
from arena.server.remote import RemoteArena, RemoteError
from arena.store import Bot, BotVersion, League, Match, MatchStatus, User, open_store
from arena.store.models import LiveDeal
from tests.interrupts import default_sigint

SPY = Path(__file__).parent / "bots" / "wirespy" / "bot.py"
LEAGUE = "sealed"
DEADLINE_S = 180.0
DEALS = 2
"""Deals per table: two matches, so one is running while the other waits."""


def free_port() -> int:
    """A TCP port free right now on localhost."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def wait_for(condition: object, what: str, deadline_s: float = DEADLINE_S) -> None:
    """Poll ``condition()`` until it is true (fail at the deadline, naming ``what``)."""
    deadline = time.monotonic() + deadline_s
    while not condition():  # type: ignore[operator]
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


@dataclass
class Seen:
    """Everything a bot or a user was shown, by where it was seen."""

    texts: dict[str, str] = field(default_factory=dict)

    def add(self, where: str, text: str) -> None:
        """Keep one thing seen."""
        self.texts[where] = self.texts.get(where, "") + text + "\n"

    def everything(self) -> str:
        """All of it, as one text."""
        return "\n".join(self.texts.values())


@dataclass
class Served:
    """``arena serve`` over a store holding the spy's league, and two users' clients."""

    url: str
    out: Path
    web: str
    grpc: str
    alice: RemoteArena
    bob: RemoteArena
    tokens: dict[str, str]
    logs: Path


def spy_folder(folder: Path, out: Path) -> Path:
    """A bot folder running the wire spy as a process, its messages kept in ``out``."""
    folder.mkdir(parents=True)
    out.mkdir(parents=True)
    command = [sys.executable, str(SPY), "--out", str(out)]
    (folder / "bot.toml").write_text(
        f'name = "wirespy"\nversion = "1.0.0"\nlanguage = "python"\n'
        f'command = {json.dumps(command)}\ngames = ["briscola"]\n', encoding="utf-8")
    return folder


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    """A league between the spy and the heuristic policy (made secret, live), served with its
    web pages; alice owns the spy, bob is anyone else."""
    out = tmp_path / "seen"
    folder = spy_folder(tmp_path / "wirespy", out)
    url = f"sqlite:///{tmp_path / 'arena.db'}"
    with open_store(url) as store:
        create_league(store, LEAGUE, [str(folder), "heuristic"], ["briscola"], deals=DEALS,
                      settings=LeagueSettings(TimeControl(decision_ms=120_000, bank_ms=0),
                                              live=True))
    port, web_port = free_port(), free_port()
    logs = tmp_path / "serve.log"
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path), "COLUMNS": "200"}
    with logs.open("w") as log:
        server = subprocess.Popen(
            [sys.executable, "-c", "from arena.cli import app; app()", "serve", "--db", url,
             "--grpc-port", str(port), "--web-port", str(web_port), "--workers", "1",
             "--data", str(tmp_path / "data")],
            env=env, stdout=log, stderr=subprocess.STDOUT, preexec_fn=default_sigint)
    address = f"127.0.0.1:{port}"
    clients: list[RemoteArena] = []
    try:
        tokens = {}
        for name in ("alice", "bob"):
            tokens[name] = register(address, name, server)
            clients.append(RemoteArena(address, tokens[name]))
        with open_store(url) as store, store.session() as session:
            alice_id = session.scalars(select(User.id).where(User.name == "alice")).one()
            session.execute(update(Bot).where(Bot.name == "wirespy").values(owner_id=alice_id))
            session.commit()
        web = f"http://127.0.0.1:{web_port}"
        wait_for(lambda: fetch(web + "/leagues", allow_error=True) is not None, "the web pages")
        yield Served(url, out, web, address, clients[0], clients[1], tokens, logs)
    finally:
        (out / "release").touch()
        for client in clients:
            client.close()
        server.send_signal(signal.SIGINT)
        server.wait(timeout=120)


def register(address: str, name: str, server: subprocess.Popen[bytes]) -> str:
    """Register a user once the service answers; its token."""
    deadline = time.monotonic() + 60
    with RemoteArena(address) as anonymous:
        while True:
            try:
                token: str = anonymous.call("RegisterUser",
                                            pb.RegisterUserRequest(name=name)).token
                return token
            except RemoteError:
                assert server.poll() is None, "arena serve stopped"
                assert time.monotonic() < deadline, "arena serve never answered"
                time.sleep(0.2)


def fetch(url: str, allow_error: bool = False) -> str | None:
    """A page's HTML (None when the server does not answer yet and ``allow_error``)."""
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            text: str = response.read().decode()
            return text
    except (urllib.error.URLError, ConnectionError):
        if allow_error:
            return None
        raise


def matches(url: str) -> list[Match]:
    """The league's match rows in schedule order (as the operator reads them)."""
    with open_store(url) as store, store.session() as session:
        rows = list(session.scalars(select(Match).order_by(Match.position)))
        session.commit()
        return rows


def spy_version(url: str) -> int:
    """The spy's bot version id."""
    with open_store(url) as store, store.session() as session:
        version: int = session.scalars(select(BotVersion.id).join(Bot).where(
            Bot.name == "wirespy")).one()
        session.commit()
        return version


def watch_until_play(client: RemoteArena, match_id: str, as_bot: str = ""
                     ) -> list[pb.WatchMatchResponse]:
    """The updates of a running match until its first PLAY event (the stream then closed)."""
    got: list[pb.WatchMatchResponse] = []
    calls = client.stub.WatchMatch(pb.WatchMatchRequest(match_id=match_id, as_bot=as_bot),
                                   metadata=client.metadata(), timeout=60)
    for update_ in calls:
        got.append(update_)
        if update_.WhichOneof("update") == "event" and update_.event.kind == "PLAY":
            break
    calls.cancel()
    return got


def hidden_cards(url: str, match: Match, entrant: int | None) -> dict[int, set[int]]:
    """Per deal in play, the cards a viewer may not see now: every card neither played nor
    the face-up trump, nor in the hand of ``entrant``'s seat (None: a spectator)."""
    with open_store(url) as store, store.session() as session:
        live = {row.deal: list(row.actions) for row in session.scalars(
            select(LiveDeal).where(LiveDeal.match_id == match.id))}
        session.commit()
    assert live, "the running match wrote no live deal"
    hidden = {}
    for rotation, actions in live.items():
        state: State = load_game("briscola", 2).new_initial_state(match.seed)
        for action in actions:
            state.apply_action(action)
        shown = {card for event in state.events_since(0, 0) if event.kind.name == "PLAY"
                 for card in event.cards}
        shown.add(state.observation(0).trump_card)
        if entrant is not None:
            shown |= set(state.observation((entrant + rotation) % 2).hand)
        hidden[rotation] = set(range(40)) - shown
    return hidden


def assert_public_plays_only(html: str, url: str, running: Match | None) -> None:
    """A match page draws no card but, for a match in play, the public cards of each deal in
    play (its section ``data-live-deal``): no card hidden from a spectator."""
    sections = html.split('data-live-deal="')
    assert not re.findall(r'data-card="([^"]+)"', sections[0])
    if running is None:
        assert len(sections) == 1
        return
    deck = load_game("briscola", 2).deck
    hidden = hidden_cards(url, running, None)
    for section in sections[1:]:
        deal = int(section.split('"', 1)[0])
        drawn = set(re.findall(r'data-card="([^"]+)"', section))
        assert not drawn & {deck.short(card) for card in hidden[deal]}, deal


def fetch_status(address: str) -> int:
    """The HTTP status of a GET."""
    try:
        with urllib.request.urlopen(address, timeout=30) as response:
            return int(response.status)
    except urllib.error.HTTPError as error:
        return int(error.code)


def first_event(address: str) -> str:
    """The first event of a server-sent event stream, as text."""
    lines = []
    with urllib.request.urlopen(address, timeout=30) as response:
        for raw in response:
            line = raw.decode("utf-8").rstrip("\n")
            lines.append(line)
            if line.startswith("data: "):
                return "\n".join(lines)
    return "\n".join(lines)


def forbidden(url: str) -> tuple[list[str], list[bytes], set[int], bytes]:
    """What must never be seen before a match ends: every seed (in the forms it could be
    printed or encoded) and the league's secret; the seeds and the secret themselves."""
    with open_store(url) as store, store.session() as session:
        secret = session.scalars(select(League.seed_secret)).one()
        session.commit()
    assert secret is not None
    seeds = {match.seed for match in matches(url)}
    texts = [secret.hex(), base64.b64encode(secret).decode(),
             base64.urlsafe_b64encode(secret).decode().rstrip("=")]
    raw = [secret]
    for seed in seeds:
        texts += [str(seed), f"{seed:x}", f"{seed:016x}", str(seed - 2**64)]
        raw += [seed.to_bytes(8, "big"), seed.to_bytes(8, "little"), varint(seed)]
    return texts, raw, seeds, secret


def varint(value: int) -> bytes:
    """Protobuf's varint encoding of an unsigned integer."""
    out = bytearray()
    while True:
        byte, value = value & 0x7F, value >> 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def attack(seen: str) -> set[int]:
    """Every deal seed an attacker could work out from what was seen: numbers and hex tokens
    seen (and small guesses) as seeds, as league seeds under the old and the documented
    derivations at every place of a small league, and hex tokens as HMAC keys."""
    numbers = {int(token) for token in re.findall(r"\d{1,20}", seen)} | set(range(1001))
    tokens = set(re.findall(r"[0-9a-f]{8,64}", seen))
    numbers |= {int(token, 16) for token in tokens}
    numbers = {number for number in numbers if number < 2**64}
    places = list(itertools.product(("briscola",), range(3), range(3), range(3)))
    derived = set(numbers)
    for number in numbers:
        key = seed_key(number)
        for game, round_, table, deal in places:
            text = f"{number}:{game}:{round_}:{table}:{deal}".encode()
            derived.add(int.from_bytes(hashlib.blake2b(text, digest_size=8).digest(), "big"))
            derived.add(deal_seed(key, game, round_, table, deal))
    for token in tokens:
        if len(token) >= 32 and len(token) % 2 == 0:
            key = bytes.fromhex(token)
            derived |= {deal_seed(key, *place) for place in places}
    return derived


def spy_messages(out: Path) -> list[agent_pb2.PlayRequest]:
    """Every message the spy's instances were sent."""
    return [agent_pb2.PlayRequest.FromString(bytes.fromhex(line))
            for log in sorted(out.glob("*.log"))
            for line in log.read_text(encoding="ascii").split()]


def cli(*args: str, env: dict[str, str] | None = None) -> str:
    """Run ``arena ...`` as a user would; its output (it must succeed)."""
    result = subprocess.run([sys.executable, "-c", "from arena.cli import app; app()", *args],
                            env={**os.environ, "COLUMNS": "200", **(env or {})},
                            capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout + result.stderr


def test_nothing_seen_while_a_league_runs_gives_a_deal_away_and_the_end_shows_it(
        served: Served) -> None:
    """The spy's messages, every API reply, live view, page and command output seen while a
    match runs hold no seed, secret or hidden card, and no seed follows from them; match ids
    are opaque; after the end the deal and its seed are shown, marked secret."""
    remote = {"ARENA_SERVER": served.grpc, "ARENA_TOKEN": served.tokens["bob"]}
    served.alice.call("RunLeague", pb.RunLeagueRequest(name=LEAGUE))
    wait_for((served.out / "waiting").exists, "the spy's second decision")
    running, waiting = matches(served.url)
    assert (running.status, waiting.status) == (MatchStatus.LEASED, MatchStatus.PENDING)
    seen = Seen()
    watcher = subprocess.Popen(
        [sys.executable, "-c", "from arena.cli import app; app()", "remote", "watch",
         running.id, "--json"], env={**os.environ, **remote}, stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT, text=True)
    watched: list[str] = []
    reader = threading.Thread(target=lambda: watched.extend(watcher.stdout or ()), daemon=True)
    reader.start()

    for who, client in (("alice", served.alice), ("bob", served.bob)):
        seen.add(f"status {who}", MessageToJson(client.call(
            "GetLeagueStatus", pb.GetLeagueStatusRequest(name=LEAGUE))))
        seen.add(f"leaderboard {who}", MessageToJson(client.call(
            "GetLeaderboard", pb.GetLeaderboardRequest())))
        for match in (running, waiting):
            with pytest.raises(RemoteError) as refused:
                client.call("GetReplay", pb.GetReplayRequest(match_id=match.id))
            assert "not done" in str(refused.value)
            seen.add(f"replay {who}", str(refused.value))
    status = served.bob.call("GetLeagueStatus", pb.GetLeagueStatusRequest(name=LEAGUE))
    assert status.status.seeds == "secret"
    assert [match.id for match in status.matches] == [running.id, waiting.id]

    public = watch_until_play(served.bob, running.id)
    own = watch_until_play(served.alice, running.id, as_bot="wirespy")
    with pytest.raises(grpc.RpcError) as refused_watch:
        watch_until_play(served.bob, running.id, as_bot="wirespy")
    assert refused_watch.value.code() == grpc.StatusCode.PERMISSION_DENIED
    spy = running.entrants.index(spy_version(served.url))
    for name, updates, entrant in (("public", public, None), ("seat", own, spy)):
        seen.add(f"watch {name}", "\n".join(MessageToJson(update_) for update_ in updates))
        events = [update_.event for update_ in updates if update_.WhichOneof("update") == "event"]
        assert events and any(event.kind == "DEAL" for event in events)
        hidden = hidden_cards(served.url, running, entrant)
        for event in events:
            assert not set(event.cards) & hidden[event.deal], (name, event)
        views = {event.view for event in events}
        assert views == {pb.WATCH_VIEW_PUBLIC if entrant is None else pb.WATCH_VIEW_SEAT}
    spy_deals = [event for update_ in own if update_.WhichOneof("update") == "event"
                 for event in [update_.event] if event.kind == "DEAL"]
    assert any(-1 not in event.cards for event in spy_deals), "the owner sees its bot's hand"
    assert any(set(event.cards) == {-1} for event in spy_deals), "and not the other hand"

    pages = ["/", "/leagues", f"/leagues/{LEAGUE}", f"/leagues/{LEAGUE}/report",
             "/bots/wirespy", "/games/briscola", f"/matches/{running.id}",
             f"/matches/{running.id}?view=0", f"/matches/{waiting.id}"]
    for path in pages:
        html = fetch(served.web + path)
        assert html is not None
        seen.add(f"page {path}", html)
        if path.startswith("/matches/"):
            assert "shown once the match is done" in html
            assert_public_plays_only(html, served.url, running if running.id in path else None)
    steps = fetch_status(f"{served.web}/replay-steps/{running.id}")
    assert steps == 404, "no steps of a running match"
    seen.add("live stream", first_event(f"{served.web}/live/matches/{running.id}"))
    seen.add("league status", cli("league", "status", LEAGUE, "--json", "--db", served.url))
    seen.add("remote status", cli("remote", "league", "status", LEAGUE, env=remote))
    seen.add("remote status json", cli("remote", "league", "status", LEAGUE, "--json",
                                       env=remote))
    assert json.loads(seen.texts["league status"])["seeds"] == "secret"
    seen.add("leaderboard", cli("leaderboard", "--json", "--db", served.url))
    reports = served.out.parent / "report"
    seen.add("report", cli("report", LEAGUE, "--out", str(reports), "--db", served.url))
    for written in sorted(reports.glob("report.*")):
        seen.add(f"report file {written.name}", written.read_text(encoding="utf-8"))
    assert "report file report.html" in seen.texts

    (served.out / "release").touch()
    wait_for(lambda: served.bob.call("GetLeagueStatus", pb.GetLeagueStatusRequest(
        name=LEAGUE)).status.done == DEALS, "the league to end")
    assert watcher.wait(timeout=DEADLINE_S) == 0
    reader.join(DEADLINE_S)
    updates = [json.loads(line) for line in watched]
    done_at = next(index for index, update_ in enumerate(updates)
                   if update_.get("match", {}).get("state") == "MATCH_STATE_DONE")
    seen.add("remote watch", "".join(watched[:done_at]))

    messages = spy_messages(served.out)
    starts = [message.match_start for message in messages
              if message.WhichOneof("message") == "match_start"]
    assert starts, "the spy was never started"
    for start in starts:
        assert re.fullmatch(r"[0-9a-f]{16}(-\d+)?", start.match_id), start.match_id
        assert start.match_id.split("-")[0] in {running.id, waiting.id}
    spy_text = "\n".join(MessageToJson(message) for message in messages)
    spy_bytes = b"".join(message.SerializeToString() for message in messages)
    texts, raw, seeds, secret = forbidden(served.url)
    log = served.logs.read_text(encoding="utf-8", errors="replace")
    for where, text in {**seen.texts, "spy": spy_text, "service log": log}.items():
        for secret_text in texts:
            assert secret_text not in text, f"{secret_text!r} seen in {where}"
    for secret_bytes in raw:
        assert secret_bytes not in spy_bytes
    assert not seeds & attack(seen.everything() + spy_text + log)

    for match in matches(served.url):
        assert re.fullmatch(r"[0-9a-f]{16}", match.id)
        assert match.seed == deal_seed(secret, "briscola", match.round_index,
                                       match.table_index, match.deal_index)
        records = [json.loads(record) for record in served.bob.call(
            "GetReplay", pb.GetReplayRequest(match_id=match.id)).records]
        assert [(record["seed"], record["seed_source"]) for record in records] == [
            (match.seed, "secret")] * 2
        html = fetch(f"{served.web}/matches/{match.id}")
        assert html is not None and f"seed {match.seed} (secret until the end)" in html
        assert "data-card" in html
    full = [update_["event"] for update_ in updates[done_at:] if "event" in update_]
    dealt = [event for event in full if event["kind"] == "DEAL"]
    assert dealt and all(event["view"] == "WATCH_VIEW_FULL" and -1 not in event["cards"]
                         for event in dealt)
