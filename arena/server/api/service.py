"""The ArenaService servicer: each call authenticated, checked, and answered from the store."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import grpc

from arena.games import get_spec
from arena.league.boards import leaderboards
from arena.league.status import faults_by_bot
from arena.protocol.schema import platform as pb
from arena.protocol.schema import platform_grpc as pb_grpc
from arena.server.api import convert
from arena.server.api.auth import Caller, authenticate
from arena.server.api.bots import BotCatalog, Uploads, find_bot, owned_bot
from arena.server.api.errors import ApiError, invalid, streaming, unary
from arena.server.api.leagues import LeagueRunner, league_settings
from arena.server.api.logs import bot_logs
from arena.server.api.watch import find_match, plain_record, watch_match
from arena.server.records import match_records
from arena.store import Bot, MatchStatus, Store
from arena.store.accounts import register_user

MAX_WATCHERS = 24
"""Watch streams served at once (each holds a server thread while it lasts)."""


class ArenaServicer(pb_grpc.ArenaServiceServicer):
    """Answers the ArenaService calls."""

    def __init__(self, store: Store, store_url: str, data_dir: Path, *, workers: int = 2,
                 broker: str | None = None, uploads: Uploads | None = None,
                 max_watchers: int = MAX_WATCHERS) -> None:
        """Serve ``store``; uploads go under ``data_dir``; leagues run with ``workers``
        local processes, or through Celery at ``broker``."""
        self.store = store
        self.catalog = BotCatalog(store, data_dir, uploads)
        self.leagues = LeagueRunner(store, store_url, workers, broker)
        self.stopping = threading.Event()
        self.watch_slots = threading.BoundedSemaphore(max_watchers)

    def caller(self, context: grpc.ServicerContext) -> Caller:
        """The authenticated user of a call (UNAUTHENTICATED otherwise)."""
        return authenticate(self.store, context)

    @unary
    def RegisterUser(self, request: pb.RegisterUserRequest,
                     context: grpc.ServicerContext) -> pb.RegisterUserResponse:
        """Create a user and its first token."""
        with self.store.session() as session:
            user, token = register_user(session, request.name)
            return pb.RegisterUserResponse(name=user.name, token=token)

    @unary
    def SubmitBot(self, request: pb.SubmitBotRequest,
                  context: grpc.ServicerContext) -> pb.SubmitBotResponse:
        """Build an uploaded archive as a new version of the caller's bot."""
        caller = self.caller(context)
        submitted = self.catalog.submit(caller, request.name, request.archive)
        with self.store.session() as session:
            bot = find_bot(session, submitted.bot)
            version = next(row for row in bot.versions if row.id == submitted.version_id)
            return pb.SubmitBotResponse(bot=convert.bot_info(bot),
                                        version=convert.version_info(version))

    @unary
    def ListBots(self, request: pb.ListBotsRequest,
                 context: grpc.ServicerContext) -> pb.ListBotsResponse:
        """Every uploaded bot, or the caller's."""
        caller = self.caller(context)
        bots = self.catalog.bots(caller, request.mine)
        with self.store.session() as session:
            faults = faults_by_bot(session, [bot.id for bot in bots])
            session.commit()
        return pb.ListBotsResponse(bots=[convert.bot_info(bot, faults.get(bot.id))
                                         for bot in bots])

    @unary
    def DeleteBot(self, request: pb.DeleteBotRequest,
                  context: grpc.ServicerContext) -> pb.DeleteBotResponse:
        """Delete one of the caller's bots."""
        caller = self.caller(context)
        return pb.DeleteBotResponse(removed_images=self.catalog.delete(caller, request.name))

    @unary
    def CreateLeague(self, request: pb.CreateLeagueRequest,
                     context: grpc.ServicerContext) -> pb.CreateLeagueResponse:
        """Create a league between uploaded bots and policies."""
        self.caller(context)
        for game in request.games:
            get_spec(game)
        settings = league_settings(request.decision_ms, request.bank_ms, request.startup_ms,
                                   request.strikes, request.forfeit_policy)
        seed = request.seed if request.HasField("seed") else None
        status = self.leagues.create(request.name, list(request.bots), list(request.games),
                                     request.deals, request.rounds, seed, settings)
        return pb.CreateLeagueResponse(status=convert.league_status(status, False))

    @unary
    def RunLeague(self, request: pb.RunLeagueRequest,
                  context: grpc.ServicerContext) -> pb.RunLeagueResponse:
        """Start running a league in the background."""
        self.caller(context)
        started = self.leagues.start(request.name)
        status = self.leagues.status(request.name)
        return pb.RunLeagueResponse(started=started, status=convert.league_status(
            status, self.leagues.running(status.name)))

    @unary
    def GetLeagueStatus(self, request: pb.GetLeagueStatusRequest,
                        context: grpc.ServicerContext) -> pb.GetLeagueStatusResponse:
        """A league's progress and its matches."""
        self.caller(context)
        status = self.leagues.status(request.name)
        matches, names = self.leagues.matches(status.name)
        return pb.GetLeagueStatusResponse(
            status=convert.league_status(status, self.leagues.running(status.name)),
            matches=[convert.match_info(match, names) for match in matches])

    @streaming
    def WatchMatch(self, request: pb.WatchMatchRequest,
                   context: grpc.ServicerContext) -> Iterator[pb.WatchMatchResponse]:
        """Stream a match's state, then its events and outcome."""
        caller = self.caller(context)
        match = find_match(self.store, request.match_id)
        mine: frozenset[int] = frozenset()
        if request.as_bot:
            with self.store.session() as session:
                bot = owned_bot(session, caller, request.as_bot)
                versions = {version.id for version in bot.versions}
            mine = frozenset(index for index, entrant in enumerate(match.entrants)
                             if entrant in versions)
            if not mine:
                raise invalid(f"the bot {request.as_bot!r} does not play in match {match.id!r}")
        if not self.watch_slots.acquire(blocking=False):
            raise ApiError(grpc.StatusCode.RESOURCE_EXHAUSTED,
                           "too many matches are being watched on this service; try again later")
        try:
            yield from watch_match(self.store, match.id, mine, self.stopping, context.is_active)
        finally:
            self.watch_slots.release()

    @unary
    def GetLeaderboard(self, request: pb.GetLeaderboardRequest,
                       context: grpc.ServicerContext) -> pb.GetLeaderboardResponse:
        """The OpenSkill leaderboards."""
        self.caller(context)
        if request.game:
            get_spec(request.game)
        boards = leaderboards(self.store, request.league or None, request.game or None)
        per_game = boards.per_game
        if request.game:
            per_game = {request.game: per_game[request.game]}
        return pb.GetLeaderboardResponse(
            games=[pb.GameLeaderboard(game=game, ratings=convert.rating_entries(
                ratings, boards.faults.get(game)), note=boards.note(game))
                   for game, ratings in per_game.items()],
            overall=[] if request.game else convert.rating_entries(
                boards.overall, boards.overall_faults()),
            overall_note="" if request.game else boards.note(None))

    @unary
    def GetReplay(self, request: pb.GetReplayRequest,
                  context: grpc.ServicerContext) -> pb.GetReplayResponse:
        """The match records of a finished match (the logs of the caller's bots only)."""
        caller = self.caller(context)
        match = find_match(self.store, request.match_id)
        if match.status is not MatchStatus.DONE:
            raise ApiError(grpc.StatusCode.FAILED_PRECONDITION,
                           f"match {match.id!r} is {match.status.value}, not done: its replay "
                           "comes once it is played (watch it meanwhile)")
        return pb.GetReplayResponse(records=[
            plain_record(data).to_json() for data in match_records(self.store, match.id,
                                                                   caller.id)])

    @unary
    def GetBotLogs(self, request: pb.GetBotLogsRequest,
                   context: grpc.ServicerContext) -> pb.GetBotLogsResponse:
        """What one of the caller's bots wrote to stderr."""
        caller = self.caller(context)
        with self.store.session() as session:
            bot: Bot = owned_bot(session, caller, request.bot)
            if request.league:
                from arena.league.status import find_league

                find_league(session, request.league)
            bot_id = bot.id
        return pb.GetBotLogsResponse(entries=bot_logs(self.store, caller.id, bot_id,
                                                      request.league or None, request.limit))
