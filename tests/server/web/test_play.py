"""Playing against the bots through the real web app (FastAPI's test client): a person's seat
waits for the person under the clock, refuses what is not legal, is stored as a match that
replays, and stays off the leaderboards unless the operator rates people."""

from __future__ import annotations

import asyncio
import re
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from fastapi.testclient import TestClient

from arena.agents import PolicySeat
from arena.agents.human import HumanAgent, HumanSeat
from arena.games import game_ids, get_spec, load_game
from arena.league.ladder import join_uploads, open_ladder
from arena.match.runner import run_duplicate_async
from arena.match.timecontrol import TimeControl
from arena.protocol.v1 import arena_pb2 as pb
from arena.protocol.v1 import arena_pb2_grpc as pb_grpc
from arena.reasons import Reason
from arena.server.api.server import start_api
from arena.server.web import create_app
from arena.store import BotKind, League, Match, MatchStatus, open_store
from arena.store.accounts import register_user
from arena.store.admin import set_bot_disabled
from arena.store.bots import bot_named, ensure_bot_version

SAMPLE_RANDOM = Path(__file__).resolve().parents[3] / "sample_bots" / "python" / "random"
"""A bot folder, stored as a bot of ann's (a process bot: the Docker one is in tests/sandbox)."""

SITE = "http://testserver"
"""The origin of the test client's requests."""

VERSION = re.compile(r'data-version="(\d+)"')
CARD = re.compile(r'data-card="([^"]+)"')
BUTTON = re.compile(r'name="action" value="(\d+)"')


def api_board(url: str, token: str, folder: Path, rate_humans: bool) -> list[str]:
    """The bots of the overall leaderboard of the real gRPC API over the store, served with
    or without ``rate_humans``."""
    sockets = Path(tempfile.mkdtemp(prefix="arena-play-"))
    with open_store(url) as store:
        address = f"unix:{sockets / 'api.sock'}"
        api = start_api(store, url, folder / "data", address, rate_humans=rate_humans)
        try:
            with grpc.insecure_channel(address) as channel:
                reply = pb_grpc.ArenaServiceStub(channel).GetLeaderboard(
                    pb.GetLeaderboardRequest(), metadata=[("authorization", f"Bearer {token}")])
        finally:
            api.stop(0)
            shutil.rmtree(sockets, ignore_errors=True)
    return [entry.bot for entry in reply.overall]


@pytest.fixture(scope="module")
def store_url(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, dict[str, str]]:
    """An empty store with the users ann and ben; its URL and their tokens."""
    folder: Path = tmp_path_factory.mktemp("play")
    url = f"sqlite:///{folder / 'arena.db'}"
    tokens = {}
    with open_store(url) as store, store.session() as session:
        for name in ("ann", "ben"):
            user, tokens[name] = register_user(session, name)
            session.flush()
            for bot, games in ((f"{name}bot", ("*",)), (f"{name}-scopa", ("scopa",))):
                version = ensure_bot_version(session, bot, "1.0", BotKind.PROCESS,
                                             path=str(SAMPLE_RANDOM), fingerprint=bot,
                                             games=games, language="python")
                version.bot.owner_id = user.id
        session.commit()
    return url, tokens


def browser(url: str, token: str | None = None, rate_humans: bool = False
            ) -> TestClient:
    """A test client of the app, signed in with ``token`` if given (enter it with ``with``)."""
    client = TestClient(create_app(url, rate_humans), base_url=SITE,
                        raise_server_exceptions=False)
    client.__enter__()
    if token is not None:
        response = client.post("/sign-in", data={"token": token, "next": "/play"},
                               headers={"Origin": SITE}, follow_redirects=False)
        assert response.status_code == 303
    return client


@pytest.fixture()
def ann(store_url: tuple[str, dict[str, str]]) -> Iterator[TestClient]:
    """ann, signed in."""
    client = browser(store_url[0], store_url[1]["ann"])
    yield client
    client.__exit__(None, None, None)


