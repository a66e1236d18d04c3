"""Leagues: schedules, ratings and comparisons over duplicate sets of every game."""
