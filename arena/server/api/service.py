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
from arena.server.api import convert, ladder
from arena.server.api.accounts import AccountDesk, AccountPolicy
from arena.server.api.auth import Caller, authenticate
from arena.server.api.bots import BotCatalog, Uploads, find_bot, owned_bot
from arena.server.api.errors import ApiError, invalid, streaming, unary
from arena.server.api.leagues import LeagueRunner, league_settings
from arena.server.api.logs import bot_logs
from arena.server.api.watch import find_match, plain_record, watch_match
from arena.server.records import match_records, viewer_of
from arena.store import Bot, MatchStatus, Store
from arena.store.audit import audit

MAX_WATCHERS = 24
"""Watch streams served at once (each holds a server thread while it lasts)."""


class ArenaServicer(pb_grpc.ArenaServiceServicer):
    """Answers the ArenaService calls."""

    def __init__(self, store: Store, store_url: str, data_dir: Path, *, workers: int = 2,
                 broker: str | None = None, uploads: Uploads | None = None,
                 max_watchers: int = MAX_WATCHERS, accounts: AccountPolicy | None = None,
                 rate_humans: bool = False) -> None:
        """Serve ``store``; uploads go under ``data_dir``; leagues run with ``workers``
        local processes, or through Celery at ``broker``; ``accounts`` sets registration
        and how long tokens last; people's tables are rated only with ``rate_humans``."""
        self.store = store
        self.rate_humans = rate_humans
        self.accounts = AccountDesk(store, accounts)
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
        """Create a user and its first token (as the registration mode allows)."""
        return self.accounts.register(request.name, request.invitation)

    def note(self, caller: Caller, action: str, target: str, detail: str = "") -> None:
        """Write one entry of the audit log, committed."""
        with self.store.session() as session:
            audit(session, caller.name, action, target, detail)
            session.commit()

    @unary
    def SubmitBot(self, request: pb.SubmitBotRequest,
                  context: grpc.ServicerContext) -> pb.SubmitBotResponse:
        """Build an uploaded archive as a new version of the caller's bot."""
        caller = self.caller(context)
        submitted = self.catalog.submit(caller, request.name, request.archive)
        self.note(caller, "bot.uploaded", f"bot:{submitted.bot}",
                  f"version id {submitted.version_id}")
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
        removed = self.catalog.delete(caller, request.name)
        self.note(caller, "bot.deleted", f"bot:{request.name}")
        return pb.DeleteBotResponse(removed_images=removed)

    @unary
    def CreateLeague(self, request: pb.CreateLeagueRequest,
                     context: grpc.ServicerContext) -> pb.CreateLeagueResponse:
        """Create a league between uploaded bots and policies."""
        caller = self.caller(context)
        for game in request.games:
            get_spec(game)
        settings = league_settings(request.decision_ms, request.bank_ms, request.startup_ms,
                                   request.strikes, request.forfeit_policy)
        seed = request.seed if request.HasField("seed") else None
        status = self.leagues.create(request.name, list(request.bots), list(request.games),
                                     request.deals, request.rounds, seed, settings,
                                     owner_id=caller.id)
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
        boards = leaderboards(self.store, request.league or None, request.game or None,
                              self.rate_humans)
        per_game = boards.per_game
        if request.game:
            per_game = {request.game: per_game[request.game]}
        return pb.GetLeaderboardResponse(
            games=[pb.GameLeaderboard(game=game, ratings=convert.rating_entries(
                ratings, boards.faults.get(game), boards.set_counts(game)), note=boards.note(game))
                   for game, ratings in per_game.items()],
            overall=[] if request.game else convert.rating_entries(
                boards.overall, boards.overall_faults(), boards.set_counts(None)),
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
        viewer = viewer_of(caller.id, caller.is_admin)
        return pb.GetReplayResponse(records=[
            plain_record(data).to_json() for data in match_records(self.store, match.id,
                                                                   viewer)])

    @unary
    def GetBotLogs(self, request: pb.GetBotLogsRequest,
                   context: grpc.ServicerContext) -> pb.GetBotLogsResponse:
        """What one of the caller's bots (any bot, for an admin) wrote to stderr."""
        caller = self.caller(context)
        with self.store.session() as session:
            bot: Bot = find_bot(session, request.bot) if caller.is_admin \
                else owned_bot(session, caller, request.bot)
            if request.league:
                from arena.league.status import find_league

                find_league(session, request.league)
            bot_id = bot.id
        return pb.GetBotLogsResponse(entries=bot_logs(
            self.store, viewer_of(caller.id, caller.is_admin), bot_id, request.league or None,
            request.limit))

    @unary
    def CreateToken(self, request: pb.CreateTokenRequest,
                    context: grpc.ServicerContext) -> pb.CreateTokenResponse:
        """A new token of the caller."""
        return self.accounts.create_token(self.caller(context), request.days, request.never)

    @unary
    def ListTokens(self, request: pb.ListTokensRequest,
                   context: grpc.ServicerContext) -> pb.ListTokensResponse:
        """The caller's tokens (never their text)."""
        return self.accounts.list_tokens(self.caller(context), request.all)

    @unary
    def RevokeToken(self, request: pb.RevokeTokenRequest,
                    context: grpc.ServicerContext) -> pb.RevokeTokenResponse:
        """Revoke one of the caller's tokens."""
        return self.accounts.revoke_token(self.caller(context), request.id)

    @unary
    def RotateToken(self, request: pb.RotateTokenRequest,
                    context: grpc.ServicerContext) -> pb.RotateTokenResponse:
        """A new token in place of one of the caller's, which is revoked."""
        return self.accounts.rotate_token(self.caller(context), request.id, request.days)

    @unary
    def DisableAccount(self, request: pb.DisableAccountRequest,
                       context: grpc.ServicerContext) -> pb.DisableAccountResponse:
        """Admins: disable (or enable) a user or a bot."""
        return self.accounts.disable(self.caller(context), request.kind, request.name,
                                     request.enable)

    @unary
    def CreateInvitation(self, request: pb.CreateInvitationRequest,
                         context: grpc.ServicerContext) -> pb.CreateInvitationResponse:
        """Admins: an invitation code."""
        return self.accounts.invite(self.caller(context), request.days)

    @unary
    def GetAuditLog(self, request: pb.GetAuditLogRequest,
                    context: grpc.ServicerContext) -> pb.GetAuditLogResponse:
        """Admins: the audit log, newest first."""
        return self.accounts.audit_log(self.caller(context), request.limit)

    @unary
    def GetLadder(self, request: pb.GetLadderRequest,
                  context: grpc.ServicerContext) -> pb.GetLadderResponse:
        """The ladder's games, active bots with their done sets, and sets in flight."""
        self.caller(context)
        return ladder.get_ladder(self.store)

    @unary
    def SetLadderEntry(self, request: pb.SetLadderEntryRequest,
                       context: grpc.ServicerContext) -> pb.SetLadderEntryResponse:
        """Withdraw a bot from the ladder, or bring it back (its owner, or an admin)."""
        ladder.set_entry(self.store, self.caller(context), request.bot, request.active)
        return pb.SetLadderEntryResponse()
