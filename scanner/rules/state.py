"""The board state: what lies in the five buildings, in the one JSON shape of CONTRACT.md.

`BoardState` is an immutable value. `from_json` validates everything a caller can get wrong and
raises `InputError` with the JSON path of the bad field; `to_json` writes the canonical form
(Templum dice sorted, zero counts omitted), so equal states serialise identically.

>>> s = BoardState.from_json({"players": ["grey", "blue", "green"],
...                           "forum": [{"player": "blue", "value": 2}]})
>>> s.forum
(ForumDie(player='blue', value=2),)
>>> s.to_json()["latrina"]
{}
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from scanner.errors import InputError
from scanner.inputs.fields import (
    expect_dice,
    expect_die,
    expect_int,
    expect_list,
    expect_object,
    expect_player,
    expect_record,
    parse_seating,
)
from scanner.rules.components import (
    DICE_PER_PLAYER,
    forum_columns,
    templum_in_play,
)


@dataclass(frozen=True, slots=True)
class ForumDie:
    """One die on a Forum column pedestal."""

    player: str
    value: int


@dataclass(frozen=True, slots=True)
class CastrumSet:
    """A set in the Castrum: `count` dice of one `value`, all of one player."""

    player: str
    value: int
    count: int


@dataclass(frozen=True, slots=True)
class BoardState:
    """The five buildings plus the dice still in front of each player (`supply`).

    Mappings hold only non-empty entries: a player absent from `senatus` has no run.
    """

    players: tuple[str, ...]
    templum: Mapping[str, tuple[int, ...]] = field(default_factory=dict)
    senatus: Mapping[str, tuple[int, ...]] = field(default_factory=dict)
    castrum: tuple[CastrumSet, ...] = ()
    forum: tuple[ForumDie, ...] = ()
    latrina: Mapping[str, int] = field(default_factory=dict)
    supply: Mapping[str, int] = field(default_factory=dict)

    @property
    def forum_columns(self) -> int:
        """Column pedestals of this game's Forum: players + 2."""
        return forum_columns(len(self.players))

    @property
    def has_templum(self) -> bool:
        return templum_in_play(len(self.players))

    def placed(self, player: str) -> int:
        """Dice of `player` lying in the four scoring buildings (not the Latrina)."""
        return (
            len(self.templum.get(player, ()))
            + len(self.senatus.get(player, ()))
            + sum(s.count for s in self.castrum if s.player == player)
            + sum(1 for d in self.forum if d.player == player)
        )

    def taken(self, player: str, n: int) -> BoardState:
        """This state with `n` of `player`'s dice taken from the supply: what placing them
        does, whoever judged the placement."""
        supply = dict(self.supply)
        left = supply.pop(player, 0) - n
        if left > 0:
            supply[player] = left
        return self.with_(supply=supply)

    def read_anew(
        self,
        building: str,
        die: tuple[str, int],
        now: tuple[str, int],
        column: int | None = None,
    ) -> BoardState:
        """This board with one die read anew: `die` (player, value) in `building` (in the
        Forum, the one in `column`) is `now` (player, value), laid as that building holds
        dice: Templum and Senate dice sorted per player, a Castrum die in its player's set of
        that value, a Forum die kept in its column. ValueError when no such die lies there."""
        (player, value), (new_player, new_value) = die, now
        if building in ("templum", "senatus"):
            held = dict(self.templum if building == "templum" else self.senatus)
            dice = list(held.get(player, ()))
            if value not in dice:
                raise ValueError(f"no {player} {value} in the {building}")
            dice.remove(value)
            if dice:
                held[player] = tuple(dice)
            else:
                held.pop(player, None)
            held[new_player] = tuple(sorted((*held.get(new_player, ()), new_value)))
            return self.with_(**{building: held})
        if building == "castrum":
            sets = list(self.castrum)
            at = [i for i, s in enumerate(sets) if (s.player, s.value) == (player, value)]
            if not at:
                raise ValueError(f"no {player} {value} in the castrum")
            old = sets[at[0]]
            if old.count > 1:
                sets[at[0]] = CastrumSet(player, value, old.count - 1)
            else:
                del sets[at[0]]
            into = [i for i, s in enumerate(sets) if (s.player, s.value) == now]
            if into:
                s = sets[into[0]]
                sets[into[0]] = CastrumSet(s.player, s.value, s.count + 1)
            else:
                sets.append(CastrumSet(new_player, new_value, 1))
            return self.with_(castrum=tuple(sets))
        if building == "forum":
            forum = list(self.forum)
            if column is None or not 0 <= column < len(forum) or forum[column] != ForumDie(*die):
                raise ValueError(f"no {player} {value} in Forum column {column}")
            forum[column] = ForumDie(new_player, new_value)
            return self.with_(forum=tuple(forum))
        raise ValueError(f"a die is read anew in a building that holds dice, not {building!r}")

    def with_(self, **changes: Any) -> BoardState:
        """A copy with some buildings replaced (the state itself never changes).

        Spelled out rather than `dataclasses.replace`, which is several times slower and this
        sits on the legal-move generator's hot path."""
        return BoardState(
            changes.get("players", self.players),
            changes.get("templum", self.templum),
            changes.get("senatus", self.senatus),
            changes.get("castrum", self.castrum),
            changes.get("forum", self.forum),
            changes.get("latrina", self.latrina),
            changes.get("supply", self.supply),
        )

    # ----------------------------------------------------------------------------- JSON
    @classmethod
    def from_json(cls, data: Any, path: str = "$", strict: bool = True) -> BoardState:
        """Validate a board-state JSON object; raise InputError naming the bad field.

        `strict=False` checks only types, colours and values, not the invariants of legal play
        (see `check_invariants`): for what a camera saw, which may be an illegal placement."""
        return _parse_state(data, path, strict)

    def to_json(self) -> dict[str, Any]:
        """The canonical JSON object (CONTRACT.md "Board state")."""
        return {
            "players": list(self.players),
            "templum": {p: sorted(v) for p, v in self._in_seat_order(self.templum)},
            "senatus": {p: list(v) for p, v in self._in_seat_order(self.senatus)},
            "castrum": [
                {"player": s.player, "value": s.value, "count": s.count} for s in self.castrum
            ],
            "forum": [{"player": d.player, "value": d.value} for d in self.forum],
            "latrina": {p: n for p, n in self._in_seat_order(self.latrina) if n},
            "supply": {p: n for p, n in self._in_seat_order(self.supply) if n},
        }

    def _in_seat_order(self, mapping: Mapping[str, Any]) -> Iterable[tuple[str, Any]]:
        return ((p, mapping[p]) for p in self.players if p in mapping)


