"""The games for other frameworks, in the engine so that a bot's image has them: the
fixed-shape observation vector every bridge shares (``tensors``), a game's flat action space
(``actions``), resampling what a seat cannot see (``resample``), and every game as an OpenSpiel
game (``openspiel``; importing it registers them with ``pyspiel``). They need numpy, and
OpenSpiel for ``openspiel``: the engine's ``openspiel`` extra. Nothing is imported here, so
that a bridge loads only what it uses.
"""
