"""Shared helpers for the engine tests: the judge vector files (tests/engine/vectors)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest


@pytest.fixture(autouse=True)
def _fast_passwords():
    """Engine tests need no Django: shadow the root conftest's settings-based fixture so they
    also run with ``-p no:django``."""


VECTOR_DIR = Path(__file__).parent / "vectors"
JUDGE_VARIANTS = ("qq5", "new5", "classic3", "fenzhou5")


@dataclass(frozen=True)
class JudgeVector:
    variant: str
    id: str
    prev: str | None
    cards: str
    expect: str  # illegal | legal | beats | no_beat
    final: bool = False
    kind: str | None = None
    options: dict[str, Any] = field(default_factory=dict)

    def request(self) -> dict[str, Any]:
        req: dict[str, Any] = {"variant": self.variant, "cards": self.cards, "prev": self.prev}
        if self.final:
            req["final"] = True
        if self.options:
            req["options"] = self.options
        return req

    def expected(self) -> dict[str, Any]:
        leading = self.prev is None
        if self.expect == "illegal":
            return {"legal": False, "kind": None, "beats": None if leading else False}
        assert (self.expect == "legal") == leading, f"{self.id}: expect {self.expect!r}"
        beats = None if leading else self.expect == "beats"
        out: dict[str, Any] = {"legal": True, "beats": beats}
        if self.kind is not None:
            out["kind"] = self.kind
        return out


def _value(text: str) -> Any:
    return {"true": True, "false": False}.get(text, text)


def load_judge_vectors(variant: str) -> list[JudgeVector]:
    vectors = []
    for line in (VECTOR_DIR / f"judge_{variant}.txt").read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        cols = [c.strip() for c in line.split("|")]
        vid, prev, cards, expect = cols[:4]
        final, kind, options = False, None, {}
        for extra in (cols[4] if len(cols) > 4 else "").split():
            if extra == "final":
                final = True
            elif extra.startswith("kind="):
                kind = extra.removeprefix("kind=")
            else:
                name, _, value = extra.partition("=")
                options[name] = _value(value)
        vectors.append(
            JudgeVector(
                variant,
                vid,
                None if prev == "-" else prev,
                cards,
                expect,
                final,
                kind,
                options,
            )
        )
    return vectors


def all_judge_vectors() -> list[JudgeVector]:
    return [v for variant in JUDGE_VARIANTS for v in load_judge_vectors(variant)]
