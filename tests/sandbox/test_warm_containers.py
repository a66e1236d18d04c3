"""A worker's pool keeps Docker bots' containers between matches, as it keeps processes: a
container plays many matches, each of another deal, and its output is the match's own; it is
replaced after a fault, when it no longer runs, past the pool's caps (matches, minutes) and
when its memory has grown past the bound; the spy is never shown a deal twice; ``kill_now``
removes every container at once.

The bots are real images on the real Docker engine: ``bots/warm`` (it names its instance and
stream on standard error, and can grow or exit when told) and the spy (``tests/agents``).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from agents.spy import SPY, deals_per_instance, shown_twice, streams

from arena.agents import DockerSeat, PolicySeat, SeatSpec
from arena.agents.pool import AgentPool, Loan
from arena.agents.warm import MIB, PoolLimits
from arena.games import load_game
from arena.match.results import DuplicateResult, clean_instances
from arena.match.runner import run_duplicate_async
from arena.match.timecontrol import TimeControl
from arena.reasons import Reason
from arena.sandbox.engine import docker_client

from .conftest import BotImageFactory, our_containers

pytestmark = pytest.mark.docker

WARM = Path(__file__).parent / "bots" / "warm"
CONTROL = TimeControl(startup_ms=60_000)
"""A start-up limit for a machine that may be busy."""

NAMED = re.compile(r"^warm (?P<instance>[0-9a-f]+) stream (?P<stream>\d+)$", re.MULTILINE)


def play(pool: AgentPool, seats: list[SeatSpec], seed: int) -> tuple[DuplicateResult, Loan]:
    """One duplicate set of 2-seat briscola on the pool, handed back as a league worker does."""
    loan = pool.lend(seats, seed)
    try:
        result = pool.run(run_duplicate_async(load_game("briscola", 2), seed, loan.seats,
                                              CONTROL))
    except BaseException:
        pool.give_back(loan, None)
        raise
    pool.give_back(loan, clean_instances(result))
    return result, loan


def stderr_of(result: DuplicateResult) -> str:
    """Everything the bots wrote in the set's records."""
    return "".join(seat.stderr for record in result.records if record.conduct
                   for seat in record.conduct.seats)


def containers_of(loan: Loan) -> list[str]:
    """The container of each pooled agent of a match, in entrant and rotation order."""
    return [agent.bot.container_id for _, _, agent in loan.agents()
            if agent.bot is not None and hasattr(agent.bot, "container_id")]


def final_output(loan: Loan) -> str:
    """What the match's containers wrote that Docker logged after their last match's read
    (read once they were stopped, when their log is complete)."""
    return "".join(text for _, _, agent in loan.agents() if agent.bot is not None
                   for text in agent.bot.output.texts())


def named(result: DuplicateResult) -> list[tuple[str, int]]:
    """Each (instance, stream) the warm bot named in the set's output."""
    return [(found["instance"], int(found["stream"]))
            for found in NAMED.finditer(stderr_of(result))]


@pytest.fixture
def pool() -> Any:
    """A pool that is closed, its containers removed, whatever the test did."""
    made = AgentPool()
    yield made
    made.close()
    assert our_containers(docker_client()) == []


def warm_seat(bot_image: BotImageFactory, root: Path, *command: str) -> DockerSeat:
    """The warm bot's image, with options for it when given."""
    seat = DockerSeat(bot_image(WARM), temp_root=root)
    if command:
        return DockerSeat(seat.image, temp_root=root, command=("python", "bot.py", *command))
    return seat


def test_a_container_plays_many_matches_and_its_output_comes_once(
        bot_image: BotImageFactory, short_root: Path, pool: AgentPool) -> None:
    seats: list[SeatSpec] = [warm_seat(bot_image, short_root), PolicySeat("random")]
    runs = [play(pool, seats, seed) for seed in (11, 12, 13)]
    assert all(reason == Reason.OK for result, _ in runs for deal in result.deals
               for reason in deal.reasons)
    first = containers_of(runs[0][1])
    assert len(set(first)) == 2, "one container per rotation"
    assert all(containers_of(loan) == first for _, loan in runs[1:])
    assert pool.launched == 2
    pool.close()  # the last match's latest lines come with the containers' final output
    found = [(number, instance, stream) for number, (result, _) in enumerate(runs, start=1)
             for instance, stream in named(result)]
    late = {(line["instance"], int(line["stream"]))
            for line in NAMED.finditer(final_output(runs[-1][1]))}
    # Docker stamps a line when it reads it: on a busy host a match's last lines may come
    # with the next match's output (or, for the last match, the containers' final output),
    # but each line comes once, and never before its match.
    recorded = [(instance, stream) for _, instance, stream in found]
    assert len(recorded) == len(set(recorded))
    instances = {instance for instance, _ in recorded} | {instance for instance, _ in late}
    assert len(instances) == 2
    assert set(recorded) | late == {(instance, stream) for instance in instances
                                    for stream in (1, 2, 3)}
    assert all(stream <= number for number, _, stream in found)
    listening = "".join(stderr_of(result) for result, _ in runs).count("listening on")
    assert listening == 2, "each container's start-up output comes once"


