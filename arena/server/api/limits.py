"""Quotas and rate limits of the service, checked for every call by one server interceptor.

Rates (registrations per peer address, the upload rate and calls per user) are moving windows
of the ``limits`` library, kept in the service's memory. Quotas that are state (bots owned,
uploads and build minutes of the last 24 hours, matches in flight) are counted from the store:
every upload, built or refused, is noted in its ledger (``arena.store.upload_attempts``) with
the time the service spent on it, so the daily quotas hold across restarts and count failed
builds. Each refusal is ``RESOURCE_EXHAUSTED`` with the limit and when to try again in its
message.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import grpc
from limits import RateLimitItem, RateLimitItemPerDay
from limits.storage import MemoryStorage
from limits.strategies import MovingWindowRateLimiter
from sqlalchemy import func, select

from arena.server.api.auth import bearer_token
from arena.server.api.errors import ApiError, abort
from arena.server.limit_settings import ServiceLimits, per_window, rate_item, wait_text
from arena.store import Bot, League, Match, MatchStatus, Store
from arena.store.accounts import token_digest
from arena.store.models import ApiToken
from arena.store.upload_attempts import attempts_since, record_attempt

DAY = timedelta(days=1)
"""The window of the daily quotas."""

UNPLAYED = (MatchStatus.PENDING, MatchStatus.LEASED)
"""The states of a match still to be played."""


def exhausted(message: str) -> ApiError:
    """A limit reached: RESOURCE_EXHAUSTED."""
    return ApiError(grpc.StatusCode.RESOURCE_EXHAUSTED, message)


def peer_address(context: grpc.ServicerContext) -> str:
    """The caller's address without its port (``ipv4:127.0.0.1``; ``unix:`` for a socket)."""
    peer = context.peer() or "unknown"
    if peer.startswith(("ipv4:", "ipv6:")):
        return peer.rsplit(":", 1)[0]
    return peer


