"""Card Arena: a bot-competition platform for traditional card games."""

__version__ = "0.1.0"
