"""Typed errors, named by what went wrong. All are ValueErrors: bad input, never a crash."""


class EngineError(ValueError):
    """Base class of every error the engine raises on bad input."""


class UnknownVariant(EngineError):
    pass


class UnknownOption(EngineError):
    pass


class InvalidNotation(EngineError):
    """The text is not card notation (docs/rules.md §8.1)."""


class IllegalPlay(EngineError):
    """The cards form no combination of the variant, or not one that may be played here."""


class IllegalAction(EngineError):
    """An action the hand's rules do not allow at this moment."""


class NotYourTurn(IllegalAction):
    pass


class WrongPhase(IllegalAction):
    pass


class CardsNotHeld(IllegalAction):
    pass


class DoesNotBeat(IllegalAction):
    pass


# Added by the hand engine (additive): the remaining reasons apply() can refuse an action.
class NotACombination(IllegalAction, IllegalPlay):
    """The cards form no combination of the variant (or not one allowed at this point)."""


class MustPlay(IllegalAction):
    """The leader of a trick may not pass."""


class InvalidChoice(IllegalAction):
    """A bid, grab, call, reveal, double or partner value this seat may not choose now."""


class UnknownAct(IllegalAction):
    """An action whose ``act`` is not one of docs/rules.md §8.4."""
