"""The web pages served for real: uvicorn on a free local port, in a thread."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Iterator

import uvicorn

from arena.server.web import create_app

SERVER_START_S = 30.0
"""How long the server may take to start (never reached)."""


@contextlib.contextmanager
def web_server(url: str) -> Iterator[str]:
    """The web pages of the store at ``url`` served by uvicorn on a free local port, in a
    thread; their base URL."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    instance = uvicorn.Server(uvicorn.Config(create_app(url), log_level="warning"))
    thread = threading.Thread(target=instance.run, kwargs={"sockets": [listener]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + SERVER_START_S
    while not instance.started:
        assert time.monotonic() < deadline, "the web server did not start"
        assert thread.is_alive(), "the web server stopped while starting"
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        instance.should_exit = True
        thread.join(timeout=10)
        listener.close()