def aware(moment: datetime) -> datetime:
    """A stored time as an aware UTC time."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


class Rate:
    """One rate limit: its item, the words of its refusal, and a moving window per key."""

    def __init__(self, limiter: MovingWindowRateLimiter, item: RateLimitItem, what: str,
                 noun: str, scope: str = "") -> None:
        """Keep the limiter, the item and the words (``upload``, ``uploads``...)."""
        self.limiter = limiter
        self.item = item
        self.what = what
        self.noun = noun
        self.scope = scope

    def refusal(self, key: str) -> ApiError:
        """The refusal naming the limit and when the window frees a place for ``key``."""
        reset = self.limiter.get_window_stats(self.item, key).reset_time
        return exhausted(f"{self.what} limit reached: {per_window(self.item, self.noun)}"
                         f"{self.scope} (try again in {wait_text(reset - time.time())})")

    def allows(self, key: str) -> bool:
        """True when ``key`` has a place left (nothing is counted)."""
        return self.limiter.test(self.item, key)

    def take(self, key: str) -> None:
        """Count one for ``key``, or refuse when its window is full."""
        if not self.limiter.hit(self.item, key):
            raise self.refusal(key)


class LimitGuard:
    """Checks each call against the quotas and rate limits before it runs."""

    def __init__(self, store: Store, settings: ServiceLimits,
                 running: Callable[[str], bool]) -> None:
        """Count from ``store``; ``running(league)`` tells which leagues the service runs."""
        self.store = store
        self.settings = settings
        self.running = running
        limiter = MovingWindowRateLimiter(MemoryStorage())

        def rate(text: str | None, what: str, noun: str, scope: str = "") -> Rate | None:
            """The rate of a setting, or None when it is off."""
            if text is None:
                return None
            return Rate(limiter, rate_item(text, what), what, noun, scope)

        self.registrations = rate(settings.registrations, "registration", "registration",
                                  " from one address")
        self.api_calls = rate(settings.api_calls, "call rate", "call")
        self.upload_rate = rate(settings.upload_rate, "upload rate", "upload")
        self._locks: dict[int, threading.Lock] = {}
        self._locks_lock = threading.Lock()

    @contextlib.contextmanager
    def admit(self, method: str, request: Any, context: grpc.ServicerContext) -> Iterator[None]:
        """Check a call of ``method`` (raising ``ApiError`` when a limit is reached); while it
        runs, a user's uploads and league runs are one at a time, so counts stay exact."""
        if method == "RegisterUser":
            if self.registrations is not None:
                self.registrations.take(f"register:{peer_address(context)}")
            yield
            return
        user = self.user_of(context)
        if self.api_calls is not None:
            self.api_calls.take(f"calls:{user}" if user is not None
                                else f"calls:{peer_address(context)}")
        if user is None or method not in ("SubmitBot", "RunLeague"):
            yield  # an unknown token is the service's to refuse
            return
        with self._lock_of(user):
            if method == "RunLeague":
                self.check_run(user, request.name)
                yield
                return
            self.check_upload(user, request.name)
            started, outcome = time.monotonic(), "ERROR"
            try:
                yield
                outcome = "OK"
            finally:
                if outcome != "OK" and (code := context.code()) is not None:
                    outcome = code.name
                self.note_upload(user, time.monotonic() - started, outcome)

    def note_upload(self, user: int, seconds: float, outcome: str) -> None:
        """Note an upload in the store's ledger, which the daily quotas count."""
        with self.store.session() as session:
            record_attempt(session, user, seconds, outcome)
            session.commit()

    def user_of(self, context: grpc.ServicerContext) -> int | None:
        """The id of the user whose token the call carries (None when there is none)."""
        token = bearer_token(context)
        if token is None:
            return None
        with self.store.session() as session:
            return session.scalar(select(ApiToken.user_id).where(
                ApiToken.token_sha256 == token_digest(token)))

    def check_upload(self, user: int, bot_name: str) -> None:
        """Refuse an upload over a quota or rate; otherwise count it."""
        settings = self.settings
        with self.store.session() as session:
            owned = session.scalars(select(Bot.name).where(Bot.owner_id == user)).all()
            if settings.bots is not None and bot_name not in owned \
                    and len(owned) >= settings.bots:
                raise exhausted(f"bot limit reached: {settings.bots} bots a user; delete one "
                                "(arena remote delete NAME) or upload a new version of one "
                                "of yours")
            now = datetime.now(UTC)
            day = [(aware(row.created_at), row.seconds)
                   for row in attempts_since(session, user, now - DAY)]
        if settings.uploads_per_day is not None and len(day) >= settings.uploads_per_day:
            oldest_counted = day[len(day) - settings.uploads_per_day][0]
            raise exhausted(
                f"upload limit reached: "
                f"{per_window(RateLimitItemPerDay(settings.uploads_per_day), 'upload')} "
                f"(try again in {wait_text((oldest_counted + DAY - now).total_seconds())})")
        if settings.build_minutes_per_day is not None:
            self._check_build_time(day, now, settings.build_minutes_per_day)
        if self.upload_rate is not None:
            self.upload_rate.take(f"uploads:{user}")

    @staticmethod
    def _check_build_time(rows: list[tuple[datetime, float]], now: datetime,
                          minutes: float) -> None:
        """Refuse when the uploads of the last 24 hours (``rows``: when each ended and the
        seconds it took) took ``minutes`` or more."""
        used = sum(seconds for _, seconds in rows)
        if used < minutes * 60:
            return
        freed, until = used, now
        for created, seconds in rows:  # the oldest builds leave the window first
            freed -= seconds
            until = created + DAY
            if freed < minutes * 60:
                break
        raise exhausted(f"build time limit reached: {minutes:g} build "
                        f"minute{'' if minutes == 1 else 's'} a day, "
                        f"{used / 60:.1f} used in the last 24 h (try again in "
                        f"{wait_text((until - now).total_seconds())})")

    def check_run(self, user: int, league_name: str) -> None:
        """Refuse to start a league whose unplayed matches would take its owner past the
        matches in flight."""
        limit = self.settings.matches_in_flight
        if limit is None:
            return
        with self.store.session() as session:
            league = session.scalars(select(League).where(
                League.name == league_name.strip())).one_or_none()
            if league is None or self.running(league.name):
                return  # the service says it is unknown, or that it already runs
            owner = league.owner_id if league.owner_id is not None else user
            wanted = self._unplayed(session, [league.id])
            others = session.execute(select(League.id, League.name).where(
                League.owner_id == owner, League.id != league.id)).all()
            in_flight = self._unplayed(session, [row.id for row in others
                                                 if self.running(row.name)])
        if in_flight + wanted > limit:
            raise exhausted(
                f"matches in flight limit reached: {limit} matches a user; league "
                f"{league.name!r} has {wanted} to play and {in_flight} are in flight "
                "(try again when a running league has finished)")

    @staticmethod
    def _unplayed(session: Any, league_ids: list[int]) -> int:
        """The matches of these leagues still to be played."""
        if not league_ids:
            return 0
        return int(session.scalar(select(func.count(Match.id)).where(
            Match.league_id.in_(league_ids), Match.status.in_(UNPLAYED))) or 0)

    def _lock_of(self, user: int) -> threading.Lock:
        """The lock that makes one user's uploads and league runs one at a time."""
        with self._locks_lock:
            return self._locks.setdefault(user, threading.Lock())


class LimitsInterceptor(grpc.ServerInterceptor):
    """Runs every unary and server-streaming call through a ``LimitGuard``."""

    def __init__(self, guard: LimitGuard) -> None:
        """Check calls with ``guard``."""
        self.guard = guard

    def intercept_service(self, continuation: Callable[[Any], Any],
                          details: grpc.HandlerCallDetails) -> Any:
        """The call's handler, wrapped in the guard's checks."""
        handler = continuation(details)
        if handler is None:
            return None
        method = str(details.method).rsplit("/", 1)[-1]  # type: ignore[attr-defined]
        guard = self.guard
        if handler.unary_unary is not None:
            inner = handler.unary_unary

            def unary(request: Any, context: grpc.ServicerContext) -> Any:
                """The call, once admitted."""
                try:
                    with guard.admit(method, request, context):
                        return inner(request, context)
                except ApiError as error:
                    abort(context, error)
            return grpc.unary_unary_rpc_method_handler(
                unary, request_deserializer=handler.request_deserializer,
                response_serializer=handler.response_serializer)
        if handler.unary_stream is not None:
            streaming = handler.unary_stream

            def stream(request: Any, context: grpc.ServicerContext) -> Iterator[Any]:
                """The stream, once admitted (the guard lets streams run beside each other)."""
                try:
                    with guard.admit(method, request, context):
                        pass
                except ApiError as error:
                    abort(context, error)
                yield from streaming(request, context)
            return grpc.unary_stream_rpc_method_handler(
                stream, request_deserializer=handler.request_deserializer,
                response_serializer=handler.response_serializer)
        return handler
