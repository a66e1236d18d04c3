"""The Docker agent: the sample bot in a container plays duplicate sets, and bad starts get
one clear line each (a missing image, no socket, an early exit, a socket that is a link).

Every test that starts containers checks that nothing is left: no container this process
labelled, no socket folder, no process.
"""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

import pytest

from arena.agents import DockerAgent, DockerSeat, PolicySeat
from arena.agents.container import log_time_ns
from arena.agents.seats import HOST_MATCHES_ENV, host_matches, pin_to_cores
from arena.games import load_game
from arena.league import local
from arena.match.results import DuplicateResult
from arena.match.runner import run_duplicate
from arena.match.timecontrol import TimeControl
from arena.reasons import Reason
from arena.sandbox import labels
from arena.sandbox.errors import ImageNotFound
from arena.sandbox.images import BotImage
from arena.sandbox.limits import SandboxLimits

from .conftest import SAMPLE_RANDOM, BotImageFactory
from .kept import KeptDockerSeat

BRISCOLA = load_game("briscola")
OK = Reason.OK
INIT_ERROR = Reason.INIT_ERROR

pytestmark = pytest.mark.docker


def bot_folder(folder: Path, name: str, command: str) -> Path:
    """A bot folder whose container runs the shell ``command`` instead of a bot."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "bot.toml").write_text(
        f'name = "{name}"\nversion = "0.1"\nlanguage = "python"\n'
        f'command = ["python", "bot.py"]\ngames = ["*"]\n', encoding="utf-8")
    cmd = json.dumps(["sh", "-c", command])
    (folder / "Dockerfile").write_text(
        f"ARG BASE=cardarena/python-base\nFROM ${{BASE}}\nCMD {cmd}\n", encoding="utf-8")
    return folder


def assert_removed(seat: KeptDockerSeat) -> None:
    """Every agent's container is gone and its socket folder removed."""
    assert seat.agents
    for agent in seat.agents:
        assert agent.exit is not None
        assert agent.socket_dir is None or not agent.socket_dir.outer.exists()


def test_the_sample_bot_in_a_container_plays_a_duplicate_set_against_a_policy(
        bot_image: BotImageFactory, leftovers: Path) -> None:
    image: BotImage = bot_image(SAMPLE_RANDOM)
    seat = KeptDockerSeat(DockerSeat(image, temp_root=leftovers))
    result: DuplicateResult = run_duplicate(BRISCOLA, 21, [seat, PolicySeat("random")])
    assert [deal.reasons for deal in result.deals] == [(OK, OK), (OK, OK)]
    bot, policy = result.entrants
    assert bot.label == "random (docker)"
    assert bot.agent["kind"] == "docker"
    assert bot.agent["image_id"] == image.image_id and image.image_id.startswith("sha256:")
    assert bot.agent["limits"]["memory_bytes"] == SandboxLimits().memory_bytes
    assert bot.exit.status == 0
    assert bot.total == -policy.total
    assert len({agent.container_id for agent in seat.agents}) == 2, "a container per deal"
    for rotation, deal in enumerate(result.deals):
        assert deal.record is not None and deal.record.conduct is not None
        report = deal.record.conduct.seats[rotation]
        assert report.agent["image_id"] == image.image_id
        assert report.reason == "OK"
    first = result.deals[0].record
    assert first is not None and first.conduct is not None
    assert "listening on unix:/run/cardarena/agent.sock" in first.conduct.seats[0].stderr
    assert_removed(seat)


def test_the_sample_bot_plays_itself_in_two_containers(bot_image: BotImageFactory,
                                                       leftovers: Path) -> None:
    image = bot_image(SAMPLE_RANDOM)
    seats = [KeptDockerSeat(DockerSeat(image, temp_root=leftovers)) for _ in range(2)]
    result = run_duplicate(BRISCOLA, 5, seats)
    assert [deal.reasons for deal in result.deals] == [(OK, OK), (OK, OK)]
    assert [entrant.exit.status for entrant in result.entrants] == [0, 0]
    first, second = (seat.agents[0] for seat in seats)
    assert first.container_id != second.container_id
    assert first.socket_dir is not None and second.socket_dir is not None
    assert first.socket_dir.outer != second.socket_dir.outer
    for seat in seats:
        assert_removed(seat)


