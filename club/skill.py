"""The skill rating's model (issue #27): plain Python, no Django, so that the live updates, the
recompute command and the simulation tests run the very same arithmetic.

A rated hand is one game of two teams, the landlord side against the farmer side (as finally
revealed), rated with openskill's Plackett-Luce model (Weng & Lin's Bayesian approximation: a
skill is a normal belief ``mu`` ± ``sigma``; a team's skill is the sum of its members').

The role is a player too. Uneven sides (1 v 2, 1 v 4, 2 v 3) and the landlord's seat advantage
belong to the role, not to the people who happen to hold it: a **role baseline** joins the
landlord side, one per variant and shape of the sides, and is rated like everyone else. It
starts where the two sides' sums of default skills are level (``mu`` × (farmers − landlords)),
so a new shape predicts an even game, and learns the shape's real advantage from the hands.
Once it has, the model's prediction for equal players is the role's true chance, so a
player's expected change is nil whatever roles he is dealt.

Shown as one number, the ordinal ``mu − 3 sigma`` (a skill the player very probably has at
least), scaled as ``DISPLAY_OFFSET + DISPLAY_SCALE × ordinal``, marked provisional while
``sigma`` is above ``PROVISIONAL_SIGMA`` (about the first 20 rated hands).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from openskill.models import PlackettLuce

# openskill's defaults: mu 25, sigma 25/3, beta 25/6, tau 25/300 (tau keeps sigma from
# shrinking to nothing, so a rating still follows a player who improves)
MODEL = PlackettLuce()
PROVISIONAL_SIGMA = 4.0
DISPLAY_SCALE = 40
DISPLAY_OFFSET = 1000


@dataclass(frozen=True)
class Skill:
    mu: float
    sigma: float

    @property
    def ordinal(self) -> float:
        return self.mu - 3 * self.sigma

    @property
    def shown(self) -> int:
        """The one number players see."""
        return round(DISPLAY_OFFSET + DISPLAY_SCALE * self.ordinal)

    @property
    def provisional(self) -> bool:
        return self.sigma > PROVISIONAL_SIGMA


def default_skill() -> Skill:
    return Skill(MODEL.mu, MODEL.sigma)


@dataclass(frozen=True)
class Shape:
    """How many seats each side had: 1 v 2, 1 v 4, 2 v 3."""

    landlords: int
    farmers: int

    @property
    def key(self) -> str:
        return f"{self.landlords}v{self.farmers}"

    @classmethod
    def from_key(cls, key: str) -> Shape:
        landlords, farmers = key.split("v")
        return cls(int(landlords), int(farmers))

    def baseline_start(self) -> Skill:
        """Level sides: the baseline makes up the farmer side's extra members."""
        return Skill(MODEL.mu * (self.farmers - self.landlords), MODEL.sigma)


def shapes_for(seats: int) -> list[Shape]:
    """Every split of a table of ``seats`` into a smaller landlord side and the farmers."""
    return [Shape(n, seats - n) for n in range(1, (seats + 1) // 2)]


@dataclass(frozen=True)
class SeatRecord:
    """One seat of a finished hand, as the rating sees it."""

    user_id: int | None  # None: a bot
    landlord_side: bool
    decided: bool  # the person made at least one decision himself (not only 托管)


@dataclass(frozen=True)
class Game:
    """A rated hand: the people on each side and who won."""

    landlords: tuple[int, ...]
    farmers: tuple[int, ...]
    landlord_won: bool

    @property
    def shape(self) -> Shape:
        return Shape(len(self.landlords), len(self.farmers))

    @property
    def players(self) -> tuple[int, ...]:
        return self.landlords + self.farmers


def rated_game(seats: Sequence[SeatRecord], *, landlord_won: bool) -> Game | None:
    """The game a finished hand rates, or None when it is unrated: a bot held a seat, or a
    person left every decision of the hand to 托管 (a bot's or the engine's play says nothing
    of anyone's skill, and a rating is a comparison between people)."""
    if any(s.user_id is None or not s.decided for s in seats):
        return None
    landlords = tuple(s.user_id for s in seats if s.landlord_side and s.user_id is not None)
    farmers = tuple(s.user_id for s in seats if not s.landlord_side and s.user_id is not None)
    if not landlords or not farmers:
        return None
    return Game(landlords, farmers, landlord_won)


def rate(
    game: Game, *, players: Mapping[int, Skill], baseline: Skill
) -> tuple[dict[int, Skill], Skill]:
    """The players' and the role baseline's skills after ``game``."""
    landlords = [MODEL.rating(mu=players[p].mu, sigma=players[p].sigma) for p in game.landlords]
    landlords.append(MODEL.rating(mu=baseline.mu, sigma=baseline.sigma))
    farmers = [MODEL.rating(mu=players[p].mu, sigma=players[p].sigma) for p in game.farmers]
    ranks = [0.0, 1.0] if game.landlord_won else [1.0, 0.0]
    new_landlords, new_farmers = MODEL.rate([landlords, farmers], ranks=ranks)
    after = {
        p: Skill(r.mu, r.sigma)
        for p, r in zip(game.players, new_landlords[:-1] + new_farmers, strict=True)
    }
    return after, Skill(new_landlords[-1].mu, new_landlords[-1].sigma)