def open_table(client: TestClient, opponent: str = "random", game: str = "briscola",
               players: str = "") -> str:
    """Open a table (briscola unless told) as a page of the site would; its path."""
    response = client.post("/play", data={"game": game, "opponent": opponent,
                                          "players": players},
                           headers={"Origin": SITE}, follow_redirects=False)
    assert response.status_code == 303, response.text
    return str(response.headers["location"])


def hidden_from_ann(client: TestClient, path: str, board: str) -> None:
    """The board shows ann her own hand and none of the cards the other seats hold that her
    seat has not seen."""
    table = client.app.state.tables._tables[path.rsplit("/", 1)[1]]  # type: ignore[attr-defined]
    state = table.agent.state
    deck = state.game.deck
    shown = set(CARD.findall(board))
    mine = state.observation(0)
    assert {deck.short(card) for card in mine.hand} <= shown
    hidden = {card for seat in range(1, state.game.num_players)
              for card in state.observation(seat).hand} - mine.seen_cards()
    assert not {deck.short(card) for card in hidden} & shown


def play_through(client: TestClient, path: str) -> str:
    """Play the first legal action at every turn of ann's, trying one illegal action first;
    the last board."""
    version, refused = -1, False
    for _ in range(2000):
        board = client.get(f"{path}/board", params={"after": version}).text
        version = int(VERSION.search(board).group(1))  # type: ignore[union-attr]
        if "data-over" in board:
            return board
        actions = BUTTON.findall(board)
        if not actions:
            continue
        if not refused:
            hidden_from_ann(client, path, board)
            illegal = client.post(f"{path}/act", data={"action": "999"},
                                  headers={"Origin": SITE, "Accept": "text/plain"})
            assert illegal.status_code == 400
            assert illegal.text.startswith("action 999 is not legal now: choose one of")
            assert "\n" not in illegal.text
        if not refused:  # without the script: the form posts, and the page comes back
            played = client.post(f"{path}/act", data={"action": actions[0]},
                                 headers={"Origin": SITE}, follow_redirects=False)
            assert (played.status_code, played.headers["location"]) == (303, path)
            refused = True
            continue
        played = client.post(f"{path}/act", data={"action": actions[0]},
                             headers={"Origin": SITE, "Accept": "text/plain"})
        assert played.status_code == 204, played.text
    raise AssertionError("the deal did not end")


def test_a_whole_table_is_played_stored_and_replayed(
        ann: TestClient, store_url: tuple[str, dict[str, str]], tmp_path: Path) -> None:
    """ann plays a deal against random: every action comes from her buttons, an illegal one
    is refused, the match is stored done in the league ``tables`` with her seat marked, its
    page replays it under her name, and the leaderboard leaves her out unless people are
    rated."""
    url, tokens = store_url
    path = open_table(ann)
    page = ann.get(path)
    assert page.status_code == 200
    assert "data-board" in page.text and "play.js" in page.text
    board = play_through(ann, path)
    match_id = path.rsplit("/", 1)[1]
    assert f'href="/matches/{match_id}"' in board
    with open_store(url) as store, store.session() as session:
        match = session.get_one(Match, match_id)
        assert match.status is MatchStatus.DONE
        league = session.get_one(League, match.league_id)
        assert league.name == "tables" and league.settings["human_seats"] == [0]
        assert len(match.records) == 1
        assert match.records[0].record["policies"] == ["ann (person)", "random"]
    replay = ann.get(f"/matches/{match_id}")
    assert replay.status_code == 200 and "ann (person)" in replay.text
    assert "ann (person)" not in ann.get("/").text
    rated = browser(url, rate_humans=True)
    try:
        assert "ann (person)" in rated.get("/").text
    finally:
        rated.__exit__(None, None, None)
    assert api_board(url, tokens["ann"], tmp_path, rate_humans=False) == []
    assert "ann (person)" in api_board(url, tokens["ann"], tmp_path, rate_humans=True)
    ben = browser(url, tokens["ben"])
    try:
        assert ben.get(path).status_code == 404
        assert ben.post(f"{path}/act", data={"action": "1"},
                        headers={"Origin": SITE}).status_code == 404
    finally:
        ben.__exit__(None, None, None)


@pytest.mark.parametrize("game, players", [
    *[(game, "") for game in game_ids()],
    ("tressette", "2"), ("scopa", "3"), ("vecchia", "6"), ("briscola-chiamata", "8")])