def test_a_container_is_hardened_and_labelled(bot_image: BotImageFactory,
                                             leftovers: Path) -> None:
    image = bot_image(SAMPLE_RANDOM)
    agent = DockerAgent(image, temp_root=leftovers, cpuset="0")

    async def inspect() -> dict[str, Any]:
        """Launch, read the container's configuration, shut down."""
        try:
            await agent.launch(30)
            await asyncio.to_thread(agent.container.reload)
            return dict(agent.container.attrs)
        finally:
            await agent.shutdown()

    attrs = asyncio.run(inspect())
    host, config = attrs["HostConfig"], attrs["Config"]
    assert host["NetworkMode"] == "none" and host["ReadonlyRootfs"] is True
    assert host["CapDrop"] == ["ALL"] and host["SecurityOpt"] == ["no-new-privileges"]
    assert host["Memory"] == host["MemorySwap"] == 512 * 2**20
    assert host["PidsLimit"] == 64 and host["NanoCpus"] == 10**9 and host["Init"] is True
    assert config["User"] == "10001:10001"
    pinned = (os.cpu_count() or 1) >= 2
    assert host["CpusetCpus"] == ("0" if pinned else "")
    assert agent.describe().get("cpuset") == ("0" if pinned else None)
    assert config["Labels"][labels.SANDBOX] == "1"
    assert config["Labels"][labels.BOT_NAME] == "random"
    assert config["Labels"][labels.ARENA_PID] == str(os.getpid())
    assert config["Labels"][labels.SOCKET_DIR].startswith(str(leftovers))
    assert agent.exit is not None and agent.exit.status == 0


@pytest.mark.parametrize("when", ["at once", "once the container exists"])
def test_a_launch_cancelled_part_way_leaves_nothing_behind(
        bot_image: BotImageFactory, leftovers: Path, when: str) -> None:
    image = bot_image(SAMPLE_RANDOM)
    agent = DockerAgent(image, temp_root=leftovers)

    async def cancel_launch() -> None:
        """Cancel the launch, then shut the agent down as the runner does."""
        launching = asyncio.ensure_future(agent.launch(30))
        while when != "at once" and agent.container is None and not launching.done():
            await asyncio.sleep(0.01)
        launching.cancel()
        with pytest.raises(asyncio.CancelledError):
            await launching
        await agent.shutdown()
        assert await agent.shutdown() is agent.exit

    asyncio.run(cancel_launch())
    assert agent.socket_dir is None or not agent.socket_dir.outer.exists()


def test_a_missing_image_is_one_clear_line(docker_required: Any) -> None:
    with pytest.raises(ImageNotFound, match=r"no Docker image cardarena-bot/nothing-here:0 on "
                                            r"this machine; build it with `arena bot build"):
        DockerSeat.from_image("cardarena-bot/nothing-here:0")


def test_an_image_removed_before_the_match_is_the_arenas_failure(leftovers: Path) -> None:
    """An image gone from the machine is never the bot's doing: no verdict against it."""
    image = BotImage("cardarena-bot/gone:0", "sha256:" + "0" * 64, "gone", "0", ("*",))
    seat = KeptDockerSeat(DockerSeat(image, temp_root=leftovers))
    result = run_duplicate(BRISCOLA, 3, [seat, PolicySeat("random")], rotations=1)
    deal = result.deals[0]
    assert deal.void and deal.reasons[0] == Reason.VOID_INFRA
    assert "no Docker image cardarena-bot/gone:0 on this machine" in deal.details[0]
    assert_removed(seat)


def test_a_container_that_never_creates_its_socket_is_an_init_error_with_its_log(
        bot_image: BotImageFactory, tmp_path: Path, leftovers: Path) -> None:
    image = bot_image(bot_folder(tmp_path / "test-mute", "test-mute",
                                 "echo waiting for nothing; trap '' TERM; "
                                 "while :; do sleep 1; done"))
    seat = KeptDockerSeat(DockerSeat(image, temp_root=leftovers))
    result = run_duplicate(BRISCOLA, 3, [seat, PolicySeat("random")],
                           TimeControl(startup_ms=3000), rotations=1)
    deal = result.deals[0]
    assert deal.reasons == (INIT_ERROR, OK)
    assert "the bot did not create its socket within 3 s" in deal.details[0]
    assert "waiting for nothing" in deal.details[0]
    agent = seat.agents[0]
    assert agent.exit is not None and agent.exit.status == -9, "SIGTERM ignored: killed"
    assert_removed(seat)


def test_a_container_that_exits_at_start_is_an_init_error_with_its_status_and_log(
        bot_image: BotImageFactory, tmp_path: Path, leftovers: Path) -> None:
    image = bot_image(bot_folder(tmp_path / "test-quitter", "test-quitter",
                                 "echo no config found >&2; exit 3"))
    seat = KeptDockerSeat(DockerSeat(image, temp_root=leftovers))
    result = run_duplicate(BRISCOLA, 3, [seat, PolicySeat("random")], rotations=1)
    deal = result.deals[0]
    assert deal.reasons == (INIT_ERROR, OK)
    assert "the bot exited with status 3 before listening on its socket" in deal.details[0]
    assert "no config found" in deal.details[0]
    assert seat.agents[0].exit is not None and seat.agents[0].exit.status == 3
    assert_removed(seat)


