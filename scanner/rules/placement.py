"""Placing dice in a building: is it legal, and what does the board look like after?

One function per building, each reading like its paragraph of the rulebook (RULES.md ids in the
docstrings); each raises `Illegal` or returns the buildings it changes and the dice it pushed out.
`check` runs them in CONTRACT.md's table order, so when several rules fail the first one in that
table is the one reported. The five buildings stay in this one module (a little over 400 lines)
on purpose: a reader looking for a placement rule, the Forum insertion above all, finds every
building's in one place, in the rulebook's order.

>>> from scanner.rules.state import BoardState
>>> s = BoardState.from_json({"players": ["grey", "brown", "blue", "green"],
...     "forum": [{"player": "green", "value": 1}, {"player": "blue", "value": 2},
...               {"player": "grey", "value": 3}, {"player": "green", "value": 3},
...               {"player": "blue", "value": 4}, {"player": "green", "value": 5}]})
>>> v = check(s, Move("brown", "forum", (2, 3)))
>>> v.legal, [(d.player, d.value) for d in v.pushed_out]
(True, [('blue', 4), ('green', 5)])
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from scanner.rules.move import Move, dice_text
from scanner.rules.moves import candidates
from scanner.rules.state import BoardState, CastrumSet, ForumDie

RULE_IDS = (
    "move.empty",
    "move.not-in-roll",
    "templum.absent",
    "templum.count",
    "templum.sum",
    "senatus.not-a-run",
    "senatus.not-extending",
    "senatus.identical",
    "castrum.mixed",
    "castrum.identical",
    "forum.shape",
    "forum.no-column",
    "latrina.one-die",
    "latrina.not-forced",
)


@dataclass(frozen=True, slots=True)
class Verdict:
    """The referee's answer: legal with the state after, or illegal with a rule id and reason."""

    legal: bool
    rule: str | None = None
    reason: str | None = None
    state: BoardState | None = None
    pushed_out: tuple[ForumDie, ...] = ()
    params: dict[str, object] | None = None  # the reason's facts, for a translated sentence

    @property
    def after(self) -> BoardState:
        """The board after a legal placement: every legal verdict carries it (`check`), so
        asking an illegal one for it is a mistake in the caller."""
        if self.state is None:
            raise ValueError(f"an illegal placement ({self.rule}) leaves no board after it")
        return self.state

    def to_json(self) -> dict[str, Any]:
        if not self.legal:
            return {"legal": False, "rule": self.rule, "reason": self.reason}
        return {
            "legal": True,
            "state": self.after.to_json(),
            "pushed_out": [{"player": d.player, "value": d.value} for d in self.pushed_out],
        }


class Illegal(Exception):
    """Raised inside the building rules; `check` turns it into a Verdict. `params` are the
    facts the reason is made of (player, dice, building, counts), so that a page can say the
    same sentence in its own language (webui/static/i18n.js, `REASONS`)."""

    def __init__(self, rule: str, reason: str, **params: object) -> None:
        super().__init__(reason)
        self.rule, self.reason, self.params = rule, reason, params

    def verdict(self) -> Verdict:
        return Verdict(False, self.rule, self.reason, params=self.params)


def check(state: BoardState, move: Move, roll: tuple[int, ...] | None = None) -> Verdict:
    """Judge `move` against `state`; `roll` defaults to the move's own dice (CONTRACT `check`)."""
    roll = move.dice if roll is None else tuple(roll)
    try:
        if not move.dice:
            raise Illegal(
                "move.empty", f"{move.player.capitalize()} placed no dice.", player=move.player
            )
        if not in_roll(move.dice, roll):
            raise Illegal(
                "move.not-in-roll",
                f"{move.player.capitalize()} cannot place {dice_text(move.dice)} in the "
                f"{move.building.capitalize()}: the roll was {', '.join(map(str, sorted(roll)))}.",
                player=move.player,
                dice=list(move.dice),
                building=move.building,
                roll=sorted(roll),
            )
        changes, pushed = PLACE[move.building](state, move.player, move.dice, roll)
    except Illegal as no:
        return no.verdict()
    after = state.with_(**changes).taken(move.player, len(move.dice))
    return Verdict(True, state=after, pushed_out=pushed)


