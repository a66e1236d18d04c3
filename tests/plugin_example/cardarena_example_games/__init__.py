"""Example Card Arena game plugin: High Card, registered through ``cardarena.games``."""