def test_a_socket_replaced_by_a_link_is_refused_and_the_host_file_untouched(
        bot_image: BotImageFactory, tmp_path: Path, leftovers: Path) -> None:
    target = leftovers.parent / f"{leftovers.name}-target"
    target.write_text("host file\n", encoding="utf-8")
    try:
        image = bot_image(bot_folder(tmp_path / "test-linker", "test-linker",
                                     f"ln -s {target} /run/cardarena/agent.sock; exec sleep 600"))
        seat = KeptDockerSeat(DockerSeat(image, temp_root=leftovers))
        result = run_duplicate(BRISCOLA, 3, [seat, PolicySeat("random")], rotations=1)
        deal = result.deals[0]
        assert deal.reasons == (INIT_ERROR, OK)
        assert deal.details[0] == "the bot replaced its socket with a symbolic link; refused"
        assert target.read_text(encoding="utf-8") == "host file\n"
        assert_removed(seat)
    finally:
        target.unlink()


def sdk_bot(folder: Path, name: str, act: str,
            start: str = "self.rng = random.Random(match_seed(match))") -> Path:
    """A bot folder with an SDK bot whose ``act`` body is ``act`` and ``on_match_start`` body
    is ``start`` (``os``, ``random`` and the SDK's ``match_seed`` are imported)."""
    folder.mkdir(parents=True)
    (folder / "bot.toml").write_text(
        f'name = "{name}"\nversion = "0.1"\nlanguage = "python"\n'
        'command = ["python", "bot.py"]\ngames = ["*"]\n', encoding="utf-8")
    (folder / "bot.py").write_text(
        "import os\nimport random\nfrom cardarena_sdk import Bot, match_seed, serve\n\n"
        f"class TestBot(Bot):\n    name = {name!r}\n    version = '0.1'\n\n"
        f"    def on_match_start(self, match):\n        {start}\n\n"
        f"    def act(self, request):\n        {act}\n\n"
        "if __name__ == '__main__':\n    serve(TestBot)\n", encoding="utf-8")
    (folder / "Dockerfile").write_text(
        "ARG BASE=cardarena/python-base\nFROM ${BASE}\nWORKDIR /bot\nCOPY . /bot\n"
        'CMD ["python", "bot.py"]\n', encoding="utf-8")
    return folder


def test_a_bot_that_crashes_mid_deal_is_a_crash_with_its_exit(
        bot_image: BotImageFactory, tmp_path: Path, leftovers: Path) -> None:
    image = bot_image(sdk_bot(tmp_path / "crasher", "test-crasher", "os._exit(7)"))
    seat = KeptDockerSeat(DockerSeat(image, temp_root=leftovers))
    result = run_duplicate(BRISCOLA, 3, [seat, PolicySeat("random")])
    first, second = result.deals
    assert first.reasons == (Reason.CRASH, OK)
    assert "the bot exited with status 7" in first.details[0]
    assert second.reasons == (OK, Reason.CRASH)
    assert result.entrants[0].exit.status == 7
    assert_removed(seat)


def test_a_bot_killed_for_memory_is_oom_with_its_limit(
        bot_image: BotImageFactory, tmp_path: Path, leftovers: Path) -> None:
    image = bot_image(sdk_bot(tmp_path / "hog", "test-hog", "hoard = bytearray(2**30); return 1"))
    limits = SandboxLimits(memory_bytes=96 * 2**20)
    seat = KeptDockerSeat(DockerSeat(image, limits, temp_root=leftovers))
    result = run_duplicate(BRISCOLA, 3, [seat, PolicySeat("random")], rotations=1)
    deal = result.deals[0]
    assert deal.reasons == (Reason.OOM, OK)
    assert deal.details[0] == "the bot was killed: out of memory (limit 96 MiB)"
    assert result.entrants[0].exit.status == -9
    assert_removed(seat)


def test_each_deals_output_is_that_of_its_own_container(
        bot_image: BotImageFactory, tmp_path: Path, leftovers: Path) -> None:
    """Each rotation has a container of its own: a deal's record keeps that container's
    output, and none of the other deal's."""
    image = bot_image(sdk_bot(
        tmp_path / "talker", "test-talker", "return request.random_action(self.rng)",
        "self.rng = random.Random(match_seed(match)); print('starting', match.match_id)"))
    seat = KeptDockerSeat(DockerSeat(image, temp_root=leftovers))
    result = run_duplicate(BRISCOLA, 3, [seat, PolicySeat("random")], match_id="talk")
    assert [deal.reasons for deal in result.deals] == [(OK, OK), (OK, OK)]
    outputs = [deal.record.conduct.seats[rotation].stderr
               for rotation, deal in enumerate(result.deals)
               if deal.record is not None and deal.record.conduct is not None]
    assert len(outputs) == 2
    assert "starting talk-0" in outputs[0] and "talk-1" not in outputs[0]
    assert "starting talk-1" in outputs[1] and "talk-0" not in outputs[1]
    assert [len(agent.output_windows()) for agent in seat.agents] == [1, 1]
    assert_removed(seat)


