"""Dealing from an injected seed, the fairness commitment and ``python -m games.engine verify``."""

from __future__ import annotations

import hashlib
import json
import random
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from games.engine.cards import SJ_CODE
from games.engine.dealing import (
    Deal,
    deal,
    new_seed,
    next_landlord_seat,
    seed_commitment,
    verify,
)
from games.engine.errors import EngineError
from games.engine.variants import find_variant

ROOT = Path(__file__).resolve().parents[2]
KEYS = ("qq5", "new5", "classic3", "fenzhou5")


class TestDeal:
    @pytest.mark.parametrize("key", KEYS)
    def test_sizes_and_every_card_once_per_deck(self, key: str) -> None:
        v = find_variant(key)
        for i in range(20):
            d = deal(v, f"seed-{i}")
            counts = Counter(c for h in d.hands for c in h) + Counter(d.bottom)
            assert counts == Counter({code: v.decks for code in range(54)})
            assert len(d.bottom) == v.bottom_size
            for seat, hand in enumerate(d.hands):
                landlord = v.bottom_size == 0 and seat == d.landlord_seat
                assert len(hand) == (v.landlord_hand_size if landlord else v.hand_size)
                assert list(hand) == sorted(hand)

    @pytest.mark.parametrize("key", KEYS)
    def test_same_seed_same_deal_whatever_the_global_random(self, key: str) -> None:
        v = find_variant(key)
        random.seed(1)
        first = deal(v, "fixed")
        random.seed(2)
        random.random()
        assert deal(v, "fixed") == first
        assert deal(v, "other") != first

    @pytest.mark.parametrize("key", ("qq5", "new5"))
    def test_face_up_is_a_dealt_natural(self, key: str) -> None:
        v = find_variant(key)
        for i in range(200):
            d = deal(v, str(i))
            assert d.face_up is not None and d.face_up < SJ_CODE
            assert d.face_up in d.hands[d.face_up_seat]

    def test_classic3_face_up_among_the_51_dealt(self) -> None:
        v = find_variant("classic3")
        seen_joker = False
        for i in range(400):
            d = deal(v, str(i))
            assert d.face_up in d.hands[d.face_up_seat]
            seen_joker |= d.face_up >= SJ_CODE
        assert seen_joker  # jokers may be turned up in classic3

    def test_fenzhou5_landlord_keeps_24(self) -> None:
        v = find_variant("fenzhou5")
        d = deal(v, "x", landlord_seat=3)
        assert d.landlord_seat == 3 and len(d.hands[3]) == 24 and d.bottom == ()
        assert d.face_up is None
        seats = {deal(v, str(i)).landlord_seat for i in range(60)}
        assert seats == set(range(5))  # the first landlord is drawn from the seed
        with pytest.raises(EngineError):
            deal(v, "x", landlord_seat=5)

    def test_rotation(self) -> None:
        f = find_variant("fenzhou5")
        assert next_landlord_seat(f, None) is None
        assert next_landlord_seat(f, 2) == 3  # hand n: seat 2 → hand n+1: seat 3, win or lose
        assert next_landlord_seat(f, 4) == 0
        assert next_landlord_seat(find_variant("qq5"), 2) is None

    @pytest.mark.parametrize("key", KEYS)
    def test_json_round_trip(self, key: str) -> None:
        v = find_variant(key)
        d = deal(v, "rt")
        assert Deal.from_json(v, json.loads(json.dumps(d.to_json()))) == d


class TestFairness:
    def test_seed_and_commitment(self) -> None:
        seeds = {new_seed() for _ in range(50)}
        assert len(seeds) == 50
        seed = seeds.pop()
        assert len(seed) == 64 and int(seed, 16) >= 0
        assert seed_commitment(seed) == hashlib.sha256(seed.encode()).hexdigest()

    def test_verify_in_process(self) -> None:
        seed = "published-after-the-hand"
        out = verify(seed, seed_commitment(seed), "qq5")
        assert out["matches"] is True
        assert out["deal"] == deal(find_variant("qq5"), seed).to_json()
        assert verify(seed, "0" * 64, "qq5")["matches"] is False

    @pytest.mark.parametrize("key", KEYS)
    def test_verify_cli_reproduces_the_deal(self, key: str) -> None:
        seed = new_seed()
        args = [sys.executable, "-m", "games.engine", "verify", seed, seed_commitment(seed), key]
        if key == "fenzhou5":
            args += ["--landlord-seat", "2"]
        proc = subprocess.run(args, capture_output=True, text=True, cwd=ROOT, check=True)
        out = json.loads(proc.stdout)
        expected = deal(find_variant(key), seed, landlord_seat=2 if key == "fenzhou5" else None)
        assert out["matches"] is True
        assert out["deal"] == expected.to_json()

    def test_verify_cli_flags_a_wrong_commitment(self) -> None:
        args = [sys.executable, "-m", "games.engine", "verify", "s", "ab" * 32, "classic3"]
        proc = subprocess.run(args, capture_output=True, text=True, cwd=ROOT, check=False)
        assert proc.returncode == 1
        assert json.loads(proc.stdout)["matches"] is False
