"""A store where ann's bot and ben's played a finished briscola set, every decision of each
with a debug note holding its owner's unique marker; ann and ben registered through the real
gRPC service, so their tokens are the API's own."""

from __future__ import annotations

import copy
import shutil
import tempfile
import uuid
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import select

from arena.league.create import create_league
from arena.league.local import run_league
from arena.match.record import MatchRecord, apply_recorded
from arena.protocol.v1 import arena_pb2 as pb
from arena.server.api.server import start_api
from arena.server.remote import RemoteArena
from arena.store import Bot, BotVersion, Match, MatchRecordRow, User, open_store
from tests.server.api.conftest import FAKE_UPLOADS

HOSTILE = "\x1b[2J<b>"
"""What each note starts with: a terminal escape and HTML."""

HOSTILE_SHOWN = "\\x1b[2J&lt;b&gt;"
"""How a page shows it: the escape escaped, then the HTML escaped."""

MARKERS = {"ann": f"ANN-NOTE-{uuid.uuid4().hex}", "ben": f"BEN-NOTE-{uuid.uuid4().hex}"}
"""The unique text in each user's bot's notes."""


@dataclass(frozen=True)
class Arena:
    """The store's URL, the users' tokens, the match, and the steps that carry a note."""

    url: str
    tokens: dict[str, str]
    match_id: str
    steps: dict[str, list[tuple[int, int, int]]]
    """Per user, (deal, seat, step) of each frame showing a note of its bot."""


def _actors(data: dict[str, object]) -> list[int]:
    """The seat that made each decision of a stored deal record."""
    record = MatchRecord.from_dict({key: value for key, value in data.items()
                                    if key not in ("rotation", "entrants")})
    state = record.make_game().new_initial_state(record.seed)
    actors = []
    for index, action in enumerate(record.actions):
        actors.append(state.current_player())
        apply_recorded(state, index, action, len(record.actions))
    return actors


def owned_arena(folder: Path) -> Arena:
    """Play the set in a store under ``folder``, register ann and ben with the service, give
    them the bots and the notes."""
    url = f"sqlite:///{folder / 'arena.db'}"
    with open_store(url) as store:
        create_league(store, "owned", ["heuristic", "random"], games=["briscola"], deals=1)
    assert run_league(url, "owned", workers=1, reuse_bots=False).status is not None
    store = open_store(url)
    sockets = tempfile.mkdtemp(prefix="arena-api-", dir="/tmp")
    address = f"unix:{sockets}/api.sock"
    api = start_api(store, url, folder / "data", address, workers=1, uploads=FAKE_UPLOADS)
    try:
        with RemoteArena(address) as anonymous:
            tokens = {name: anonymous.call("RegisterUser",
                                           pb.RegisterUserRequest(name=name)).token
                      for name in MARKERS}
    finally:
        api.stop(0)
        store.close()
        shutil.rmtree(sockets, ignore_errors=True)
    return _own_and_annotate(url, tokens)


def _own_and_annotate(url: str, tokens: dict[str, str]) -> Arena:
    """Give the match's first entrant's bot to ann and the second's to ben, and a note with
    the owner's marker to every decision of each."""
    steps: dict[str, list[tuple[int, int, int]]] = {name: [] for name in MARKERS}
    with open_store(url) as opened, opened.session() as session:
        match = session.scalars(select(Match)).one()
        users = dict(zip(MARKERS, match.entrants, strict=True))
        for name, version_id in users.items():
            version = session.get(BotVersion, version_id)
            assert version is not None
            bot = session.get(Bot, version.bot_id)
            assert bot is not None
            bot.owner_id = session.scalars(select(User.id).where(User.name == name)).one()
        for row in session.scalars(select(MatchRecordRow).where(
                MatchRecordRow.match_id == match.id).order_by(MatchRecordRow.deal)):
            record = copy.deepcopy(row.record)
            owner_at = {seat: list(users)[entrant]
                        for seat, entrant in enumerate(record["entrants"])}
            record["debug"] = []
            for decision, seat in enumerate(_actors(record)):
                record["debug"].append({"decision": decision, "seat": seat,
                                        "text": HOSTILE + MARKERS[owner_at[seat]]})
                steps[owner_at[seat]].append((row.deal, seat, decision + 1))
            row.record = record
        session.commit()
        return Arena(url=url, tokens=tokens, match_id=match.id, steps=steps)