# ------------------------------------------------------------------------------ parsing
STATE_KEYS = ("players", "templum", "senatus", "castrum", "forum", "latrina", "supply")


def _parse_player_dice(
    data: Any, path: str, players: tuple[str, ...]
) -> dict[str, tuple[int, ...]]:
    out = {}
    for p, dice in expect_object(data, path).items():
        expect_player(p, f"{path}.{p}", players)
        values = expect_dice(dice, f"{path}.{p}")
        if values:
            out[p] = values
    return out


def _parse_counts(data: Any, path: str, players: tuple[str, ...]) -> dict[str, int]:
    out = {}
    for p, n in expect_object(data, path).items():
        expect_player(p, f"{path}.{p}", players)
        if expect_int(n, f"{path}.{p}", 0, DICE_PER_PLAYER, "dice count"):
            out[p] = n
    return out


def _parse_state(data: Any, path: str, strict: bool) -> BoardState:
    obj = expect_object(data, path, STATE_KEYS)
    if "players" not in obj:
        raise InputError("schema.missing", "the board state needs a 'players' list", path)
    players = parse_seating(obj["players"], f"{path}.players")
    templum = _parse_player_dice(obj.get("templum", {}), f"{path}.templum", players)
    senatus = _parse_player_dice(obj.get("senatus", {}), f"{path}.senatus", players)

    castrum = []
    for i, item in enumerate(expect_list(obj.get("castrum", []), f"{path}.castrum")):
        ipath = f"{path}.castrum[{i}]"
        expect_record(item, ipath, ("player", "value", "count"), "a Castrum set")
        castrum.append(
            CastrumSet(
                expect_player(item["player"], f"{ipath}.player", players),
                expect_die(item["value"], f"{ipath}.value"),
                expect_int(item["count"], f"{ipath}.count", 1, DICE_PER_PLAYER, "dice count"),
            )
        )

    forum = []
    for i, item in enumerate(expect_list(obj.get("forum", []), f"{path}.forum")):
        ipath = f"{path}.forum[{i}]"
        expect_record(item, ipath, ("player", "value"), "a Forum die")
        forum.append(
            ForumDie(
                expect_player(item["player"], f"{ipath}.player", players),
                expect_die(item["value"], f"{ipath}.value"),
            )
        )

    state = BoardState(
        players=players,
        templum=templum,
        senatus={p: tuple(sorted(run)) for p, run in senatus.items()} if not strict else senatus,
        castrum=tuple(castrum),
        forum=tuple(forum),
        latrina=_parse_counts(obj.get("latrina", {}), f"{path}.latrina", players),
        supply=_parse_counts(obj.get("supply", {}), f"{path}.supply", players),
    )
    if strict:
        check_invariants(state, path)
    return state