def test_a_kept_container_is_never_shown_a_deal_twice(
        bot_image: BotImageFactory, short_root: Path, pool: AgentPool) -> None:
    seats: list[SeatSpec] = [DockerSeat(bot_image(SPY), temp_root=short_root),
                             PolicySeat("random")]
    seeds = [21, 22, 21, 23]
    written = ""
    loans = []
    for seed in seeds:
        result, loan = play(pool, seats, seed)
        written += stderr_of(result)
        loans.append(loan)
    pool.close()  # the last matches' latest lines come with the containers' final output
    found = streams(written + "".join(final_output(loan) for loan in loans))
    deals = deals_per_instance(found, seeds)
    assert shown_twice(deals) == {}
    assert pool.launched == 4, "the deal played again got two new containers"
    assert sum(len(seen) for seen in deals.values()) == 2 * len(seeds)


def test_a_container_that_crashed_is_replaced(bot_image: BotImageFactory, short_root: Path,
                                             pool: AgentPool) -> None:
    seats: list[SeatSpec] = [warm_seat(bot_image, short_root, "--crash-stream", "2"),
                             PolicySeat("random")]
    _, first = play(pool, seats, 31)
    crashed, second = play(pool, seats, 32)
    assert containers_of(second) == containers_of(first)
    assert {reason for deal in crashed.deals for reason in deal.reasons} >= {Reason.CRASH}
    _, third = play(pool, seats, 33)
    assert set(containers_of(third)).isdisjoint(containers_of(first))
    assert pool.launched == 4


def test_a_container_stopped_between_matches_is_replaced(
        bot_image: BotImageFactory, short_root: Path, pool: AgentPool) -> None:
    seats: list[SeatSpec] = [warm_seat(bot_image, short_root), PolicySeat("random")]
    _, first = play(pool, seats, 35)
    killed, kept = containers_of(first)
    docker_client().containers.get(killed).kill()
    result, second = play(pool, seats, 36)
    assert all(reason == Reason.OK for deal in result.deals for reason in deal.reasons)
    assert kept in containers_of(second) and killed not in containers_of(second)
    assert pool.launched == 3


def test_the_match_cap_retires_a_container(bot_image: BotImageFactory, short_root: Path
                                           ) -> None:
    pool = AgentPool(limits=PoolLimits(max_matches=2))
    try:
        seats: list[SeatSpec] = [warm_seat(bot_image, short_root), PolicySeat("random")]
        loans = [play(pool, seats, seed)[1] for seed in (41, 42, 43)]
        assert containers_of(loans[1]) == containers_of(loans[0])
        assert set(containers_of(loans[2])).isdisjoint(containers_of(loans[0]))
        assert pool.launched == 4
        assert len(pool.retired) == 2 and all("played 2 matches" in why
                                              for why in pool.retired)
    finally:
        pool.close()
    assert our_containers(docker_client()) == []


def test_a_container_whose_memory_grew_past_the_bound_is_retired(
        bot_image: BotImageFactory, short_root: Path) -> None:
    pool = AgentPool(limits=PoolLimits(max_growth_bytes=24 * MIB))
    try:
        seats: list[SeatSpec] = [warm_seat(bot_image, short_root, "--grow-mb", "48"),
                                 PolicySeat("random")]
        first = play(pool, seats, 51)[1]
        bot = next(agent.bot for _, _, agent in first.agents() if agent.bot is not None)
        assert (pool.run(bot.memory_bytes()) or 0) > 48 * MIB
        second = play(pool, seats, 52)[1]
        assert containers_of(second) == containers_of(first), "the baseline is the first match"
        third = play(pool, seats, 53)[1]
        assert set(containers_of(third)).isdisjoint(containers_of(first))
        assert pool.retired and all("memory grew by" in why for why in pool.retired)
    finally:
        pool.close()
    assert our_containers(docker_client()) == []


def test_kill_now_removes_every_container_at_once(
        bot_image: BotImageFactory, short_root: Path, pool: AgentPool) -> None:
    seats: list[SeatSpec] = [warm_seat(bot_image, short_root), warm_seat(bot_image, short_root)]
    play(pool, seats, 61)
    assert len(our_containers(docker_client())) == 4
    folders = [bot.socket_dir.outer for bot in pool.bots if getattr(bot, "socket_dir", None)]
    assert len(folders) == 4 and all(folder.exists() for folder in folders)
    pool.kill_now()
    assert our_containers(docker_client()) == []
    assert not any(folder.exists() for folder in folders)
    assert pool.bots == []