def as_laid(
    state: BoardState, move: Move, shown: BoardState, pushed_out: tuple[ForumDie, ...] = ()
) -> Verdict:
    """A placement the table settled otherwise than `check` would lay it, taken as legal: the
    board is `shown` (a flag the players overruled, a Forum die taken as misread, a Latrina die
    whose roll nobody saw), and `move`'s dice leave the placer's supply in `state` as for any
    placement. The one way a verdict is made outside `check`."""
    after = shown.with_(supply=state.taken(move.player, len(move.dice)).supply)
    return Verdict(True, state=after, pushed_out=pushed_out)


def in_roll(dice: tuple[int, ...], roll: tuple[int, ...]) -> bool:
    """Are all `dice` (as a multiset) among the `roll`?"""
    left = list(roll)
    try:
        for v in dice:
            left.remove(v)
    except ValueError:
        return False
    return True


def is_legal(state: BoardState, move: Move, roll: tuple[int, ...] | None = None) -> bool:
    return check(state, move, roll).legal


# What a building's rule returns for a legal placement: the buildings it changes (BoardState
# field names, for `BoardState.with_`) and the Forum dice it pushed out.
Placed = tuple[dict[str, object], tuple[ForumDie, ...]]


def legal_moves(
    state: BoardState, player: str, roll: tuple[int, ...], include_latrina: bool = True
) -> Iterator[Move]:
    """Yield each legal move of `player` with this `roll`, python-chess style: every candidate
    of the roll (`moves.candidates`) that `check` allows; the Latrina only when forced."""
    found = False
    for move in candidates(state, player, roll):
        if check(state, move, roll).legal:
            found = True
            yield move
    if include_latrina and not found and roll:
        for v in sorted(set(roll)):
            yield Move(player, "latrina", (v,))


# ------------------------------------------------------------------------------ Templum
def place_templum(
    state: BoardState, player: str, dice: tuple[int, ...], roll: tuple[int, ...]
) -> Placed:
    """templum.count / templum.sum: bring your total to one die more than the top player's,
    with a higher sum; a player already there only adds the dice he is short of."""
    who = player.capitalize()
    if not state.has_templum:
        raise Illegal(
            "templum.absent",
            f"There is no Templum with {len(state.players)} players, so {who} "
            f"cannot place {dice_text(dice)} there.",
            player=player,
            dice=list(dice),
            players=len(state.players),
        )
    own = state.templum.get(player, ())
    top = max(state.templum.items(), key=lambda kv: len(kv[1]), default=(None, ()))
    need = len(top[1]) + 1
    total = own + dice
    if len(total) != need:
        already = f" with the {len(own)} already there" if own else ""
        raise Illegal(
            "templum.count",
            f"{who}'s {dice_text(dice)} in the Templum {'makes' if len(dice) == 1 else 'make'} "
            f"{len(total)} {'die' if len(total) == 1 else 'dice'}"
            f"{already}; the Templum now needs exactly {need}.",
            player=player,
            dice=list(dice),
            total=len(total),
            had=len(own),
            need=need,
        )
    if sum(total) <= sum(top[1]):
        raise Illegal(
            "templum.sum",
            f"{who}'s {len(total)} dice in the Templum sum to {sum(total)}, "
            f"not more than {top[0]}'s {sum(top[1])}.",
            player=player,
            count=len(total),
            sum=sum(total),
            other=top[0],
            other_sum=sum(top[1]),
        )
    templum = dict(state.templum)
    templum[player] = tuple(sorted(total))
    return {"templum": templum}, ()


