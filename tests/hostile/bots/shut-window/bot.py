"""Accepts connections but never lets a request in: every stream's flow-control window is
zero bytes and never grows, so not even MatchStart can be written to it."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import h2peer

if __name__ == "__main__":
    asyncio.run(h2peer.serve(ready=False))
