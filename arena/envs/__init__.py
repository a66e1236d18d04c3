"""The games as environments for learning agents (the ``rl`` extra: pettingzoo, gymnasium,
numpy).

``arena.envs.pettingzoo.env(game, players=None, **params)`` is a PettingZoo AEC environment;
importing ``arena.envs.openspiel`` registers every game with OpenSpiel (``pyspiel``, the
``bench`` extra) as ``cardarena_<id>``;
``arena.envs.tensors`` turns a seat's observation into the fixed-shape vector every bridge
shares, and ``arena.envs.actions`` sizes a game's flat action space. Nothing is imported here,
so that the bridges load only what they use.
"""
