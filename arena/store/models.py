"""The tables: users, bots and their versions, leagues, matches, per-seat results, records.

A match is one scheduled duplicate set: a game with its parameters, a seed, the entrants in
seat order (bot version ids) and the rotations to play. Its lease (status, owner, expiry,
attempts) is what makes running it idempotent: see ``arena.store.leases``. A match has at most
one result row per seat and one record per deal, and its id (a string) is the primary key, so
a match that is run twice cannot be counted twice.

A league's seed secret and its matches' seeds never leave the server before a match is done:
match ids are random and say nothing of the schedule (its place is kept in columns of its own),
and ``seed_source`` says whether a match's seed came from the secret or from a seed a user gave.
"""

from __future__ import annotations

from datetime import UTC, datetime
from enum import StrEnum
from typing import Any, ClassVar

from sqlalchemy import (
    JSON,
    Boolean,
    CheckConstraint,
    Enum,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

from arena.store.columns import Uint64, UtcDateTime

NAMING = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}
"""Constraint names fixed by convention, so migrations can refer to them on every database."""


def utc_now() -> datetime:
    """The current time, aware, in UTC."""
    return datetime.now(UTC)


class MatchStatus(StrEnum):
    """Where a match stands: waiting, being run under a lease, finished, or given up."""

    PENDING = "pending"
    LEASED = "leased"
    DONE = "done"
    VOID = "void"


class SeedSource(StrEnum):
    """Where a match's deal seed comes from: the league's secret, or a seed a user gave."""

    SECRET = "secret"
    """Derived from the league's random secret: nobody can know the deal before it ends."""
    GIVEN = "given"
    """Derived from a seed the user gave (reproducible): anyone who knows it knows the deal."""


class BotKind(StrEnum):
    """How a bot version runs: a local process from a folder, or a Docker image."""

    PROCESS = "process"
    DOCKER = "docker"


JSON_VALUE = JSON().with_variant(JSONB(), "postgresql")
"""JSON, stored as JSONB on PostgreSQL."""


def _enum(kind: type[StrEnum], name: str) -> Enum:
    """A portable enum column stored as its values (VARCHAR with a CHECK constraint)."""
    return Enum(kind, name=name, native_enum=False, create_constraint=True, length=16,
                values_callable=lambda members: [member.value for member in members])


class Base(DeclarativeBase):
    """The declarative base of every table of the store."""

    metadata = MetaData(naming_convention=NAMING)
    type_annotation_map: ClassVar[dict[Any, Any]] = {
        datetime: UtcDateTime(), dict[str, Any]: JSON_VALUE, list[Any]: JSON_VALUE}


class User(Base):
    """Someone who owns bots."""

    __tablename__ = "users"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(200), unique=True)
    created_at: Mapped[datetime] = mapped_column(default=utc_now)
    is_admin: Mapped[bool] = mapped_column(Boolean, default=False, server_default="0")
    """An admin may disable users and bots, read every log, invite and read the audit log."""
    disabled_at: Mapped[datetime | None] = mapped_column()
    """When an admin disabled the user (its tokens are refused), or None."""

    bots: Mapped[list[Bot]] = relationship(back_populates="owner")
    tokens: Mapped[list[ApiToken]] = relationship(
        back_populates="user", cascade="all, delete-orphan", passive_deletes=True)


class ApiToken(Base):
    """An API token of a user, kept only as the SHA-256 of its text."""

    __tablename__ = "api_tokens"

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    token_sha256: Mapped[str] = mapped_column(String(64), unique=True)
    """The hex SHA-256 of the token as the user sends it."""
    created_at: Mapped[datetime] = mapped_column(default=utc_now)
    last_used: Mapped[datetime | None] = mapped_column()
    prefix: Mapped[str | None] = mapped_column(String(16))
    """The first characters of the token, shown in listings (None for tokens made before)."""
    expires_at: Mapped[datetime | None] = mapped_column()
    """When the token stops working, or None for never."""
    revoked_at: Mapped[datetime | None] = mapped_column()
    """When the token was revoked (or rotated away), or None."""

    user: Mapped[User] = relationship(back_populates="tokens")