# ------------------------------------------------------------------------------ Senatus
def is_run(values: tuple[int, ...]) -> bool:
    """Consecutive distinct values, e.g. (3, 4, 5); a single die is a run."""
    v = sorted(values)
    return len(set(v)) == len(v) and v[-1] - v[0] == len(v) - 1


def place_senatus(
    state: BoardState, player: str, dice: tuple[int, ...], roll: tuple[int, ...]
) -> Placed:
    """senatus.*: one run per player, extended up and/or down, never equal to another run."""
    who = player.capitalize()
    own = state.senatus.get(player, ())
    # CONTRACT: a first run that is not one is `not-a-run`; dice that do not extend an existing
    # run (repeated values included) are `not-extending`.
    if not own and not is_run(dice):
        raise Illegal(
            "senatus.not-a-run",
            f"{who}'s {dice_text(dice)} in the Senatus are not a run of "
            "consecutive different values.",
            player=player,
            dice=list(dice),
        )
    run = tuple(sorted(own + dice))
    if own and (len(set(dice)) != len(dice) or not is_run(run)):
        raise Illegal(
            "senatus.not-extending",
            f"{who} already has {'-'.join(map(str, own))} in the Senatus and "
            f"{dice_text(dice)} {'does' if len(dice) == 1 else 'do'} not extend it to one run.",
            player=player,
            run=list(own),
            dice=list(dice),
        )
    for other, theirs in state.senatus.items():
        if other != player and theirs == run:
            raise Illegal(
                "senatus.identical",
                f"{who}'s run {'-'.join(map(str, run))} in the Senatus would equal {other}'s run.",
                player=player,
                run=list(run),
                other=other,
            )
    senatus = dict(state.senatus)
    senatus[player] = run
    return {"senatus": senatus}, ()


# ------------------------------------------------------------------------------ Castrum
def place_castrum(
    state: BoardState, player: str, dice: tuple[int, ...], roll: tuple[int, ...]
) -> Placed:
    """castrum.*: dice of one value, a new set or added to your set of that value; no two sets
    in the Castrum may have the same value and count."""
    who = player.capitalize()
    if len(set(dice)) != 1:
        raise Illegal(
            "castrum.mixed",
            f"{who}'s {dice_text(dice)} in the Castrum are not all the same value.",
            player=player,
            dice=list(dice),
        )
    value = dice[0]
    sets = list(state.castrum)
    mine = next((i for i, s in enumerate(sets) if s.player == player and s.value == value), None)
    count = len(dice) + (sets[mine].count if mine is not None else 0)
    for s in sets:
        if s.value == value and s.count == count and s.player != player:
            raise Illegal(
                "castrum.identical",
                f"{who}'s set of {count}×{value} in the Castrum would equal {s.player}'s set.",
                player=player,
                count=count,
                value=value,
                other=s.player,
            )
    new = CastrumSet(player, value, count)
    if mine is None:
        sets.append(new)
    else:
        sets[mine] = new
    return {"castrum": tuple(sets)}, ()


# ------------------------------------------------------------------------------ Forum
def forum_insert(forum: tuple[ForumDie, ...], new: list[ForumDie]) -> tuple[ForumDie, ...]:
    """forum.insert: a new die goes left of every die of equal or higher value, so among equal
    values the newest stands leftmost. Returns the whole row, before any push-out.

    >>> row = forum_insert((ForumDie("green", 3),), [ForumDie("brown", 3)])
    >>> [d.player for d in row]
    ['brown', 'green']
    """
    # Identity, not equality, marks the new dice: an older die may have the same player and value.
    new_ids = {id(d) for d in new}
    row = list(forum)
    for die in new:
        at = next(
            (i for i, d in enumerate(row) if d.value >= die.value and id(d) not in new_ids),
            len(row),
        )
        row.insert(at, die)
    return tuple(row)