def check_invariants(state: BoardState, path: str = "$") -> None:
    """What every state reached by legal play satisfies (CONTRACT "Board state"); raise
    InputError at the first field that breaks it. A camera can see states that break these
    (that is how illegal placements show), so the scanner and referee parse without them."""
    n = len(state.players)
    if state.templum and not templum_in_play(n):
        raise InputError(
            "state.templum-absent", f"there is no Templum with {n} players", f"{path}.templum"
        )
    counts: dict[int, str] = {}
    for p, dice in state.templum.items():
        if len(dice) in counts:
            raise InputError(
                "state.templum-counts",
                f"{counts[len(dice)]} and {p} both have {len(dice)} dice in the Templum; "
                "counts there are always different",
                f"{path}.templum.{p}",
            )
        counts[len(dice)] = p

    runs: dict[tuple[int, ...], str] = {}
    for p, run in state.senatus.items():
        if list(run) != list(range(run[0], run[0] + len(run))):
            raise InputError(
                "state.senatus-run",
                f"{p}'s Senate dice {list(run)} are not one ascending run",
                f"{path}.senatus.{p}",
            )
        if run in runs:
            raise InputError(
                "state.senatus-identical",
                f"{runs[run]} and {p} have the same run {list(run)}",
                f"{path}.senatus.{p}",
            )
        runs[run] = p

    for i, s in enumerate(state.castrum):
        for other in state.castrum[:i]:
            if other.player == s.player and other.value == s.value:
                raise InputError(
                    "state.castrum-two-sets",
                    f"{s.player} has two sets of {s.value}s",
                    f"{path}.castrum[{i}]",
                )
            if (other.value, other.count) == (s.value, s.count):
                raise InputError(
                    "state.castrum-identical",
                    f"two sets of {s.count}×{s.value} in the Castrum",
                    f"{path}.castrum[{i}]",
                )

    for i in range(1, len(state.forum)):
        if state.forum[i - 1].value > state.forum[i].value:
            raise InputError(
                "state.forum-order",
                "Forum dice must be sorted by value, left to right",
                f"{path}.forum[{i}]",
            )
    if len(state.forum) > state.forum_columns:
        raise InputError(
            "state.forum-columns",
            f"{len(state.forum)} dice on a Forum of {state.forum_columns} columns",
            f"{path}.forum",
        )
