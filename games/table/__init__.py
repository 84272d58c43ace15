"""A table as data: its life model, stakes and seconds, rule options' words, invite codes,
refusals, the club's hooks and the prepared statements of a move. Above the models and the
engine only: nothing here reads a screen or sends a push."""
