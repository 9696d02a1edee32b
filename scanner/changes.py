"""What changed on the table between two settled board states: pure, two boards in, one
ruling out. `scanner.referee` holds the game and decides what to do with the ruling.

The camera sees the buildings, not the rolls and not the dice in front of players, so a
placement is inferred from what appeared where.

>>> from scanner.rules.state import BoardState
>>> before = BoardState.from_json({"players": ["grey", "blue"]})
>>> after = BoardState.from_json({"players": ["grey", "blue"], "senatus": {"grey": [4, 5]}})
>>> r = infer(before, after)
>>> str(r.kind), r.move.building, r.move.dice, r.verdict.legal
('placement', 'senatus', (4, 5), True)
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from scanner.rules.move import Move, dice_text
from scanner.rules.placement import Illegal, Verdict, as_laid, check
from scanner.rules.round import RoundResult
from scanner.rules.state import BoardState

SCORING_BUILDINGS = ("templum", "senatus", "castrum", "forum")
# Every way dice can go into the Forum in one placement (forum.shape): one die, or 1+4, 2+3.
FORUM_SHAPES = [(v,) for v in range(1, 7)] + [(1, 4), (2, 3)]
AMBIGUOUS_LATRINA = (
    "read as a Forum die pushing out the same player's equal die; a die put on the Latrina "
    "looks the same on the board"
)


def dice_in(state: BoardState, building: str) -> dict[str, Counter[int]]:
    """Each player's dice values lying in one of the four scoring buildings."""
    out: dict[str, Counter[int]] = {}
    if building in ("templum", "senatus"):
        for p, dice in getattr(state, building).items():
            out[p] = Counter(dice)
    elif building == "castrum":
        for s in state.castrum:
            out.setdefault(s.player, Counter())[s.value] += s.count
    else:
        for d in state.forum:
            out.setdefault(d.player, Counter())[d.value] += 1
    return out


def is_empty(state: BoardState) -> bool:
    return not (state.templum or state.senatus or state.castrum or state.forum or state.latrina)


class Kind(StrEnum):
    """What a ruling says happened (see `Ruling`). A `str`, so it is its own JSON and equals
    the contract's strings ("placement" == Kind.PLACEMENT)."""

    NONE = "none"
    PLACEMENT = "placement"
    UNCLEAR = "unclear"
    CLEARED = "cleared"
    UNSURE = "unsure"
    CORRECTION = "correction"


@dataclass(frozen=True)
class Ruling:
    """What the referee makes of a change on the table.

    kind: `none` (nothing changed), `placement` (one player placed dice in one building; the
    verdict says whether legally), `unclear` (the change is not one placement; `notes` say
    why), `cleared` (the buildings were emptied: the round's dice went back). The referee
    adds `unsure` (a flag that would rest on a die the camera is not sure of) and
    `correction` (the board taken as the players or the camera say it is).
    """

    kind: Kind
    move: Move | None = None
    verdict: Verdict | None = None
    notes: tuple[str, ...] = ()
    round_result: RoundResult | None = None

    @property
    def placed(self) -> Move:
        """The move of a ruling that has one: every `placement` and `unsure` ruling does."""
        if self.move is None:
            raise ValueError(f"a ruling of kind {self.kind} names no move")
        return self.move

    @property
    def judged(self) -> Verdict:
        """The verdict of a ruling that has one: every `placement` ruling does."""
        if self.verdict is None:
            raise ValueError(f"a ruling of kind {self.kind} holds no verdict")
        return self.verdict

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": str(self.kind), "notes": list(self.notes)}
        if self.move is not None:
            out["move"] = self.move.to_json()
        if self.verdict is not None:
            v = self.verdict
            out.update(
                {
                    "legal": v.legal,
                    "rule": v.rule,
                    "reason": v.reason,
                    "pushed_out": [{"player": d.player, "value": d.value} for d in v.pushed_out],
                }
            )
            if v.params is not None:
                out["params"] = v.params
        if self.round_result is not None:
            out["round"] = self.round_result.to_json()
        return out


def _latrina_placement(before: BoardState, player: str, count: int) -> Ruling:
    """A die appeared on the Latrina and nothing else changed. Its value is not in the board
    state and the roll was not seen, so only the one-die rule can be judged."""
    move = Move(player, "latrina", (0,) * count)
    if count != 1:
        no = Illegal(
            "latrina.one-die",
            f"{player.capitalize()} can put only one die on the Latrina, not {count}.",
            player=player,
            count=count,
        )
        return Ruling(Kind.PLACEMENT, move, no.verdict())
    latrina = dict(before.latrina)
    latrina[player] = latrina.get(player, 0) + 1
    return Ruling(
        Kind.PLACEMENT,
        move,
        as_laid(before, move, before.with_(latrina=latrina)),
        ("the roll was not seen: a Latrina placement is taken as forced",),
    )


