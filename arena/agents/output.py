"""A bot's captured output (standard error, with standard output), capped per window."""

from __future__ import annotations

OUTPUT_CAP = 64 * 1024
"""Bytes kept per window: the last ones, as they say most about how a bot ended."""


class OutputLog:
    """Keeps the last ``cap`` bytes of output in each window; a new window starts per deal."""

    def __init__(self, cap: int = OUTPUT_CAP) -> None:
        """Start with one empty window."""
        self.cap = cap
        self._windows: list[bytearray] = [bytearray()]
        self._dropped: list[int] = [0]

    def append(self, chunk: bytes) -> None:
        """Add output to the current window, dropping its oldest bytes beyond the cap."""
        window = self._windows[-1]
        window += chunk
        excess = len(window) - self.cap
        if excess > 0:
            del window[:excess]
            self._dropped[-1] += excess

    def size(self) -> int:
        """The bytes seen in every window, those dropped included."""
        return sum(len(window) for window in self._windows) + sum(self._dropped)

    def mark(self) -> None:
        """Start a new window."""
        self._windows.append(bytearray())
        self._dropped.append(0)

    def texts(self) -> list[str]:
        """Each window as text (UTF-8, bad bytes replaced), noting dropped bytes first."""
        texts = []
        for window, dropped in zip(self._windows, self._dropped, strict=True):
            text = bytes(window).decode("utf-8", errors="replace")
            texts.append(f"[{dropped} earlier bytes dropped]\n{text}" if dropped else text)
        return texts
