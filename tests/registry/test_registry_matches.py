"""Matches, leagues, uploads and the command line with images through a real registry: a match
whose image was deleted pulls it by digest and plays; a registry down at that moment makes the
deals void (VOID_INFRA, no verdict against the bot); a league pins its image entrants by digest
(pushing them when ``CARDARENA_REGISTRY`` is set) and a real Celery worker whose local copy was
deleted pulls the image and plays; ``arena bot build --push`` prints the pinned reference.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from league.redis_server import RedisServer, redis_server  # noqa: F401 - the fixture
from league.test_celery_faults import (  # noqa: F401 - the workdir fixture
    Workers,
    assert_played_once,
    deadline_guard,
    matches,
    new_league,
    row_counts,
    workdir,
)
from server.api.conftest import ServiceFactory, make_service, status_of  # noqa: F401
from sqlalchemy import select
from typer.testing import CliRunner

from arena.agents import DockerSeat, PolicySeat
from arena.cli import app
from arena.games import load_game
from arena.league.dispatch import dispatch_league
from arena.league.run_match import RETRY, VOID, run_match
from arena.match.runner import run_duplicate
from arena.protocol.v1 import arena_pb2 as pb
from arena.reasons import Reason
from arena.sandbox.images import BotImage
from arena.sandbox.registry import REGISTRY_ENV, ensure_local, push_target, split_pinned
from arena.server.remote import pack_folder
from arena.server.uploads import publish
from arena.store import BotVersion, MatchRecordRow, MatchStatus, SeatResult, open_store

from .conftest import (
    SAMPLE_RANDOM,
    PrivateRegistry,
    Pushed,
    StampedImage,
    free_port,
    is_local,
    remove_image,
    untag,
)

BRISCOLA = load_game("briscola")
OK, VOID_INFRA = Reason.OK, Reason.VOID_INFRA


def test_a_match_pulls_its_deleted_image_by_digest_and_plays(
        pushed: Pushed, leftovers: Path) -> None:
    image = pushed()
    remove_image(image.image_id)
    result = run_duplicate(BRISCOLA, 5, [DockerSeat(image, temp_root=leftovers),
                                         PolicySeat("random")])
    assert [deal.reasons for deal in result.deals] == [(OK, OK), (OK, OK)]
    bot = result.entrants[0]
    assert bot.agent["image"] == image.pinned and bot.agent["image_id"] == image.image_id
    assert is_local(image.pinned)


@pytest.fixture
def registry_down(registry: PrivateRegistry, pushed: Pushed) -> Iterator[BotImage]:
    """The pushed image, deleted here, with the registry stopped (started again afterwards,
    once the test's other fixtures are done)."""
    image = pushed()
    remove_image(image.image_id)
    registry.stop()
    try:
        yield image
    finally:
        registry.start()


def test_a_registry_down_during_a_match_makes_it_void_without_a_verdict(
        registry_down: BotImage, registry: PrivateRegistry, leftovers: Path) -> None:
    image = registry_down
    result = run_duplicate(BRISCOLA, 6, [DockerSeat(image, temp_root=leftovers),
                                         PolicySeat("random")])
    assert result.void
    for deal in result.deals:
        assert deal.reasons == (VOID_INFRA, VOID_INFRA) and deal.forfeited == (False, False)
        assert deal.record is None
        assert (f"the registry {registry.address} does not answer at "
                f"http://{registry.address}/v2/ (connection refused): cannot pull "
                f"{image.pinned}") in deal.void


def test_a_league_match_whose_registry_is_down_is_retried_then_void(
        registry: PrivateRegistry, pushed: Pushed, workdir: Path) -> None:  # noqa: F811
    """Each attempt is VOID_INFRA with the registry's line, handed back within the attempt
    cap, and void at the cap: no result for or against the bot."""
    image = pushed()
    ensure_local(image)
    db = f"sqlite:///{workdir / 'arena.db'}"
    new_league(db, [f"image:{image.pinned}", "random"], deals=1)
    (match,) = matches(db)
    remove_image(image.image_id)
    registry.stop()
    try:
        outcomes = [run_match(match.id, store_url=db, max_attempts=2) for _ in range(2)]
    finally:
        registry.start()
    assert outcomes == [RETRY, VOID]
    (match,) = matches(db)
    assert match.status is MatchStatus.VOID and match.attempts == 2
    assert match.last_error is not None and match.last_error.startswith("VOID_INFRA: ")
    assert (f"the registry {registry.address} does not answer at http://{registry.address}"
            f"/v2/ (connection refused): cannot pull {image.pinned}") in match.last_error
    assert row_counts(db, SeatResult) == {}


def test_a_celery_worker_pulls_the_league_image_it_lacks(
        registry: PrivateRegistry, stamped_image: StampedImage, workdir: Path,  # noqa: F811
        redis_server: RedisServer, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    """The league is made with CARDARENA_REGISTRY set, which pushes the image entrant and pins
    it; the worker (no registry configured) lacks the image and pulls it by that digest."""
    image = stamped_image()
    db = f"sqlite:///{workdir / 'arena.db'}"
    monkeypatch.setenv(REGISTRY_ENV, registry.address)
    new_league(db, [f"image:{image.ref}", "random"], deals=2)
    monkeypatch.delenv(REGISTRY_ENV)
    with open_store(db) as store, store.session() as session:
        version = session.scalars(select(BotVersion).where(BotVersion.image_id.is_not(None))
                                  ).one()
        pinned = version.image_ref or ""
    parts = split_pinned(pinned)
    assert parts is not None and parts[0] == f"{registry.address}/{image.ref.partition(':')[0]}"
    assert registry.has_manifest(*parts)
    remove_image(image.image_id)
    assert not is_local(image.image_id)
    workers = Workers(workdir, redis_server.url, db)
    try:
        workers.start()
        workers.wait_ready(0)
        counts = dispatch_league(db, "faults", redis_server.url, deadline_guard(lambda _: None))
    finally:
        workers.stop_all()
    assert counts.done == counts.total == 2, workers.log(0)[-3000:]
    assert_played_once(db)
    assert is_local(pinned)
    with open_store(db) as store, store.session() as session:
        records = list(session.scalars(select(MatchRecordRow)))
    assert records and all(pinned in json.dumps(row.record) for row in records)


def test_an_upload_is_pushed_when_a_registry_is_configured(
        registry: PrivateRegistry, stamped_image: StampedImage,
        monkeypatch: pytest.MonkeyPatch) -> None:
    image = stamped_image()
    monkeypatch.delenv(REGISTRY_ENV, raising=False)
    assert publish(image) == image
    monkeypatch.setenv(REGISTRY_ENV, registry.address)
    published = publish(image)
    parts = split_pinned(published.pinned)
    assert parts is not None and registry.has_manifest(*parts)
    assert published.image_id == image.image_id


def test_the_service_pushes_an_upload_and_records_it_pinned(
        registry: PrivateRegistry, make_service: ServiceFactory, base_image: str,  # noqa: F811
        monkeypatch: pytest.MonkeyPatch) -> None:
    """With CARDARENA_REGISTRY set, an upload's version is its pinned reference; a registry
    that does not answer refuses the upload (FAILED_PRECONDITION) with its line, leaving no
    image."""
    from arena.server.api.bots import sandbox_uploads

    monkeypatch.setenv(REGISTRY_ENV, registry.address)
    service = make_service(uploads=sandbox_uploads())
    down = f"127.0.0.1:{free_port()}"
    built = ["cardarena-bot/regtest-upload:1", "cardarena-bot/regtest-upload:2"]
    try:
        with service.register("regtest") as user:
            reply = user.call("SubmitBot", pb.SubmitBotRequest(
                name="upload", archive=pack_folder(SAMPLE_RANDOM)))
            pinned = reply.version.image_ref
            built.append(pinned)
            parts = split_pinned(pinned)
            assert parts is not None
            assert parts[0] == f"{registry.address}/cardarena-bot/regtest-upload"
            assert registry.has_manifest(*parts)
            monkeypatch.setenv(REGISTRY_ENV, down)
            code, message = status_of(lambda: user.call("SubmitBot", pb.SubmitBotRequest(
                name="upload", archive=pack_folder(SAMPLE_RANDOM))))
        assert code == grpc.StatusCode.FAILED_PRECONDITION
        assert message == (f"the registry {down} does not answer at http://{down}/v2/ "
                           f"(connection refused): cannot push "
                           f"{down}/cardarena-bot/regtest-upload:2 (FAILED_PRECONDITION)")
        assert not is_local(built[1]) and not is_local(f"{down}/cardarena-bot/regtest-upload:2")
    finally:
        for ref in [*built, f"{registry.address}/cardarena-bot/regtest-upload:1"]:
            untag(ref)


def test_bot_build_push_prints_the_pinned_ref(
        registry: PrivateRegistry, sample_image: BotImage) -> None:
    repository, tag = push_target(sample_image, registry.address)
    try:
        result = CliRunner().invoke(app, ["bot", "build", str(SAMPLE_RANDOM), "--push",
                                          registry.address])
    finally:
        untag(f"{repository}:{tag}")
    assert result.exit_code == 0, result.output
    pushed_line = [line for line in result.stdout.splitlines() if line.startswith("pushed ")]
    assert len(pushed_line) == 1, result.stdout
    pinned = pushed_line[0].removeprefix("pushed ")
    parts = split_pinned(pinned)
    assert parts is not None and parts[0] == repository and registry.has_manifest(*parts)
    assert f"next: arena bot check image:{pinned}" in result.stdout


def test_bot_build_push_to_a_registry_that_does_not_answer_is_one_line(
        sample_image: BotImage) -> None:
    address = f"127.0.0.1:{free_port()}"
    repository, tag = push_target(sample_image, address)
    result = CliRunner().invoke(app, ["bot", "build", str(SAMPLE_RANDOM), "--push", address])
    assert not is_local(f"{repository}:{tag}")
    assert result.exit_code == 2
    errors = [line for line in result.stderr.splitlines() if line.strip()]
    assert errors[-1] == (f"error: the registry {address} does not answer at http://{address}"
                          f"/v2/ (connection refused): cannot push {repository}:{tag}")


def test_bot_build_push_refuses_a_bad_registry_name_before_building() -> None:
    result = CliRunner().invoke(app, ["bot", "build", str(SAMPLE_RANDOM), "--push", "no way"])
    assert result.exit_code != 0
    assert "registry 'no way' is not HOST[:PORT][/PATH]" in result.stderr
    assert "Step " not in result.stderr
