"""The tiles of a game at a real table: what was laid out each round, who took what after it
was scored, and the Repete chips spent on re-rolls. The final inventory (`alea final`'s input)
is derived from it, never kept beside it.

The camera sees the buildings, not the tiles: these are entered by the players, so every entry
is checked against what the table can hold (a tile laid out is one of the game's, not taken
already; a pick takes a tile laid out this round, in the rulebook's pick order).

>>> r = TileRecord(["grey", "blue"])
>>> r.pick_order({"templum": {}, "senatus": ["blue"], "castrum": ["grey"], "forum": ["blue"]})
[('blue', 'senate'), ('grey', 'province'), ('blue', 'patrician')]
"""

from __future__ import annotations

from typing import Any

from scanner.errors import InputError
from scanner.rules import components
from scanner.rules.final.holdings import BorderCard, Patrician, Province

KINDS = ("province", "patrician", "senate", "fortuna")
HOLDING = {"province": "provinces", "patrician": "patricians", "senate": "senate"}


class TileRecord:
    """Tiles laid out per round, picks in order, chips spent; rebuilt from a session's log."""

    def __init__(self, seating: list[str]) -> None:
        self.seating = list(seating)
        self.laid_out: dict[int, dict[str, list]] = {}
        self.picks: list[dict] = []
        self.spent: dict[str, int] = {p: 0 for p in seating}

    # ------------------------------------------------------------------ entries
    def lay_out(self, round_no: int, provinces: Any, patricians: Any) -> None:
        """The province and patrician tiles laid out for round `round_no`."""
        self.check_lay_out(provinces, patricians)
        self.laid_out[round_no] = {"provinces": list(provinces), "patricians": list(patricians)}

    def check_lay_out(self, provinces: Any, patricians: Any) -> None:
        n = len(self.seating)
        limits = {"provinces": (provinces, n), "patricians": (patricians, n + 2)}
        for key, (tiles, most) in limits.items():
            path = f"$.{key}"
            if not isinstance(tiles, list):
                raise InputError("schema.type", f"{key} must be a list of tiles", path)
            if len(tiles) > most:
                raise InputError(
                    "value.range", f"at most {most} {key} are laid out with {n} players", path
                )
            pool = components.provinces() if key == "provinces" else components.patricians()
            taken = self.taken(key[:-1])
            for i, t in enumerate(tiles):
                if t not in pool:
                    raise InputError("value.tile", f"{t!r} is not one of the game's {key}", path)
                if t in taken or t in tiles[:i]:
                    raise InputError("value.tile", f"{_label(t)} is taken already", f"{path}[{i}]")

    def pick(self, round_no: int, player: str, kind: str, tile: Any) -> None:
        """One tile taken after round `round_no` (None: nothing was left to take)."""
        self.picks.append({"round": round_no, "player": player, "kind": kind, "tile": tile})

    def due(self, round_no: int, order: list) -> tuple[int, str, str] | None:
        """The pick due after round `round_no`: (its place in `order`, player, kind), or None
        when every pick of the round is made."""
        done = sum(1 for p in self.picks if p["round"] == round_no)
        return (done, *order[done]) if done < len(order) else None

    def check_pick(self, round_no: int, player: str, kind: str, tile: Any, order: list) -> None:
        """A pick must follow the round's pick order and take what is there."""
        due = self.due(round_no, order)
        if due is None:
            raise InputError("session.no-pick", "every tile of this round is taken", "$")
        _, want_player, want_kind = due
        if (player, kind) != (want_player, want_kind):
            raise InputError(
                "session.pick-order",
                f"it is {want_player}'s turn to take {_kind_text(want_kind)}",
                "$.player",
            )
        if tile is not None and tile not in self.choices(round_no, kind):
            raise InputError("value.tile", f"{_label(tile)} is not there to take", "$.tile")

    def spend(self, player: str, earned: int) -> None:
        """A Repete chip spent on a re-roll; `earned`: the player's chips from the rounds."""
        self.check_spend(player, earned)
        self.spent[player] += 1

    def check_spend(self, player: str, earned: int) -> None:
        if earned - self.spent[player] < 1:
            raise InputError("session.no-chip", f"{player} has no Repete chip left", "$.player")

    # ------------------------------------------------------------------ reading it
    def taken(self, kind: str) -> list:
        return [p["tile"] for p in self.picks if p["kind"] == kind and p["tile"] is not None]

    def choices(self, round_no: int, kind: str) -> list:
        """What a pick of `kind` after round `round_no` may take: the tiles laid out that round
        and not taken yet (every tile not taken when the round's were not entered), the Senate
        cards of this player count, or a Fortuna tile by its value."""
        if kind == "fortuna":
            return [1, 2, 3]
        taken = self.taken(kind)
        if kind == "senate":
            deck = components.senate_deck(len(self.seating))
            for card in taken:
                if card in deck:
                    deck.remove(card)
            out: list = []
            for card in deck:
                if card not in out:
                    out.append(card)
            return out
        key = HOLDING[kind]
        laid = self.laid_out.get(round_no, {}).get(key)
        pool = (
            laid
            if laid
            else (components.provinces() if kind == "province" else components.patricians())
        )
        return [t for t in pool if t not in taken]

    @staticmethod
    def pick_order(result: dict) -> list[tuple[str, str]]:
        """Who takes what after a round, in the rulebook's order (`alea round`'s output)."""
        order = [(p, "fortuna") for p, n in result["templum"].items() for _ in range(n)]
        order += [(p, "senate") for p in result["senatus"]]
        order += [(p, "province") for p in result["castrum"]]
        order += [(p, "patrician") for p in result["forum"]]
        return order

    def inventory(self, earned: dict[str, int]) -> dict:
        """`alea final`'s input: the tiles picked, chips earned in rounds less those spent."""
        players = []
        for p in self.seating:
            mine = [x for x in self.picks if x["player"] == p and x["tile"] is not None]
            held = {key: [x["tile"] for x in mine if x["kind"] == k] for k, key in HOLDING.items()}
            fortuna = [x["tile"] for x in mine if x["kind"] == "fortuna"]
            players.append(
                {"player": p, **held, "fortuna": fortuna, "repete": earned[p] - self.spent[p]}
            )
        return {"player_count": len(self.seating), "players": players}


def _kind_text(kind: str) -> str:
    return {"fortuna": "a Fortuna tile", "senate": "a Senate card"}.get(kind, f"a {kind}")


def _label(tile: Any) -> str:
    """A tile as players name it ('red IV', 'red woman III', 'border red/green'), by the final
    scoring's own tile types; anything else as it was sent."""
    try:
        if isinstance(tile, dict) and "sex" in tile:
            return str(Patrician(tile["color"], tile["sex"], tile["value"]))
        if isinstance(tile, dict) and "card" in tile:
            return str(BorderCard(tuple(tile["colors"])))  # type: ignore[arg-type]
        if isinstance(tile, dict):
            return str(Province(tile["color"], tile["value"]))
    except (KeyError, TypeError, IndexError):
        pass
    return repr(tile) if not isinstance(tile, str) else tile
