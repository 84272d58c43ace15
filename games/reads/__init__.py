"""Reads: rooms, tables, hands and their states, and the snapshot a push or a page renders
from (read once for every audience). Below the screen: a screen never touches the database."""