def _forum_explanation(before: BoardState, after: BoardState, player: str) -> Ruling | None:
    """A Forum placement that yields exactly the Forum seen. Needed because a new die pushing
    out an equal die of the same player leaves that player's Forum dice unchanged: only the
    Latrina shows that anything happened."""
    for dice in FORUM_SHAPES:
        move = Move(player, "forum", dice)
        verdict = check(before, move)
        if (
            verdict.legal
            and verdict.after.forum == after.forum
            and dict(verdict.after.latrina) == dict(after.latrina)
        ):
            return Ruling(Kind.PLACEMENT, move, verdict)
    return None


Groups = dict[tuple[str, str], Counter[int]]


def differences(before: BoardState, after: BoardState) -> tuple[Groups, Groups]:
    """The dice that appeared and that vanished in the four scoring buildings, keyed by
    (building, player)."""
    added: Groups = {}
    removed: Groups = {}
    for building in SCORING_BUILDINGS:
        old, new = dice_in(before, building), dice_in(after, building)
        for p in set(old) | set(new):
            plus, minus = (
                new.get(p, Counter()) - old.get(p, Counter()),
                old.get(p, Counter()) - new.get(p, Counter()),
            )
            if plus:
                added[(building, p)] = plus
            if minus:
                removed[(building, p)] = minus
    return added, removed


def vanished_note(removed: Groups, placer: str, building: str) -> str | None:
    """A sentence for dice that left a building other than the Forum (only Forum dice can be
    pushed out by a placement), or None."""
    for (b, p), c in removed.items():
        if b != "forum":
            return (
                f"{dice_text(sorted(c.elements()))} of {p} left the {b.capitalize()} while "
                f"{placer} placed in the {building.capitalize()}"
            )
    return None


def infer(before: BoardState, after: BoardState) -> Ruling:
    """The placement (or other change) that turns `before` into `after` (supply ignored)."""
    if before.players != after.players:
        return Ruling(Kind.UNCLEAR, notes=("the players changed",))
    if is_empty(after) and not is_empty(before):
        return Ruling(Kind.CLEARED)

    added, removed = differences(before, after)
    latrina_up = {p: after.latrina.get(p, 0) - before.latrina.get(p, 0) for p in after.players}
    latrina_up = {p: n for p, n in latrina_up.items() if n}

    if not added:
        vanished = {k: v for k, v in removed.items()}
        if not vanished:
            ups = [(p, n) for p, n in latrina_up.items() if n > 0]
            if len(ups) == 1 and all(n >= 0 for n in latrina_up.values()):
                forum = _forum_explanation(before, after, ups[0][0])
                if forum is not None:
                    # The board alone cannot tell this from a die put on the Latrina: say so.
                    return Ruling(forum.kind, forum.move, forum.verdict, (AMBIGUOUS_LATRINA,))
                return _latrina_placement(before, *ups[0])
            if latrina_up:
                return Ruling(
                    Kind.UNCLEAR, notes=("only the Latrina changed, for several players",)
                )
            return Ruling(Kind.NONE)
        return Ruling(
            Kind.UNCLEAR,
            notes=tuple(
                f"{dice_text(sorted(c.elements()))} of {p} left the {b.capitalize()}"
                for (b, p), c in vanished.items()
            ),
        )

    if len(added) > 1:
        where = ", ".join(
            f"{p} {dice_text(sorted(c.elements()))} in the {b.capitalize()}"
            for (b, p), c in added.items()
        )
        return Ruling(Kind.UNCLEAR, notes=(f"several placements at once: {where}",))

    (((building, player), dice),) = added.items()
    move = Move(player, building, tuple(sorted(dice.elements())))
    verdict = check(before, move)
    # Dice that left another building mean this is not one placement, legal or not (a flagged
    # placement taken back while the next player placed must not be judged as still there).
    gone_elsewhere = vanished_note(removed, player, building)
    if gone_elsewhere:
        return Ruling(Kind.UNCLEAR, move, verdict, (gone_elsewhere,))
    if not verdict.legal:
        if removed:  # an illegal placement pushes nothing out: a die hidden or nudged away
            return Ruling(
                Kind.UNCLEAR, move, verdict, ("Forum dice vanished while a placement was made",)
            )
        return Ruling(Kind.PLACEMENT, move, verdict)

    if building == "forum" and (
        verdict.after.forum != after.forum or dict(verdict.after.latrina) != dict(after.latrina)
    ):
        better = _forum_explanation(before, after, player)
        if better is not None:
            return better

    expected = verdict.after
    notes = []
    pushed = Counter((d.player, d.value) for d in verdict.pushed_out)
    gone: Counter[tuple[str, int]] = Counter()
    for (_, p), c in removed.items():  # all in the Forum (checked above)
        gone.update({(p, v): n for v, n in c.items()})
    if gone - pushed:
        return Ruling(
            Kind.UNCLEAR, move, verdict, ("Forum dice vanished that were not pushed out",)
        )
    if after.forum != expected.forum:
        if gone == pushed:
            notes.append("the Forum dice are not in the order the rules put them")
        else:
            notes.append("dice pushed out of the Forum are still on it")
    if dict(after.latrina) != dict(expected.latrina):
        notes.append("the Latrina does not yet hold the dice pushed out of the Forum")
    return Ruling(Kind.PLACEMENT, move, verdict, tuple(notes))


