"""The Celery task: a match id and a database URL in, ``run_match`` under a lease, a status out.

The task holds no state of its own. ``run_match`` claims the match's lease (a second delivery
of the same match finds it taken or done and is skipped), plays it and writes the result; an
attempt that failed is handed back to ``pending`` and sent again at once, until the attempt cap
makes the match void. A match that runs past the time limit is stopped and counted as a failed
attempt. The worker process keeps its process bots running between matches (``worker_pool``)
and stops them when it exits.
"""

from __future__ import annotations

import logging
import os
import secrets
import signal
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from types import FrameType
from typing import Any

from celery import Celery, Task
from celery.worker.request import Request
from kombu.exceptions import OperationalError

from arena.store import MatchStatus, fail_match

log = logging.getLogger(__name__)

TASK_NAME = "cardarena.run_match"
"""The explicit name of the task that runs one match."""

QUEUE = "cardarena.matches"
"""The queue the matches go through."""


class MatchTimeLimitExceeded(BaseException):
    """A match ran past its time limit (raised in the worker's main thread)."""


class MatchRequest(Request):  # type: ignore[misc]
    """A delivered match whose failed acknowledgement makes the worker reconnect.

    Celery would log the failure and go on, but the unacknowledged message keeps the worker's
    one prefetch slot, so a worker whose broker went away during a match would never take
    another; raising the connection error makes the consumer reconnect on a fresh channel.
    """

    def acknowledge(self) -> None:
        """Acknowledge the message; on a lost connection, say so and raise the error."""
        if self.acknowledged:
            return
        self.acknowledged = True
        try:
            self._message.ack()
        except self._connection_errors as error:
            log.warning("could not acknowledge %s (%s); reconnecting to the broker",
                        self.id, one_line(error))
            raise


@cache
def worker_owner() -> str:
    """This process's name as a lease owner: host, process id and a random tag."""
    return f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(3)}"


def register(app: Celery) -> None:
    """Register the match task on ``app`` under its explicit name."""
    app.task(name=TASK_NAME, bind=True, acks_late=True, reject_on_worker_lost=True,
             ignore_result=True, Request=MatchRequest)(run_match_task)


def run_match_task(task: Task, match_id: str, store_url: str) -> str:
    """Run one match under a lease; send it again if the attempt failed and may be retried."""
    limit = float(task.app.conf.cardarena_match_time_limit_s)
    status = run_leased(match_id, store_url, owner=worker_owner(),
                        lease_s=float(task.app.conf.cardarena_lease_s), limit_s=limit)
    log.info("match %s: %s", match_id, status)
    if status == MatchStatus.PENDING.value:
        send_match(task.app, match_id, store_url)
    return status


def run_leased(match_id: str, store_url: str, *, owner: str, lease_s: float,
               limit_s: float) -> str:
    """``run_match`` within the time limit; past it the attempt is handed back as failed."""
    from arena.league.run_match import LOST, VOID_INFRA, process_store, run_match, worker_pool

    try:
        with time_limit(limit_s):
            return run_match(match_id, store_url=store_url, owner=owner, lease_s=lease_s,
                             pool=worker_pool())
    except MatchTimeLimitExceeded:
        with process_store(store_url).session() as session:
            status = fail_match(session, match_id, owner,
                                f"{VOID_INFRA}: the match ran past its time limit of "
                                f"{limit_s:g} s")
        return LOST if status is None else str(status.value)


def send_match(app: Celery, match_id: str, store_url: str) -> bool:
    """Put a match on the queue; False (logged) if the broker cannot be reached now."""
    try:
        app.send_task(TASK_NAME, args=(match_id, store_url), queue=QUEUE, retry=True)
    except (OperationalError, OSError) as error:
        log.warning("match %s not sent: %s", match_id, one_line(error))
        return False
    return True


def one_line(error: BaseException) -> str:
    """An exception's message on one line (its type when it has no message)."""
    text = " ".join(str(error).split())
    return text or type(error).__name__


@contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Raise ``MatchTimeLimitExceeded`` in the main thread once ``seconds`` have passed."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def expire(signum: int, frame: FrameType | None) -> Any:
        """The alarm went off: stop the match."""
        raise MatchTimeLimitExceeded(f"time limit of {seconds:g} s exceeded")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
