"""``arena remote watch`` shows a match as ``arena play`` does: cards by rank and suit symbol,
tricks with their winners, hidden cards as ``??``; ``--json`` keeps the raw updates."""

from __future__ import annotations

import json

from rich.console import Console
from sqlalchemy import update

from arena.cli.watching import WatchPrinter
from arena.games import load_game
from arena.protocol.schema import platform as pb
from arena.server.api.convert import match_info
from arena.server.remote import RemoteArena
from arena.store import Match, MatchStatus
from tests.server.api.conftest import Service
from tests.server.api.test_cli import register, run
from tests.server.api.test_watch_live import feed, played_actions, running  # noqa: F401

CARD_ID = "cards=["
"""How the raw event dump showed cards: never in the rendered lines."""


def plain(lines: list[object]) -> list[str]:
    """Rich lines as plain text."""
    console = Console(width=200, color_system=None)
    with console.capture() as captured:
        for line in lines:
            console.print(line)
    return captured.get().splitlines()


def test_a_running_match_reads_as_play_with_hidden_cards(
        running: tuple[Service, RemoteArena, RemoteArena, Match]) -> None:  # noqa: F811
    """A spectator's live deal: the plays are named by card, the hands dealt are ``??``."""
    service, _, bob, match = running
    feed(service, match, 0, played_actions(match.seed, 4))
    printer = WatchPrinter()
    lines: list[object] = []
    events = 0
    for item in bob.watch(match.id, ""):
        lines += printer.lines(item)
        events += item.WhichOneof("update") == "event"
        if events == 1:
            with service.store.session() as session:
                session.execute(update(Match).values(status=MatchStatus.VOID,
                                                     last_error="stopped by the test"))
                session.commit()
    text = plain(lines)
    assert text[0] == f"match {match.id} (briscola): running"
    assert "Deal 1 · public view" in text
    state = load_game("briscola", 2).new_initial_state(match.seed)
    for action in played_actions(match.seed, 4):
        state.apply_action(action)
    plays = [event for event in state.full_events(0) if event.kind.name == "PLAY"]
    first = state.game.deck.short(plays[0].cards[0], symbols=True)
    assert any(f"seat {plays[0].seat} plays {first}" in line for line in text)
    assert any("??" in line for line in text), "the dealt hands are hidden"
    assert any(line.strip().startswith("trick 1") for line in text)
    assert not any(CARD_ID in line for line in text)
    assert text[-1] == "void: stopped by the test"


def test_the_watch_command_shows_a_finished_match_as_play_does(service: Service) -> None:
    """Every deal of a played match, hand by hand with tricks, then the totals; ``--json``
    prints one update per line as before."""
    token = register(service, "carol")
    assert run(service, "league", "create", "w", "--bot", "random", "--bot", "heuristic",
               "--games", "briscola", token=token).exit_code == 0
    assert run(service, "league", "run", "w", token=token).exit_code == 0
    assert service.api.servicer.leagues.wait("w", 120)
    status = json.loads(run(service, "league", "status", "w", "--json", token=token).stdout)
    match_id = status["matches"][0]["id"]
    watched = run(service, "watch", match_id, token=token)
    assert watched.exit_code == 0, watched.output
    lines = watched.stdout.splitlines()
    assert lines[0] == f"match {match_id} (briscola): done"
    assert "Deal 1 · every hand" in lines and "Deal 2 · every hand" in lines
    assert sum(line.strip().startswith("trick 1 ") for line in lines) == 2
    assert any("→ seat" in line and "takes" in line for line in lines)
    assert any(symbol in watched.stdout for symbol in "♥♦♣♠")
    assert CARD_ID not in watched.stdout and "??" not in watched.stdout
    assert lines[-1].startswith("final: ")
    raw = run(service, "watch", match_id, "--json", token=token)
    updates = [json.loads(line) for line in raw.stdout.splitlines()]
    assert updates[0]["match"]["id"] == match_id
    assert any("event" in item and "cards" in item["event"] for item in updates)
    assert "outcome" in updates[-1]


def test_the_printer_plays_the_match_s_own_parameters() -> None:
    """The match's parameters travel in its first update and the printer's game has them;
    a parameter this client does not know, or a value that is not a JSON object, falls back
    to the game's defaults, and an unknown game to the raw lines."""
    match = Match(id="m1", game_id="scopa", params={"target": 21, "napola": True},
                  entrants=[1, 2], rotations=[0, 1], status=MatchStatus.LEASED)
    info = match_info(match, {1: "a", 2: "b"})
    assert json.loads(info.params_json) == {"target": 21, "napola": True}

    def game_of(info: pb.MatchInfo) -> object:
        """The game a new printer takes from the update ``info``."""
        printer = WatchPrinter()
        printer.lines(pb.WatchMatchResponse(match=info))
        return printer.game

    game = game_of(info)
    assert game is not None and game.params["target"] == 21 and game.params["napola"] is True
    for odd in ('{"no_such_rule": 1}', "[1, 2]", "not json"):
        info.params_json = odd
        fallback = game_of(info)
        assert fallback is not None and fallback.params == load_game("scopa", 2).params
    info.game = "poker"
    assert game_of(info) is None
