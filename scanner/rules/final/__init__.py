"""End-of-game scoring (`alea final`, CONTRACT.md; rule ids `final.*` in seeds/RULES.md).

- `holdings`: the input read into value types and checked against the box (final.tiles).
- `scoring`: the rulebook's arithmetic for one given assignment of patricians.
- `optimise`: the provably best assignment (final.assignment).

>>> out = final_scores({"players": [
...     {"player": "grey", "provinces": [{"color": "red", "value": 4}],
...      "patricians": [{"color": "red", "sex": "f", "value": 3},
...                     {"color": "blue", "sex": "m", "value": 2}], "repete": 3},
...     {"player": "blue", "fortuna": [3, 3, 2]}]})
>>> [(p["player"], p["total"]) for p in out["players"]], out["winners"]
([('grey', 8), ('blue', 8)], ['grey'])
>>> out["players"][0]["assignment"][0]["text"], out["players"][0]["unplaced_value"]
('red IV: red woman III', 2)
"""

from __future__ import annotations

from typing import Any

from scanner.rules.final.holdings import FinalInput, Holdings, parse_final
from scanner.rules.final.optimise import best_fills
from scanner.rules.final.scoring import Fill, PlayerScore, score


def fill_text(f: Fill) -> str:
    """'red IV: red woman III + red man II (+ offspring red woman I)', or '…: empty'."""
    if not f.occupants:
        return f"{f.slot}: empty"
    text = f"{f.slot}: " + " + ".join(str(p) for p in f.occupants)
    return text + (f" (+ offspring {f.offspring})" if f.offspring else "")


def player_json(s: PlayerScore) -> dict[str, Any]:
    """The contract's player object (with extra fields `unplaced` and per-slot details)."""
    return {
        "player": s.player,
        "total": s.total,
        "breakdown": s.breakdown,
        "cards": s.cards,
        "assignment": [
            {
                **f.slot.to_json(),
                "patricians": [p.to_json() for p in f.occupants],
                "offspring": f.offspring.to_json() if f.offspring else None,
                "province_points": points,
                "patrician_points": sum(p.value for p in f.placed),
                "points": points + sum(p.value for p in f.placed),
                "text": fill_text(f),
            }
            for f, points in s.fills
        ],
        "unplaced": [p.to_json() for p in s.unplaced],
        "unplaced_value": s.unplaced_value,
    }


def score_player(h: Holdings) -> PlayerScore:
    """Score one player with the best assignment of their patricians."""
    return score(h, best_fills(h))


def winners(scores: list[PlayerScore]) -> list[str]:
    """Highest total, then highest unplaced value; still tied: all of them (final.winner)."""
    best = max((s.total, s.unplaced_value) for s in scores)
    return [s.player for s in scores if (s.total, s.unplaced_value) == best]


def final_scores(data: object) -> dict[str, Any]:
    """The whole `alea final` computation: JSON in, JSON out; InputError for bad input."""
    game: FinalInput = parse_final(data)
    scores = [score_player(h) for h in game.players]
    return {"players": [player_json(s) for s in scores], "winners": winners(scores)}
