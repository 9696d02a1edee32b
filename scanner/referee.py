"""The referee: from one settled board state to the next, work out what was placed, judge it,
and keep the game model (turn order, rounds) in step with the table.

The camera sees the buildings, not the rolls and not the dice in front of players, so a
placement is inferred from what appeared where. `infer` is pure (two states in, one ruling out);
`Referee` holds the `Game` and feeds it each accepted placement, so turn order and round flow
come from `scanner.rules.game`, never from a second copy here.

>>> from scanner.rules.state import BoardState
>>> before = BoardState.from_json({"players": ["grey", "blue"]})
>>> after = BoardState.from_json({"players": ["grey", "blue"], "senatus": {"grey": [4, 5]}})
>>> r = infer(before, after)
>>> r.kind, r.move.building, r.move.dice, r.verdict.legal
('placement', 'senatus', (4, 5), True)
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from scanner.rules.game import Game
from scanner.rules.placement import Illegal, Move, Verdict, check, dice_text
from scanner.rules.round import RoundResult, score_round
from scanner.rules.state import BoardState

SCORING_BUILDINGS = ("templum", "senatus", "castrum", "forum")
# Every way dice can go into the Forum in one placement (forum.shape): one die, or 1+4, 2+3.
FORUM_SHAPES = [(v,) for v in range(1, 7)] + [(1, 4), (2, 3)]
AMBIGUOUS_LATRINA = (
    "read as a Forum die pushing out the same player's equal die; a die put on the Latrina "
    "looks the same on the board"
)


def dice_in(state: BoardState, building: str) -> dict[str, Counter]:
    """Each player's dice values lying in one of the four scoring buildings."""
    out: dict[str, Counter] = {}
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


@dataclass(frozen=True)
class Ruling:
    """What the referee makes of a change on the table.

    kind: `none` (nothing changed), `placement` (one player placed dice in one building; the
    verdict says whether legally), `unclear` (the change is not one placement; `notes` say
    why), `cleared` (the buildings were emptied: the round's dice went back).
    """

    kind: str
    move: Move | None = None
    verdict: Verdict | None = None
    notes: tuple[str, ...] = ()
    round_result: RoundResult | None = None

    def to_json(self) -> dict:
        out: dict = {"kind": self.kind, "notes": list(self.notes)}
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
        )
        return Ruling("placement", move, Verdict(False, no.rule, no.reason))
    latrina = dict(before.latrina)
    latrina[player] = latrina.get(player, 0) + 1
    supply = dict(before.supply)
    if supply.get(player):
        supply[player] -= 1
        if not supply[player]:
            del supply[player]
    after = before.with_(latrina=latrina, supply=supply)
    return Ruling(
        "placement",
        move,
        Verdict(True, state=after),
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
            and verdict.state.forum == after.forum
            and dict(verdict.state.latrina) == dict(after.latrina)
        ):
            return Ruling("placement", move, verdict)
    return None