def place_forum(
    state: BoardState, player: str, dice: tuple[int, ...], roll: tuple[int, ...]
) -> Placed:
    """forum.shape / forum.no-column: one die, or two summing to 5; every placed die must land
    on a column; dice pushed off the right end go to the Latrina."""
    who = player.capitalize()
    if not (len(dice) == 1 or (len(dice) == 2 and sum(dice) == 5)):
        raise Illegal(
            "forum.shape",
            f"{who} cannot place {dice_text(dice)} in the Forum: only one die or "
            "two dice summing to 5.",
            player=player,
            dice=list(dice),
        )
    new = [ForumDie(player, v) for v in dice]
    new_ids = {id(d) for d in new}
    row = forum_insert(state.forum, new)
    columns = state.forum_columns
    kept, pushed = row[:columns], row[columns:]
    if any(id(d) in new_ids for d in pushed):
        lost = [d.value for d in pushed if id(d) in new_ids]
        raise Illegal(
            "forum.no-column",
            f"{who}'s {dice_text(lost)} would not land on a column of the Forum "
            f"({columns} columns, all taken by lower dice).",
            player=player,
            dice=lost,
            columns=columns,
        )
    latrina = dict(state.latrina)
    for d in pushed:
        latrina[d.player] = latrina.get(d.player, 0) + 1
    return {"forum": tuple(kept), "latrina": latrina}, tuple(pushed)


# ------------------------------------------------------------------------------ Latrina
def place_latrina(
    state: BoardState, player: str, dice: tuple[int, ...], roll: tuple[int, ...]
) -> Placed:
    """latrina.*: exactly one die, and only when no die of the roll can go anywhere else."""
    who = player.capitalize()
    if len(dice) != 1:
        raise Illegal(
            "latrina.one-die",
            f"{who} can put only one die on the Latrina, not {len(dice)}.",
            player=player,
            count=len(dice),
        )
    elsewhere = next(legal_moves(state, player, roll, include_latrina=False), None)
    if elsewhere is not None:
        raise Illegal(
            "latrina.not-forced",
            f"{who} cannot put {dice_text(dice)} on the Latrina: "
            f"{dice_text(elsewhere.dice)} can go in the "
            f"{elsewhere.building.capitalize()}.",
            player=player,
            dice=list(dice),
            other_dice=list(elsewhere.dice),
            building=elsewhere.building,
        )
    latrina = dict(state.latrina)
    latrina[player] = latrina.get(player, 0) + 1
    return {"latrina": latrina}, ()


def place_anyway(state: BoardState, move: Move) -> BoardState:
    """The board after a player puts `move`'s dice down whatever the rules say: how an illegal
    placement lies on the table, and what the players keep when they overrule the referee.
    Forum dice still go in by `forum_insert` and push the rightmost off onto the Latrina."""
    p, dice = move.player, move.dice
    if move.building in ("templum", "senatus"):
        held = dict(getattr(state, move.building))
        held[p] = tuple(sorted(held.get(p, ()) + dice))
        return state.with_(**{move.building: held})
    latrina = dict(state.latrina)
    if move.building == "castrum":
        sets = [s for s in state.castrum if not (s.player == p and s.value in dice)]
        for v in sorted(set(dice)):
            had = next((s.count for s in state.castrum if s.player == p and s.value == v), 0)
            sets.append(CastrumSet(p, v, had + dice.count(v)))
        return state.with_(castrum=tuple(sets))
    if move.building == "forum":
        row = forum_insert(state.forum, [ForumDie(p, v) for v in dice])
        for d in row[state.forum_columns :]:
            latrina[d.player] = latrina.get(d.player, 0) + 1
        return state.with_(forum=row[: state.forum_columns], latrina=latrina)
    latrina[p] = latrina.get(p, 0) + len(dice)
    return state.with_(latrina=latrina)


PLACE = {
    "templum": place_templum,
    "senatus": place_senatus,
    "castrum": place_castrum,
    "forum": place_forum,
    "latrina": place_latrina,
}
