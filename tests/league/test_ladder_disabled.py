"""The ladder leaves out what an admin disabled: a disabled bot, and every bot of a disabled
user, neither join nor get new sets; enabled again, they do."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import select

from arena.league.ladder import join_uploads, open_ladder, top_up
from arena.store import BotKind, Match, Store, open_store
from arena.store.admin import set_bot_disabled, set_user_disabled
from arena.store.models import Bot, BotVersion, User

ROOT = Path(__file__).resolve().parents[2]
RANDOM_BOT = ROOT / "sample_bots" / "python" / "random"


def uploaded(store: Store, owner: str, name: str) -> int:
    """A version of ``owner``'s bot ``name``, stored as an upload stores it; its version id."""
    with store.session() as session:
        user = session.scalars(select(User).where(User.name == owner)).one_or_none()
        if user is None:
            user = User(name=owner)
            session.add(user)
            session.flush()
        bot = Bot(name=name, owner_id=user.id)
        session.add(bot)
        session.flush()
        row = BotVersion(bot_id=bot.id, version="1", kind=BotKind.PROCESS, path=str(RANDOM_BOT),
                         fingerprint=f"{name}-1", games=["*"], language="python")
        session.add(row)
        session.commit()
        return row.id


def scheduled(store: Store, version: int) -> int:
    """The ladder's sets that seat ``version``."""
    with store.session() as session:
        return sum(version in match.entrants for match in session.scalars(select(Match)))


def test_disabled_bots_and_users_are_left_out_of_the_ladder(tmp_path: Path) -> None:
    with open_store(str(tmp_path / "ladder.db")) as store:
        league_id = open_ladder(store, games=("briscola",))
        alpha = uploaded(store, "alice", "alpha")
        beta = uploaded(store, "bob", "beta")
        with store.session() as session:
            set_bot_disabled(session, session.scalars(select(Bot).where(Bot.name == "alpha"))
                             .one(), True, "admin")
            set_user_disabled(session, session.scalars(select(User).where(User.name == "bob"))
                              .one(), True, "admin")
            session.commit()
        assert join_uploads(store, league_id) == []

        with store.session() as session:
            set_user_disabled(session, session.scalars(select(User).where(User.name == "bob"))
                              .one(), False, "admin")
            session.commit()
        assert join_uploads(store, league_id) == ["beta"]
        top_up(store, league_id, in_flight=4)
        assert scheduled(store, beta) > 0 and scheduled(store, alpha) == 0

        with store.session() as session:
            set_user_disabled(session, session.scalars(select(User).where(User.name == "bob"))
                              .one(), True, "admin")
            session.commit()
        before = scheduled(store, beta)
        assert top_up(store, league_id, in_flight=12)
        assert scheduled(store, beta) == before
