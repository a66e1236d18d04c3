"""Matches from Python and notebooks: ``play`` and the record that shows its replay."""

from arena.notebook.callables import CallableSeat
from arena.notebook.play import PlayError, SeatWarning, play
from arena.notebook.record import PlayedRecord

__all__ = ["CallableSeat", "PlayError", "PlayedRecord", "SeatWarning", "play"]
