"""Writes of club life, one module per part, keyword-only, one transaction each: of club life
(issue #7) hand outcomes, suspensions, connection addresses, chat and player settings; of
competition (issue #27) skill ratings and seasons."""
