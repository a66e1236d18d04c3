"""Never listens: it starts, says so, and waits forever without serving."""

from __future__ import annotations

import sys
import time

if __name__ == "__main__":
    print("never-listens: warming up", file=sys.stderr, flush=True)
    while True:
        time.sleep(60)
