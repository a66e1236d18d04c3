"""A person plays a table against an uploaded bot: the web process starts the bot's image in a
hardened container, as a league's worker would, and the deal is stored with its version."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from arena.store import BotKind, Match, MatchStatus, open_store
from arena.store.accounts import register_user
from arena.store.bots import ensure_bot_version
from tests.server.web.test_play import VERSION, browser, open_table, play_through

from .conftest import SAMPLE_RANDOM, BotImageFactory, our_containers, require_docker


def store_ann_and_her_bot(url: str, image: Any) -> tuple[str, int]:
    """A store with the user ann and her uploaded bot ``ann-docker`` of ``image``; her token
    and the bot's version id."""
    with open_store(url) as store, store.session() as session:
        user, token = register_user(session, "ann")
        session.flush()
        version = ensure_bot_version(session, "ann-docker", image.version, BotKind.DOCKER,
                                     image_ref=image.ref, image_id=image.image_id,
                                     games=image.games, language=image.language)
        version.bot.owner_id = user.id
        session.commit()
        return token, version.id


def test_a_person_plays_an_uploaded_bot_in_its_container(bot_image: BotImageFactory,
                                                          tmp_path: Path) -> None:
    """ann picks her Docker bot at /play and plays a whole briscola deal against it through
    the pages; the match is stored done with the bot's version, its record names the seat a
    container, and no container is left once the deal is over."""
    url = f"sqlite:///{tmp_path / 'arena.db'}"
    token, version_id = store_ann_and_her_bot(url, bot_image(SAMPLE_RANDOM))
    client = browser(url, token)
    try:
        assert 'value="bot:ann-docker"' in client.get("/play").text
        path = open_table(client, "bot:ann-docker")
        board = play_through(client, path)
        table = client.app.state.tables._tables[path.rsplit("/", 1)[1]]  # type: ignore[attr-defined]
        assert table.error == "", table.error
        assert "The deal is over: you" in board
    finally:
        client.__exit__(None, None, None)
    with open_store(url) as store, store.session() as session:
        match = session.get_one(Match, path.rsplit("/", 1)[1])
        assert match.status is MatchStatus.DONE
        assert match.entrants == [match.entrants[0], version_id]
        assert match.records[0].record["policies"][1].endswith("(docker)")
    assert our_containers(require_docker()) == []


def test_a_table_stopped_with_the_server_leaves_no_container(bot_image: BotImageFactory,
                                                              tmp_path: Path) -> None:
    """The server stops while ann's table against her Docker bot waits for her move: the
    match is voided and the bot's container is gone."""
    url = f"sqlite:///{tmp_path / 'arena.db'}"
    token, _ = store_ann_and_her_bot(url, bot_image(SAMPLE_RANDOM))
    client = browser(url, token)
    try:
        path = open_table(client, "bot:ann-docker")
        version = -1
        for _ in range(100):  # each waits for a change: the bot's container is up, ann acts
            board = client.get(f"{path}/board", params={"after": version}).text
            assert "data-over" not in board, board
            if 'name="action"' in board:
                break
            version = int(VERSION.search(board).group(1))  # type: ignore[union-attr]
        assert 'name="action"' in board, "ann's turn never came"
        assert our_containers(require_docker()), "the bot plays in a container"
    finally:
        client.__exit__(None, None, None)
    with open_store(url) as store, store.session() as session:
        match = session.get_one(Match, path.rsplit("/", 1)[1])
        assert match.status is MatchStatus.VOID
    assert our_containers(require_docker()) == []
