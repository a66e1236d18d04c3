"""Takes MatchStart and answers Ready, then shuts its flow-control window: no request can be
written to it, so it never answers one."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import h2peer

if __name__ == "__main__":
    asyncio.run(h2peer.serve(ready=True))