def rereads(before: BoardState, after: BoardState) -> tuple[BoardState, list[str]]:
    """`before` with each player's dice in the Templum, Senatus and Castrum replaced by what
    `after` shows where the number of dice is the same but values differ (a die read anew),
    likewise a Forum whose columns hold the same players, and a note for each."""
    templum, senatus, sets = dict(before.templum), dict(before.senatus), list(before.castrum)
    notes = []
    for building, held in (("templum", templum), ("senatus", senatus)):
        now = getattr(after, building)
        for p, dice in list(held.items()):
            if p in now and len(now[p]) == len(dice) and sorted(now[p]) != sorted(dice):
                notes.append(
                    f"{p}'s {'-'.join(map(str, dice))} in the {building.capitalize()} "
                    f"now reads {'-'.join(map(str, now[p]))}: taken as a misread"
                )
                held[p] = now[p]
    old_c, new_c = dice_in(before, "castrum"), dice_in(after, "castrum")
    for p, counts in old_c.items():
        if p in new_c and new_c[p] != counts and sum(new_c[p].values()) == sum(counts.values()):
            notes.append(
                f"{p}'s Castrum dice {sorted(counts.elements())} now read "
                f"{sorted(new_c[p].elements())}: taken as a misread"
            )
            sets = [s for s in sets if s.player != p] + [c for c in after.castrum if c.player == p]
    forum = before.forum
    if (
        len(after.forum) == len(forum)
        and [d.player for d in after.forum] == [d.player for d in forum]
        and after.forum != forum
    ):
        for i, (a, b) in enumerate(zip(forum, after.forum, strict=True)):
            if a != b:
                notes.append(
                    f"{a.player}'s Forum die in column {i + 1} now reads {b.value}, "
                    f"not {a.value}: taken as a misread"
                )
        forum = after.forum
    fixed = before.with_(templum=templum, senatus=senatus, castrum=tuple(sets), forum=forum)
    return fixed, notes


def placements_in_turn(
    state: BoardState, current: str, added: Groups
) -> list[tuple[Move, Verdict]] | None:
    """`added` (new dice by building and player) as one placement per turn from `current`
    on, each judged on the board the ones before it leave. Every player with dice left must
    have placed on his turn; the last placement may be illegal (it is then the one to flag),
    an earlier one may not. None when the dice cannot be read that way."""
    order = state.players
    pos = order.index(current)
    remaining = dict(added)
    out: list[tuple[Move, Verdict]] = []
    board = state
    for _ in range(3 * len(order)):
        if not remaining:
            return out
        player = order[pos % len(order)]
        pos += 1
        if not board.supply.get(player):
            continue
        mine = sorted(k for k in remaining if k[1] == player)
        if not mine:
            return None
        dice = remaining.pop(mine[0])
        move = Move(player, mine[0][0], tuple(sorted(dice.elements())))
        verdict = check(board, move)
        out.append((move, verdict))
        if not verdict.legal:
            return None if remaining else out
        board = verdict.after
    return out if not remaining else None


def forum_misread(before: BoardState, seen: BoardState, player: str) -> Ruling | None:
    """A legal Forum placement of `player` that explains what is seen but for one die already
    accepted read with another value (same player, same column): accepted as seen, with a
    note, so the misread stays the accepted reading until it is read right or corrected."""
    added, removed = differences(before, seen)
    if any(b != "forum" for b, _ in (*added, *removed)):
        return None  # something else changed too: not this
    had = Counter(before.forum)
    for dice in FORUM_SHAPES:
        move = Move(player, "forum", dice)
        verdict = check(before, move)
        want = verdict.after.forum if verdict.legal else ()
        if (
            not verdict.legal
            or len(want) != len(seen.forum)
            or dict(verdict.after.latrina) != dict(seen.latrina)
        ):
            continue
        off = [i for i, (a, b) in enumerate(zip(want, seen.forum, strict=True)) if a != b]
        # The misread die must be one already accepted: a new die read otherwise is another
        # placement, and recording this move would record the wrong dice.
        if (
            len(off) == 1
            and want[off[0]].player == seen.forum[off[0]].player
            and Counter(want)[want[off[0]]] <= had[want[off[0]]]
        ):
            i = off[0]
            note = (
                f"{want[i].player}'s Forum die in column {i + 1} reads "
                f"{seen.forum[i].value} where it should be a {want[i].value}: taken as a misread"
            )
            shown = verdict.after.with_(forum=seen.forum)
            return Ruling(
                Kind.PLACEMENT, move, as_laid(before, move, shown, verdict.pushed_out), (note,)
            )
    return None