class Invitation(Base):
    """A code an admin made that lets one person register, kept only as its SHA-256."""

    __tablename__ = "invitations"

    id: Mapped[int] = mapped_column(primary_key=True)
    code_sha256: Mapped[str] = mapped_column(String(64), unique=True)
    created_by: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    created_at: Mapped[datetime] = mapped_column(default=utc_now)
    expires_at: Mapped[datetime] = mapped_column()
    used_by: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    used_at: Mapped[datetime | None] = mapped_column()


class AuditEntry(Base):
    """One change to accounts or bots: who did what to which target, and when."""

    __tablename__ = "audit_log"

    id: Mapped[int] = mapped_column(primary_key=True)
    at: Mapped[datetime] = mapped_column(default=utc_now, index=True)
    actor: Mapped[str] = mapped_column(String(200))
    """The user name who made the change, or ``operator`` for a command on the database."""
    action: Mapped[str] = mapped_column(String(40))
    target: Mapped[str] = mapped_column(String(300))
    detail: Mapped[str] = mapped_column(Text, default="", server_default="")


class UploadAttempt(Base):
    """One upload a user made through the service, built or not: when, how long the service
    spent on it, and how it ended (the quotas count these)."""

    __tablename__ = "upload_attempts"

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    created_at: Mapped[datetime] = mapped_column(default=utc_now, index=True)
    seconds: Mapped[float] = mapped_column(Float)
    outcome: Mapped[str] = mapped_column(String(32))
    """``OK``, or the name of the status code the upload was refused with."""


class WebSession(Base):
    """A user signed in to the web pages, kept only as the SHA-256 of its cookie's value."""

    __tablename__ = "web_sessions"

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    session_sha256: Mapped[str] = mapped_column(String(64), unique=True)
    """The hex SHA-256 of the random value the browser holds in its cookie."""
    created_at: Mapped[datetime] = mapped_column(default=utc_now)
    expires_at: Mapped[datetime] = mapped_column()

    user: Mapped[User] = relationship()


class Bot(Base):
    """A bot by name; what actually plays is one of its versions."""

    __tablename__ = "bots"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(200), unique=True)
    owner_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    created_at: Mapped[datetime] = mapped_column(default=utc_now)
    disabled_at: Mapped[datetime | None] = mapped_column()
    """When an admin disabled the bot (it is refused as an entrant), or None."""

    owner: Mapped[User | None] = relationship(back_populates="bots")
    versions: Mapped[list[BotVersion]] = relationship(back_populates="bot",
                                                      order_by="BotVersion.id")


