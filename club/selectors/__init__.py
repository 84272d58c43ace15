"""Reads of club life, one module per part: what a table reads of the club (``tables``),
leaderboards, public profiles, fair-play signals, skill ratings and seasons."""
