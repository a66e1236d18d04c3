"""The games as environments for learning agents (the ``rl`` extra: pettingzoo, gymnasium,
numpy).

``arena.envs.pettingzoo.env(game, players=None, **params)`` is a PettingZoo AEC environment,
rendered with the CLI's match display. The parts a bot needs too live in the engine, in
``arena.bridges``: importing ``arena.envs.openspiel`` (or ``arena.bridges.openspiel``)
registers every game with OpenSpiel (``pyspiel``) as ``cardarena_<id>``;
``arena.bridges.tensors`` turns a seat's observation into the fixed-shape vector every bridge
shares, and ``arena.bridges.actions`` sizes a game's flat action space. Nothing is imported
here, so that the bridges load only what they use.
"""
