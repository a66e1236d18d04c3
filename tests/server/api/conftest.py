"""Fixtures: an ArenaService on a unix socket over a fresh SQLite store, users and clients.

``uploads`` is a stand-in for the Docker builder (each archive becomes a fake image at once);
the end-to-end test passes the real one.
"""

from __future__ import annotations

import hashlib
import shutil
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import pytest

from arena.protocol.v1 import arena_pb2 as pb
from arena.sandbox.images import BotImage
from arena.server.api.bots import Uploads
from arena.server.api.server import ApiServer, start_api
from arena.server.remote import RemoteArena
from arena.store import Store, open_store

REFUSED = b"refuse me"
"""An archive the stand-in builder refuses."""


FAILED_BUILD = b"fail the build"
"""An archive whose stand-in build fails with a log."""


class FakeUploadError(ValueError):
    """A refused upload of the stand-in builder, with the log of a failed build."""

    def __init__(self, message: str, log: str = "") -> None:
        """Keep the message and the log."""
        super().__init__(message)
        self.log = log


@dataclass(frozen=True)
class FakeLimits:
    """The one limit the service reads itself."""

    archive_bytes: int = 1000


def fake_unpack(archive: bytes, into: Path, limits: Any) -> Path:
    """Keep the archive's bytes as a file (or refuse ``REFUSED``)."""
    if archive == REFUSED:
        raise FakeUploadError("no Dockerfile in the archive: put one at its root")
    if archive == FAILED_BUILD:
        raise FakeUploadError("the build failed at step 2/3: RUN false",
                              log="Step 1/3 : FROM base\nStep 2/3 : RUN false\nexit code 1")
    (into / "archive").write_bytes(archive)
    return into


def fake_build(folder: Path, *, tag: str, limits: Any) -> BotImage:
    """A bot image that was never built, named ``tag``."""
    digest = hashlib.sha256((folder / "archive").read_bytes() + tag.encode()).hexdigest()
    return BotImage(ref=tag, image_id=f"sha256:{digest}", name="fake", version="1",
                    games=("*",), language="python")


FAKE_UPLOADS = Uploads(unpack=fake_unpack, build=fake_build, error=FakeUploadError,
                       limits=FakeLimits())


@dataclass
class Service:
    """A running service: its server, store and address."""

    api: ApiServer
    store: Store
    address: str
    data: Path

    def client(self, token: str | None = None) -> RemoteArena:
        """A client of the service, with this token."""
        return RemoteArena(self.address, token)

    def register(self, name: str) -> RemoteArena:
        """A client of a newly registered user."""
        with self.client() as anonymous:
            token = anonymous.call("RegisterUser", pb.RegisterUserRequest(name=name)).token
        return self.client(token)


ServiceFactory = Callable[..., Service]


@pytest.fixture
def make_service(tmp_path: Path) -> Iterator[ServiceFactory]:
    """Start services on unix sockets (stopped, and their folders removed, afterwards)."""
    started: list[tuple[Service, str]] = []

    def make(uploads: Uploads | None = FAKE_UPLOADS, workers: int = 1,
             **options: Any) -> Service:
        """A service over a fresh store (``options`` go to ``start_api``)."""
        folder = tempfile.mkdtemp(prefix="arena-api-", dir="/tmp")
        url = f"sqlite:///{tmp_path / f'service{len(started)}.db'}"
        store = open_store(url)
        address = f"unix:{folder}/api.sock"
        data = tmp_path / f"data{len(started)}"
        api = start_api(store, url, data, address, workers=workers, uploads=uploads,
                        **options)
        service = Service(api=api, store=store, address=address, data=data)
        started.append((service, folder))
        return service

    yield make
    for service, folder in started:
        service.api.servicer.leagues.wait_all(120)
        service.api.stop(0)
        service.store.close()
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def service(make_service: ServiceFactory) -> Service:
    """A service with the stand-in builder."""
    return make_service()


def status_of(call: Callable[[], Any]) -> tuple[grpc.StatusCode, str]:
    """The status code and message a refused call ends with."""
    from arena.server.remote import RemoteError

    with pytest.raises(RemoteError) as caught:
        call()
    assert caught.value.code is not None
    return caught.value.code, str(caught.value)