def infer(before: BoardState, after: BoardState) -> Ruling:
    """The placement (or other change) that turns `before` into `after` (supply ignored)."""
    if before.players != after.players:
        return Ruling("unclear", notes=("the players changed",))
    if is_empty(after) and not is_empty(before):
        return Ruling("cleared")

    added: dict[tuple[str, str], Counter] = {}
    removed: dict[tuple[str, str], Counter] = {}
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
                return Ruling("unclear", notes=("only the Latrina changed, for several players",))
            return Ruling("none")
        return Ruling(
            "unclear",
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
        return Ruling("unclear", notes=(f"several placements at once: {where}",))

    (((building, player), dice),) = added.items()
    move = Move(player, building, tuple(sorted(dice.elements())))
    verdict = check(before, move)
    if not verdict.legal:
        return Ruling("placement", move, verdict)

    if building == "forum" and (
        verdict.state.forum != after.forum or dict(verdict.state.latrina) != dict(after.latrina)
    ):
        better = _forum_explanation(before, after, player)
        if better is not None:
            return better

    expected = verdict.state
    notes = []
    pushed = Counter((d.player, d.value) for d in verdict.pushed_out)
    gone = Counter()
    for (b, p), c in removed.items():
        if b != "forum":
            return Ruling(
                "unclear",
                move,
                verdict,
                (
                    f"{dice_text(sorted(c.elements()))} of {p} left the {b.capitalize()} while "
                    f"{player} placed in the {building.capitalize()}",
                ),
            )
        gone.update({(p, v): n for v, n in c.items()})
    if gone - pushed:
        return Ruling("unclear", move, verdict, ("Forum dice vanished that were not pushed out",))
    if after.forum != expected.forum:
        if gone == pushed:
            notes.append("the Forum dice are not in the order the rules put them")
        else:
            notes.append("dice pushed out of the Forum are still on it")
    if dict(after.latrina) != dict(expected.latrina):
        notes.append("the Latrina does not yet hold the dice pushed out of the Forum")
    return Ruling("placement", move, verdict, tuple(notes))


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
    for p, dice in old_c.items():
        if p in new_c and new_c[p] != dice and sum(new_c[p].values()) == sum(dice.values()):
            notes.append(
                f"{p}'s Castrum dice {sorted(dice.elements())} now read "
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


class Referee:
    """Follows a game from settled board states, keeping `game` (the rules' model) in step.

    The accepted board is `game.state`; a flagged placement changes nothing until the players
    take it back (the next settled state equals the accepted one again), correct it, or play
    on with it still on the table: then it is kept (a misread die looks just like that)."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.rulings: list[Ruling] = []
        self.flagged: tuple[Move, BoardState] | None = None  # still on the table, maybe

    @property
    def accepted(self) -> BoardState:
        return self.game.state

    def observe(self, seen: BoardState) -> Ruling:
        """Judge a newly settled state against the accepted one."""
        game = self.game
        if set(seen.players) == set(game.state.players):
            # The camera sees colours, not seating: the order is the game's (it rotates every
            # round, and a reading made just before the rotation still has the old one).
            seen = seen.with_(players=game.state.players)
        if game.current_player is None:
            # Between rounds only clearing the buildings means something; dice moved to the
            # Latrina or taken back now are the round's scoring being carried out.
            if is_empty(seen.with_(latrina={})) and not is_empty(game.state):
                return self._record(Ruling("cleared", round_result=game.end_round()))
            return self._record(
                Ruling(
                    "none", notes=("the round is over: clear the buildings to start the next one",)
                )
            )

        seen = seen.with_(supply=game.state.supply)
        kept = self._play_went_on(seen)
        ruling = infer(game.state, seen)
        if ruling.kind == "unclear":
            ruling = self._after_rereads(seen) or self._forum_with_misread(seen) or ruling
        if kept:
            ruling = Ruling(
                ruling.kind, ruling.move, ruling.verdict, (kept, *ruling.notes), ruling.round_result
            )
        if ruling.kind == "placement" and not ruling.verdict.legal:
            self.flagged = (ruling.move, seen)
        if ruling.kind == "placement" and ruling.verdict.legal:
            if ruling.move.player != game.current_player:
                no = Illegal(
                    "play.turn", f"It is {game.current_player}'s turn, not {ruling.move.player}'s."
                )
                return self._record(
                    Ruling(
                        "placement", ruling.move, Verdict(False, no.rule, no.reason), ruling.notes
                    )
                )
            game.place(ruling.move, ruling.verdict)
            if game.current_player is None:
                ruling = Ruling(
                    ruling.kind,
                    ruling.move,
                    ruling.verdict,
                    ruling.notes,
                    round_result=score_round(game.state),
                )
        elif ruling.kind == "cleared":
            ruling = Ruling("unclear", notes=("the buildings were cleared before the round ended",))
        return self._record(ruling)

    def _after_rereads(self, seen: BoardState) -> Ruling | None:
        """When dice already accepted now read differently (same player, same building, as
        many dice as before), take the new reading as a correction of an earlier misread; the
        ruling is then about what else changed (`observe` judges and applies it as usual).
        None when that does not leave one placement or nothing."""
        fixed, notes = rereads(self.game.state, seen)
        if not notes:
            return None
        again = infer(fixed, seen)
        if again.kind not in ("placement", "none"):
            return None
        self.game.correct(fixed, "; ".join(notes))
        return Ruling(again.kind, again.move, again.verdict, (*notes, *again.notes))

    def _forum_with_misread(self, seen: BoardState) -> Ruling | None:
        """A legal Forum placement of the current player that explains what is seen but for one
        die read with another value (same player, same column): accepted as seen, with a note,
        so the misread stays the accepted reading until it is read right or corrected."""
        player = self.game.current_player
        before = self.game.state
        for dice in FORUM_SHAPES:
            move = Move(player, "forum", dice)
            verdict = check(before, move)
            want = verdict.state.forum if verdict.legal else ()
            if (
                not verdict.legal
                or len(want) != len(seen.forum)
                or dict(verdict.state.latrina) != dict(seen.latrina)
            ):
                continue
            off = [i for i, (a, b) in enumerate(zip(want, seen.forum, strict=True)) if a != b]
            if len(off) == 1 and want[off[0]].player == seen.forum[off[0]].player:
                i = off[0]
                note = (
                    f"{want[i].player}'s Forum die in column {i + 1} reads "
                    f"{seen.forum[i].value} where it should be a {want[i].value}: "
                    "taken as a misread"
                )
                state = verdict.state.with_(forum=seen.forum)
                return Ruling(
                    "placement",
                    move,
                    Verdict(True, state=state, pushed_out=verdict.pushed_out),
                    (note,),
                )
        return None

    def _play_went_on(self, seen: BoardState) -> str | None:
        """A flagged placement still lies there and the next one has been made on top of it:
        the players kept it (or the camera misread a die and nobody minded). Accept it as laid
        so the new placement is judged on its own. Returns a note saying so, or None."""
        if self.flagged is None:
            return None
        move, shown = self.flagged
        game = self.game
        if infer(game.state, seen).kind == "none":
            self.flagged = None  # taken back
            return None
        onward = infer(shown.with_(supply=game.state.supply), seen)
        if onward.kind != "placement" or move.player != game.current_player:
            return None
        supply = dict(game.state.supply)
        left = supply.pop(move.player, 0) - len(move.dice)
        if left > 0:
            supply[move.player] = left
        game.place(move, Verdict(True, state=shown.with_(supply=supply)))
        self.flagged = None
        return (
            f"{move.player}'s flagged {move.building.capitalize()} placement stayed on the "
            "table and play went on: it was kept"
        )

    def _record(self, ruling: Ruling) -> Ruling:
        self.rulings.append(ruling)
        return ruling