def test_every_game_is_played_at_a_table(ann: TestClient, game: str, players: str) -> None:
    """A person can play a deal of every game, at its usual seat count or one chosen, with
    the heuristic policy in every other seat: the board shows her seat only, and the end
    says how she did among all the seats."""
    path = open_table(ann, "heuristic", game, players)
    board = play_through(ann, path)
    table = ann.app.state.tables._tables[path.rsplit("/", 1)[1]]  # type: ignore[attr-defined]
    assert table.error == "" and table.players == int(players or get_spec(game).seats[0])
    assert len(table.returns) == table.players
    assert f"The deal is over: you {table.outcome}" in board


def test_a_table_of_a_seat_count_the_game_has_not_is_refused(ann: TestClient) -> None:
    """Seats the game does not allow, or a count that is not a number: one line each."""
    seats = ann.post("/play", data={"game": "scopone", "opponent": "random", "players": "3"},
                     headers={"Origin": SITE})
    assert seats.status_code == 400 and "scopone" in seats.text and "3" in seats.text
    words = ann.post("/play", data={"game": "scopa", "opponent": "random", "players": "two"},
                     headers={"Origin": SITE})
    assert words.status_code == 400 and "players must be a whole number" in words.text


def test_one_table_per_user_and_a_bounded_number(
        store_url: tuple[str, dict[str, str]]) -> None:
    """A second table while one is in play is refused (409), and so is one past the
    server's limit (503), each with one line; the table still in play when the server stops
    is voided, saying so."""
    url, tokens = store_url
    ann = browser(url, tokens["ann"])
    path = open_table(ann)
    again = ann.post("/play", data={"game": "briscola", "opponent": "random"},
                     headers={"Origin": SITE})
    assert again.status_code == 409
    assert "you already have a table in play: /play/" in again.text
    ann.app.state.tables.limit = 1  # type: ignore[attr-defined]
    ben = browser(url, tokens["ben"])
    ben.app.state.tables = ann.app.state.tables  # type: ignore[attr-defined]
    try:
        full = ben.post("/play", data={"game": "briscola", "opponent": "random"},
                        headers={"Origin": SITE})
        assert full.status_code == 503
        assert "all 1 tables of this server are in play" in full.text
    finally:
        ben.__exit__(None, None, None)
        ann.__exit__(None, None, None)
    with open_store(url) as store, store.session() as session:
        match = session.get_one(Match, path.rsplit("/", 1)[1])
        assert match.status is MatchStatus.VOID
        assert match.last_error == "the server stopped before the deal ended"


def test_bad_requests_get_one_line(ann: TestClient,
                                   store_url: tuple[str, dict[str, str]]) -> None:
    """Nobody signed in, another site, an unknown game or opponent: each refused clearly."""
    nobody = browser(store_url[0])
    try:
        assert "Sign in to play" in nobody.get("/play").text
        refused = nobody.post("/play", data={"game": "briscola", "opponent": "random"},
                              headers={"Origin": SITE})
        assert refused.status_code == 401 and "sign in to play" in refused.text
    finally:
        nobody.__exit__(None, None, None)
    cross = ann.post("/play", data={"game": "briscola", "opponent": "random"},
                     headers={"Origin": "http://elsewhere.example"})
    assert cross.status_code == 403
    game = ann.post("/play", data={"game": "poker", "opponent": "random"},
                    headers={"Origin": SITE})
    assert game.status_code == 400 and "unknown game &#39;poker&#39;" in game.text
    opponent = ann.post("/play", data={"game": "briscola", "opponent": "mc"},
                        headers={"Origin": SITE})
    assert opponent.status_code == 400 and "unknown opponent" in opponent.text
    assert ann.get("/play/nosuchtable").status_code == 404


