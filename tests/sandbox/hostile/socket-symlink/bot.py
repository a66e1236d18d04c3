"""Plants a link where its socket should be and never listens. The link is relative, so an
arena that followed it would reach ``witness`` two folders above the socket on the host (the
arena's temporary root), a file the test watches."""

from __future__ import annotations

import os
import sys
import time

SOCKET = "/run/cardarena/agent.sock"
TARGET = "../../witness"

if __name__ == "__main__":
    if os.path.lexists(SOCKET):
        os.unlink(SOCKET)
    os.symlink(TARGET, SOCKET)
    print(f"socket-symlink: {SOCKET} -> {TARGET}", file=sys.stderr, flush=True)
    while True:
        time.sleep(60)
