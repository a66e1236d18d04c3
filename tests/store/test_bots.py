"""Bot versions by name: found again, or added with their bot."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import func, select

from arena.store import Bot, BotKind, BotVersion, Store, bots
from arena.store.bots import ensure_bot_version


def test_a_version_is_added_once(store: Store) -> None:
    """The same name, version and folder give the same row; a new version adds one."""
    with store.session() as session:
        first = ensure_bot_version(session, "mc", "1.0", BotKind.PROCESS, path="/bots/mc")
        session.commit()
        again = ensure_bot_version(session, "mc", "1.0", BotKind.PROCESS, path="/bots/mc")
        newer = ensure_bot_version(session, "mc", "1.1", BotKind.PROCESS, path="/bots/mc",
                                   games=["briscola"])
        session.commit()
        assert again.id == first.id
        assert newer.id != first.id and newer.bot_id == first.bot_id
        assert newer.games == ["briscola"]
        assert session.scalar(select(func.count()).select_from(Bot)) == 1


def test_a_rebuilt_image_is_a_new_version(store: Store) -> None:
    """Docker versions are told apart by image id, even under one version string."""
    with store.session() as session:
        old = ensure_bot_version(session, "mc", "1.0", BotKind.DOCKER,
                                 image_ref="cardarena-bot/mc:1.0", image_id="sha256:aa")
        rebuilt = ensure_bot_version(session, "mc", "1.0", BotKind.DOCKER,
                                     image_ref="cardarena-bot/mc:1.0", image_id="sha256:bb",
                                     language="rust")
        session.commit()
        assert old.id != rebuilt.id
        assert (old.language, rebuilt.language) == ("", "rust")
        assert rebuilt.fingerprint == "sha256:bb"
        assert rebuilt.describe() == {"name": "mc", "version": "1.0", "kind": "docker",
                                      "image": "cardarena-bot/mc:1.0", "image_id": "sha256:bb"}
        assert session.scalar(select(func.count()).select_from(BotVersion)) == 2


def test_a_version_added_meanwhile_is_found(store: Store,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """When the row appears between the look-up and the insert, the insert gives way to it."""
    with store.session() as session:
        first = ensure_bot_version(session, "mc", "1.0", BotKind.PROCESS, path="/bots/mc")
        session.commit()
        looked_up = []
        find = bots._find

        def miss_once(*args: Any) -> BotVersion | None:
            """Miss the row the first time, as if another process added it just after."""
            looked_up.append(args)
            return None if len(looked_up) == 1 else find(*args)

        monkeypatch.setattr(bots, "_find", miss_once)
        again = ensure_bot_version(session, "mc", "1.0", BotKind.PROCESS, path="/bots/mc")
        session.commit()
        assert again.id == first.id
        assert len(looked_up) == 2
        assert session.scalar(select(func.count()).select_from(BotVersion)) == 1