class BotVersion(Base):
    """One runnable version of a bot: a process folder or a Docker image (by reference and id).

    ``fingerprint`` tells apart builds that share a version string: the image id for Docker, a
    content hash (or empty) for a folder.
    """

    __tablename__ = "bot_versions"
    __table_args__ = (UniqueConstraint("bot_id", "version", "fingerprint"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    bot_id: Mapped[int] = mapped_column(ForeignKey("bots.id", ondelete="CASCADE"))
    version: Mapped[str] = mapped_column(String(100), default="")
    kind: Mapped[BotKind] = mapped_column(_enum(BotKind, "bot_kind"))
    path: Mapped[str | None] = mapped_column(Text)
    image_ref: Mapped[str | None] = mapped_column(String(500))
    image_id: Mapped[str | None] = mapped_column(String(100))
    fingerprint: Mapped[str] = mapped_column(String(100), default="")
    games: Mapped[list[Any]] = mapped_column(default=list)
    """The game ids the bot declares it plays (``["*"]`` for any)."""
    language: Mapped[str] = mapped_column(String(40), default="", server_default="")
    """The bot's language, as its bot.toml or image label says (empty when unknown)."""
    build_seconds: Mapped[float | None] = mapped_column(Float)
    """How long the version's build took, or None when unknown."""
    created_at: Mapped[datetime] = mapped_column(default=utc_now)

    bot: Mapped[Bot] = relationship(back_populates="versions")

    def describe(self) -> dict[str, Any]:
        """How this version runs, as a JSON-ready dict."""
        where = {"image": self.image_ref, "image_id": self.image_id} \
            if self.kind is BotKind.DOCKER else {"path": self.path}
        return {"name": self.bot.name, "version": self.version, "kind": self.kind.value, **where}


class League(Base):
    """A league: its games, deals and rounds, and any further settings."""

    __tablename__ = "leagues"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(200), unique=True)
    games: Mapped[list[Any]] = mapped_column(default=list)
    deals: Mapped[int] = mapped_column(Integer)
    rounds: Mapped[int] = mapped_column(Integer)
    settings: Mapped[dict[str, Any]] = mapped_column(default=dict)
    seed_secret: Mapped[bytes | None] = mapped_column(LargeBinary(64))
    """The key every deal seed of the league is derived from (random, from the OS), or None
    for a league made with a given seed (``settings["seed"]``). Never shown."""
    owner_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    """The user who created the league through the service, or None."""
    created_at: Mapped[datetime] = mapped_column(default=utc_now)

    entrants: Mapped[list[LeagueEntrant]] = relationship(
        back_populates="league", cascade="all, delete-orphan", order_by="LeagueEntrant.position")
    matches: Mapped[list[Match]] = relationship(
        back_populates="league", cascade="all, delete-orphan", passive_deletes=True)


class LeagueEntrant(Base):
    """A bot version taking part in a league, in the order the league was created with."""

    __tablename__ = "league_entrants"
    __table_args__ = (UniqueConstraint("league_id", "bot_version_id"),
                      UniqueConstraint("league_id", "position"))

    id: Mapped[int] = mapped_column(primary_key=True)
    league_id: Mapped[int] = mapped_column(ForeignKey("leagues.id", ondelete="CASCADE"))
    bot_version_id: Mapped[int] = mapped_column(ForeignKey("bot_versions.id"))
    position: Mapped[int] = mapped_column(Integer)
    retired_at: Mapped[datetime | None] = mapped_column()
    """On a ladder: when a newer version of the bot replaced this one (None while active)."""
    base_sets: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    """On a ladder: the sets counted as played when it joined (the fewest of the others')."""

    league: Mapped[League] = relationship(back_populates="entrants")
    bot_version: Mapped[BotVersion] = relationship()


class Match(Base):
    """One scheduled duplicate set of a league, and its lease."""

    __tablename__ = "matches"
    __table_args__ = (
        CheckConstraint("seats >= 1", name="seats_positive"),
        CheckConstraint("attempts >= 0", name="attempts_not_negative"),
        Index("ix_matches_status_lease_expires", "status", "lease_expires"),
        Index("ix_matches_league_id_status", "league_id", "status"),
        Index("ix_matches_league_id_position", "league_id", "position"),
    )

    id: Mapped[str] = mapped_column(String(200), primary_key=True)
    """The match id: unique, stable and random (it tells nothing of the league, the schedule
    or the seed)."""
    league_id: Mapped[int] = mapped_column(ForeignKey("leagues.id", ondelete="CASCADE"))
    game_id: Mapped[str] = mapped_column(String(100))
    params: Mapped[dict[str, Any]] = mapped_column(default=dict)
    seats: Mapped[int] = mapped_column(Integer)
    seed: Mapped[int] = mapped_column(Uint64())
    """The deal seed: server-side only until the match is done."""
    seed_source: Mapped[SeedSource] = mapped_column(
        _enum(SeedSource, "seed_source"), default=SeedSource.GIVEN,
        server_default=SeedSource.GIVEN.value)
    position: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    """The match's place in its league's schedule (game in league order, round, table, deal)."""
    round_index: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    table_index: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    deal_index: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    entrants: Mapped[list[Any]] = mapped_column()
    """Bot version ids in seat order (rotation 0)."""
    rotations: Mapped[list[Any]] = mapped_column()
    """The rotations to play: entrant ``e`` sits at seat ``(e + rotation) % seats``."""
    status: Mapped[MatchStatus] = mapped_column(_enum(MatchStatus, "match_status"),
                                                default=MatchStatus.PENDING)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    lease_owner: Mapped[str | None] = mapped_column(String(200))
    lease_expires: Mapped[datetime | None] = mapped_column()
    last_error: Mapped[str | None] = mapped_column(Text)
    """Why the last attempt failed, or why the match is void."""
    created_at: Mapped[datetime] = mapped_column(default=utc_now)
    started_at: Mapped[datetime | None] = mapped_column()
    """When the latest attempt claimed the match."""
    finished_at: Mapped[datetime | None] = mapped_column()

    league: Mapped[League] = relationship(back_populates="matches")
    results: Mapped[list[SeatResult]] = relationship(
        back_populates="match", cascade="all, delete-orphan", passive_deletes=True,
        order_by="SeatResult.seat")
    records: Mapped[list[MatchRecordRow]] = relationship(
        back_populates="match", cascade="all, delete-orphan", passive_deletes=True,
        order_by="MatchRecordRow.deal")


class SeatResult(Base):
    """How one entrant of a finished match did, summed over the rotations it played."""

    __tablename__ = "seat_results"
    __table_args__ = (UniqueConstraint("match_id", "seat"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    match_id: Mapped[str] = mapped_column(String(200),
                                          ForeignKey("matches.id", ondelete="CASCADE"))
    seat: Mapped[int] = mapped_column(Integer)
    """The entrant's place in the match's seat order (rotation 0)."""
    bot_version_id: Mapped[int] = mapped_column(ForeignKey("bot_versions.id"), index=True)
    reason: Mapped[str] = mapped_column(String(32), default="OK")
    """The worst reason code over the rotations, by name: ``OK``, ``TIMEOUT``, ``CRASH``..."""
    total_return: Mapped[float] = mapped_column(Float)
    returns: Mapped[list[Any]] = mapped_column(default=list)
    """Its return in each deal, in rotation order."""
    forfeited: Mapped[bool] = mapped_column(Boolean, default=False)
    forfeits: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    """Deals it forfeited (VOID_INFRA is no forfeit)."""
    faults: Mapped[dict[str, Any]] = mapped_column(default=dict)
    """Its forfeited deals counted by reason code: ``{"CRASH": 2}``."""
    decisions: Mapped[int] = mapped_column(Integer, default=0)
    decision_us_mean: Mapped[float | None] = mapped_column(Float)
    decision_us_p50: Mapped[int | None] = mapped_column(Integer)
    decision_us_p95: Mapped[int | None] = mapped_column(Integer)
    decision_us_max: Mapped[int | None] = mapped_column(Integer)

    match: Mapped[Match] = relationship(back_populates="results")
    bot_version: Mapped[BotVersion] = relationship()


class MatchRecordRow(Base):
    """The JSON match record of one deal of a match, for replay."""

    __tablename__ = "match_records"
    __table_args__ = (UniqueConstraint("match_id", "deal"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    match_id: Mapped[str] = mapped_column(String(200),
                                          ForeignKey("matches.id", ondelete="CASCADE"))
    deal: Mapped[int] = mapped_column(Integer)
    """The deal's index within the match (its place in ``Match.rotations``)."""
    record: Mapped[dict[str, Any]] = mapped_column()

    match: Mapped[Match] = relationship(back_populates="records")


class LiveDeal(Base):
    """The actions so far of a deal being played, for watchers (leagues that opt in)."""

    __tablename__ = "live_deals"

    match_id: Mapped[str] = mapped_column(
        String(200), ForeignKey("matches.id", ondelete="CASCADE"), primary_key=True)
    deal: Mapped[int] = mapped_column(Integer, primary_key=True)
    """The deal's index within the match (its rotation)."""
    actions: Mapped[list[Any]] = mapped_column(default=list)
    updated_at: Mapped[datetime] = mapped_column(default=utc_now)