def test_a_person_who_lets_the_clock_run_out_forfeits() -> None:
    """Under the runner's clock a person who never answers is struck at each decision and
    forfeits the deal on the third strike, as a bot would; the policy plays on."""
    agent = HumanAgent("ann")
    control = TimeControl(decision_ms=20, bank_ms=0, startup_ms=1000, ready_ms=1000)
    result = asyncio.run(run_duplicate_async(
        load_game("briscola"), 7, [HumanSeat(agent), PolicySeat("random")], control,
        rotations=1))
    deal = result.deals[0]
    assert deal.reasons[0] == Reason.TIMEOUT and deal.forfeited == (True, False)
    assert [fault.kind.value for fault in deal.faults] == ["timeout"] * 3


def test_choose_refuses_out_of_turn_and_illegal_actions() -> None:
    """Between turns any action is refused; in a turn, only a legal one is taken."""
    agent = HumanAgent("ann")
    assert agent.choose(0) == "it is not your turn: wait for the other seats"

    async def one_turn() -> tuple[str, int | None]:
        """Ask the agent for a decision and answer it from outside."""
        from arena.agents import Turn

        state = load_game("briscola").new_initial_state(3)
        seat = state.current_player()
        asking = asyncio.ensure_future(agent.decide(Turn(1, seat, state), 5.0))
        while agent.turn is None:
            await asyncio.sleep(0)
        problem = agent.choose(-5)
        assert agent.choose(state.legal_actions()[-1]) == ""
        reply = await asking
        return problem, None if reply is None else reply.action

    problem, action = asyncio.run(one_turn())
    assert problem.startswith("action -5 is not legal now")
    assert action is not None


def opponent_keys(client: TestClient) -> list[str]:
    """The opponents the /play form offers."""
    return re.findall(r'<option value="([^"]*)">[^<]*\((?:policy|your bot|ladder bot)\)',
                      client.get("/play").text)


def test_a_person_plays_their_own_bot_and_the_ladder_s_but_no_one_else_s(
        ann: TestClient, store_url: tuple[str, dict[str, str]]) -> None:
    """ann is offered the policies and her own bots; ben's bot only once it is on the ladder,
    and not while it is disabled; a bot is refused for a game it does not play, and a table
    needing more bot seats than the server has free is refused (503). ann then plays a whole
    deal against her own bot (a real bot process over gRPC), stored with its version in the
    other seat."""
    url = store_url[0]
    assert opponent_keys(ann) == ["random", "heuristic", "bot:ann-scopa", "bot:annbot"]
    hidden = ann.post("/play", data={"game": "briscola", "opponent": "bot:benbot"},
                      headers={"Origin": SITE})
    assert hidden.status_code == 400 and "unknown opponent &#39;bot:benbot&#39;" in hidden.text
    with open_store(url) as store:
        ladder = open_ladder(store, games=["briscola"])
        assert join_uploads(store, ladder) == ["annbot", "benbot"]
    assert opponent_keys(ann)[-1] == "bot:benbot"
    with open_store(url) as store, store.session() as session:
        bot = bot_named(session, "benbot")
        assert bot is not None
        set_bot_disabled(session, bot, True, "admin")
        session.commit()
    assert "bot:benbot" not in opponent_keys(ann)
    wrong = ann.post("/play", data={"game": "briscola", "opponent": "bot:ann-scopa"},
                     headers={"Origin": SITE})
    assert wrong.status_code == 400 and "ann-scopa (your bot) does not play briscola" in wrong.text
    tables = ann.app.state.tables  # type: ignore[attr-defined]
    tables.bot_seats = 2
    four = ann.post("/play", data={"game": "briscola", "opponent": "bot:annbot",
                                   "players": "4"}, headers={"Origin": SITE})
    assert four.status_code == 503
    assert "has 2 of its 2 seats for bots free, and the table needs 3" in four.text
    path = open_table(ann, "bot:annbot")
    assert tables.bot_seats_in_use() == 1
    board = play_through(ann, path)
    assert tables.bot_seats_in_use() == 0
    assert "The deal is over: you" in board
    with open_store(url) as store, store.session() as session:
        match = session.get_one(Match, path.rsplit("/", 1)[1])
        assert match.status is MatchStatus.DONE
        own = bot_named(session, "annbot", with_versions=True)
        assert own is not None and match.entrants[1] == own.versions[-1].id
        assert match.records[0].record["policies"][1].endswith("(bot)")  # a bot process
