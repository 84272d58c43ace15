"""Entry fees and prizes (README "Entry fees and prizes"): the house's cut and the prize bands.

Pure (no Django); money is whole beans. Bands are written ``1:50, 2:30, 3-4:10``: rank 1 gets
50 % of the prize pool, rank 2 30 %, ranks 3 and 4 10 % each.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from games.engine import largest_remainder

_BAND = re.compile(r"^\s*(\d+)\s*(?:-\s*(\d+))?\s*:\s*(\d+)\s*%?\s*$")


class BadBands(ValueError):
    """A prize bands text refused; the subclass says why (the admin's form words it in the
    reader's language, competitions/models.py)."""


class NotABand(BadBands):
    def __init__(self, part: str) -> None:
        super().__init__(f"not a band: {part!r}")
        self.part = part


class BandsOutOfOrder(BadBands):
    def __init__(self) -> None:
        super().__init__("bands run from rank 1 on, without gaps, each at least 1 %")


class BandsNotWhole(BadBands):
    def __init__(self) -> None:
        super().__init__("the bands' shares add up to 100 %")


@dataclass(frozen=True)
class Band:
    first: int
    last: int
    percent: int  # of the pool, for each rank of the band

    def __str__(self) -> str:
        ranks = str(self.first) if self.first == self.last else f"{self.first}-{self.last}"
        return f"{ranks}:{self.percent}"


def parse_bands(text: str) -> tuple[Band, ...]:
    """Bands in rank order, contiguous from rank 1, their shares adding up to 100 % (an empty
    text: no prizes)."""
    if not text.strip():
        return ()
    bands = []
    for part in text.split(","):
        match = _BAND.match(part)
        if match is None:
            raise NotABand(part.strip())
        first, last, pct = int(match[1]), int(match[2] or match[1]), int(match[3])
        bands.append(Band(first, last, pct))
    expected = 1
    for band in bands:
        if band.first != expected or band.last < band.first or band.percent < 1:
            raise BandsOutOfOrder()
        expected = band.last + 1
    if sum(b.percent * (b.last - b.first + 1) for b in bands) != 100:
        raise BandsNotWhole()
    return tuple(bands)


def format_bands(bands: Sequence[Band]) -> str:
    return ", ".join(str(b) for b in bands)


def house_cut(fees: int, percent: int) -> int:
    """The house's cut of the fees collected (rounded down: the players' pool keeps a part)."""
    if fees < 0 or not 0 <= percent <= 100:
        raise ValueError("fees are not negative, the cut is 0..100 %")
    return fees * percent // 100


def payouts(*, pool: int, bands: Sequence[Band], ranked: int) -> list[int]:
    """The prize of ranks 1..``ranked``: each rank's share of the pool, the shares of ranks
    nobody reached given to the ranks that were, in proportion; whole beans by largest
    remainder (ties to the better rank). The list adds up to the pool when any rank is paid."""
    shares = [
        band.percent
        for band in bands
        for rank in range(band.first, band.last + 1)
        if rank <= ranked
    ]
    if not shares or pool <= 0:
        return []
    return list(largest_remainder(pool, shares, list(range(len(shares)))))