def test_docker_log_timestamps_are_read_to_the_nanosecond() -> None:
    assert log_time_ns(b"1970-01-01T00:00:01.000000002Z") == 1_000_000_002
    assert log_time_ns(b"2026-11-29T18:35:48.5Z") == 1795977348_500_000_000
    assert log_time_ns(b"2026-11-29T18:35:48Z") == 1795977348_000_000_000
    assert log_time_ns(b"garbage") is None


def test_docker_seats_are_pinned_to_a_core_each_when_there_are_enough() -> None:
    image = BotImage("cardarena-bot/x:1", "sha256:" + "0" * 64, "x", "1", ("*",))
    docker, policy = DockerSeat(image), PolicySeat("random")
    pinned = pin_to_cores([docker, policy, docker], cores=[2, 5])
    assert [getattr(seat, "cpuset", None) for seat in pinned] == ["2", None, "5"]
    assert pin_to_cores([docker, docker, docker], cores=[0, 1]) == [docker, docker, docker]
    assert pin_to_cores([docker], cores=[0]) == [docker]
    chosen = DockerSeat(image, cpuset="1")
    assert pin_to_cores([chosen, docker], cores=[0, 1])[0] is chosen


def test_seats_are_not_pinned_when_the_host_s_matches_at_once_would_share_cores(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Two matches at once of two Docker seats each need four cores to pin; on two, each
    seat runs under its CPU quota on any core (pinned, the two matches' seats would queue on
    one core while the other idles)."""
    image = BotImage("cardarena-bot/x:1", "sha256:" + "0" * 64, "x", "1", ("*",))
    docker = DockerSeat(image)
    assert pin_to_cores([docker, docker], cores=[0, 1], matches=2) == [docker, docker]
    pinned = pin_to_cores([docker, docker], cores=[0, 1, 2, 3], matches=2)
    assert [getattr(seat, "cpuset", None) for seat in pinned] == ["0", "1"]
    monkeypatch.setenv(HOST_MATCHES_ENV, "2")
    assert host_matches() == 2
    assert pin_to_cores([docker, docker], cores=[0, 1]) == [docker, docker]
    for unset in ("", "two", "0"):
        monkeypatch.setenv(HOST_MATCHES_ENV, unset)
        assert host_matches() == 1
    assert pin_to_cores([docker, docker], cores=[0, 1])[0].cpuset == "0"  # type: ignore[union-attr]


def test_league_workers_know_how_many_matches_their_host_plays_at_once(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The local pool tells its workers (``worker_init``) how many of them there are."""
    monkeypatch.delenv(HOST_MATCHES_ENV, raising=False)
    monkeypatch.setattr(local, "die_with_parent", lambda: None)
    monkeypatch.setattr(local.signal, "signal", lambda *args: None)
    local.worker_init(False, 3)
    assert os.environ[HOST_MATCHES_ENV] == "3" and host_matches() == 3


class BrokenLogs:
    """A container whose log Docker hands over in part, then breaks off, the first ``breaks``
    times it is read."""

    def __init__(self, frames: list[bytes], breaks: int) -> None:
        """The log's timestamped frames; how many reads break after the first frame."""
        self.frames = frames
        self.breaks = breaks
        self.reads = 0

    def logs(self, **options: Any) -> Any:
        """The frames, or the first one and then Docker's error."""
        from docker.errors import APIError

        self.reads += 1
        if self.reads <= self.breaks:
            yield self.frames[0]
            raise APIError("log stream broken off")
        yield from self.frames


FRAMES = [b"2026-11-29T18:35:48.1Z first\n", b"2026-11-29T18:35:48.2Z second\n"]


@pytest.mark.parametrize(("breaks", "reads", "kept"), [
    (0, 1, "first\nsecond\n"), (1, 2, "first\nsecond\n"), (5, 2, "first\n")])
def test_a_log_read_docker_breaks_off_is_tried_again_and_the_most_is_kept(
        breaks: int, reads: int, kept: str) -> None:
    agent = DockerAgent(BotImage("img:1", "sha256:x", "img", "1", ("*",)))
    container = agent.container = BrokenLogs(FRAMES, breaks)
    agent._keep_output()
    assert container.reads == reads
    assert "".join(agent.output_windows()) == kept
