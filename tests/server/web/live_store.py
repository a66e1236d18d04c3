"""Stores for the live pages: a league whose matches finish during a test, and a match in
play with its live deal written as the runner's feed writes it, owned by a signed-up user."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

from sqlalchemy import select, update

from arena.games import load_game
from arena.games.cards import HIDDEN
from arena.league.create import create_league
from arena.league.local import run_league
from arena.match.spectator import public_events
from arena.store import Bot, BotVersion, Match, MatchStatus, open_store
from arena.store.accounts import register_user
from arena.store.models import LiveDeal, utc_now

GAME = "briscola"


@dataclass(frozen=True)
class Running:
    """A store with one match in play: its id, seed, the owner's token and seat."""

    url: str
    match_id: str
    seed: int
    token: str
    owner_seat: int
    """The seat of ann's bot in deal 0."""


def partly_played(folder: Path, name: str = "growing") -> str:
    """A league of two policies over two games with one match finished; its store URL."""
    url = f"sqlite:///{folder / 'arena.db'}"
    with open_store(url) as store:
        create_league(store, name, ["heuristic", "random"], games=["briscola", "scopa"],
                      deals=1)
    summary = run_league(url, name, workers=1, limit=1, reuse_bots=False)
    assert summary.status is not None and summary.status.done == 1
    return url


def actions_of(seed: int, count: int) -> list[int]:
    """The first ``count`` actions of a Briscola deal played with the lowest legal action."""
    state = load_game(GAME, 2).new_initial_state(seed)
    for _ in range(count):
        state.apply_action(state.legal_actions()[0])
    return state.history()


def hidden_codes(seed: int, count: int) -> set[str]:
    """The cards no spectator may see after ``count`` actions: every card not in a public
    event (the hands, the stock)."""
    state = load_game(GAME, 2).new_initial_state(seed)
    for action in actions_of(seed, count):
        state.apply_action(action)
    deck = state.game.deck
    public = {card for event in public_events(state) for card in event.cards if card != HIDDEN}
    return {deck.short(card) for card in range(deck.size) if card not in public}


def seat_codes(seed: int, count: int, seat: int) -> set[str]:
    """The cards in a seat's hand after ``count`` actions."""
    state = load_game(GAME, 2).new_initial_state(seed)
    for action in actions_of(seed, count):
        state.apply_action(action)
    deck = state.game.deck
    return {deck.short(card) for card in state.observation(seat).hand if card != HIDDEN}


def running_match(folder: Path, actions: int) -> Running:
    """A league whose match is in play, ``actions`` of its deal 0 fed, its first entrant's
    bot owned by the user ann."""
    url = f"sqlite:///{folder / 'arena.db'}"
    with open_store(url) as store:
        create_league(store, "live", ["heuristic", "random"], games=[GAME], deals=1)
        with store.session() as session:
            match = session.scalars(select(Match)).one()
            session.execute(update(Match).values(
                status=MatchStatus.LEASED, lease_owner="test",
                lease_expires=utc_now() + timedelta(hours=1)))
            user, token = register_user(session, "ann")
            version = session.get(BotVersion, match.entrants[0])
            assert version is not None
            bot = session.get(Bot, version.bot_id)
            assert bot is not None
            bot.owner_id = user.id
            session.add(LiveDeal(match_id=match.id, deal=0, actions=actions_of(match.seed,
                                                                               actions)))
            session.commit()
            return Running(url, match.id, match.seed, token, owner_seat=0)


def feed(url: str, match_id: str, seed: int, actions: int) -> None:
    """Write deal 0's actions so far, as the runner's feed does."""
    with open_store(url) as store, store.session() as session:
        session.merge(LiveDeal(match_id=match_id, deal=0, actions=actions_of(seed, actions)))
        session.commit()
