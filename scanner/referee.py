"""The referee: from one settled board state to the next, work out what was placed (with
`scanner.changes`), judge it, and keep the game model (turn order, rounds) in step with the table.

`Referee` holds the `Game` and feeds it each accepted placement, so turn order and round flow
come from `scanner.rules.game`, never from a second copy here.

>>> from scanner.rules.state import BoardState
>>> ref = Referee(Game(["grey", "blue"], seed=1))
>>> seen = BoardState.from_json({"players": ["grey", "blue"], "senatus": {"grey": [4, 5]}})
>>> r = ref.observe(seen)
>>> str(r.kind), r.move.building, r.verdict.legal, ref.game.current_player
('placement', 'senatus', True, 'blue')
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from scanner.changes import (
    Kind,
    Ruling,
    differences,
    forum_misread,
    infer,
    is_empty,
    placements_in_turn,
    rereads,
)
from scanner.corrections import Corrections
from scanner.rules.game import Game, Snapshot
from scanner.rules.move import Move, dice_text
from scanner.rules.placement import Verdict, as_laid, place_anyway
from scanner.rules.round import RoundResult, score_round
from scanner.rules.state import BoardState


class Referee:
    """Follows a game from settled board states, keeping `game` (the rules' model) in step.

    The accepted board is `game.state`. A flagged placement changes nothing until the players
    take it back (the next settled state equals the accepted one again), correct it, or play
    on with it still on the table: then it is kept (a misread die looks just like that). A
    placement taken back after it was accepted is put off the board again, the turn with it.
    When several placements show at once (a settled state the camera missed), they are taken
    in turn order. A hand correction holds against the camera until its dice move. What
    cannot be explained is said (`lost` holds that board) until the table makes sense again."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.rulings: list[Ruling] = []
        self.flagged: tuple[Move, BoardState] | None = None  # still on the table, maybe
        self.lost: BoardState | None = None  # the last settled board nothing explained
        # This round's placements: (the move, the board before, the game before), so the
        # players can take one back.
        self.history: list[tuple[Move, BoardState, Snapshot]] = []
        self.held = Corrections()
        # The game just before a board was read on a guess (a die read anew with nothing
        # placed; several placements in turn order), with how many placements it had and a
        # note, until the next board, which may show that the guess was wrong.
        self.guess: tuple[Snapshot, BoardState, int, str] | None = None

    @property
    def accepted(self) -> BoardState:
        return self.game.state

    # ------------------------------------------------------------------ changes of the game
    def place(self, move: Move, verdict: Verdict | None = None) -> Verdict:
        """`game.place`, remembered so the players can take the placement back."""
        before, snapshot = self.game.state, self.game.snapshot()
        verdict = self.game.place(move, verdict)
        if verdict.legal:
            self.history.append((move, before, snapshot))
        return verdict

    def keep(self, move: Move, shown: BoardState) -> Verdict:
        """The players keep `move` as it lies in `shown` (a flag overruled, or left on the
        table while play went on): placed, its dice taken from the placer's supply."""
        return self.place(move, as_laid(self.game.state, move, shown))

    def correct(self, state: BoardState, why: str) -> None:
        """The players say what the board is; what they changed holds against the camera."""
        self.held.hold(self.game.state, state)
        self.game.correct(state, why)

    def end_round(self) -> RoundResult:
        self.history.clear()
        self.held = Corrections()
        self.flagged = self.lost = None
        return self.game.end_round()

    def news(self, seen: BoardState) -> bool:
        """Whether a settled board says anything: it differs from the accepted one (hand
        corrections taken into account), or it answers a flag or a board nothing explained."""
        if self.flagged is not None or self.lost is not None or self.game.current_player is None:
            return True
        seen = self._as_the_game_sees(seen)
        return infer(self.game.state, seen).kind != Kind.NONE

    def _as_the_game_sees(self, seen: BoardState) -> BoardState:
        if set(seen.players) == set(self.game.state.players):
            # The camera sees colours, not seating: the order is the game's (it rotates every
            # round, and a reading made just before the rotation still has the old one).
            seen = seen.with_(players=self.game.state.players)
        return self.held.apply(seen.with_(supply=self.game.state.supply))

    # ------------------------------------------------------------------ a settled board
    def observe(self, seen: BoardState, unsure: list[dict] | tuple = ()) -> Ruling:
        """Judge a newly settled state against the accepted one. `unsure`: the dice the
        camera is not sure of; a flag is never built on one (the page asks instead)."""
        game = self.game
        if game.current_player is None:
            if set(seen.players) == set(game.state.players):
                seen = seen.with_(players=game.state.players)
            # Between rounds only clearing the buildings means something; dice moved to the
            # Latrina or taken back now are the round's scoring being carried out.
            if is_empty(seen.with_(latrina={})) and not is_empty(game.state):
                return self._record(Ruling(Kind.CLEARED, round_result=self.end_round()))
            # The round's last placement (a flag accepted) taken back puts the round back.
            back = self._taken_back(seen.with_(supply=game.state.supply))
            if back is None:
                return self._record(
                    Ruling(
                        Kind.NONE,
                        notes=("the round is over: clear the buildings to start the next one",),
                    )
                )
            return self._judge(seen, [back], unsure)
        return self._judge(seen, [], unsure)

    def _judge(
        self, seen: BoardState, notes: list[str], unsure: Iterable[Mapping[str, Any]] = ()
    ) -> Ruling:
        game = self.game
        self.held.forget_moved(seen)
        seen = self._as_the_game_sees(seen)
        if self.flagged is not None and infer(game.state, seen).kind == Kind.NONE:
            self.flagged = None
            notes.append("the flagged placement was taken back")
        kept = self._play_went_on(seen)
        if kept:
            notes.append(kept)
        guess, self.guess = self.guess, None
        ruling = infer(game.state, seen)
        if ruling.kind == Kind.UNCLEAR:
            ruling = self._after_rereads(seen) or ruling
        elif ruling.kind == Kind.PLACEMENT and not self._clean(ruling):
            # A placement that leaves the Forum out of order may be a die read anew instead.
            ruling = self._after_rereads(seen, only_clean=True) or ruling
        grown = ruling.kind == Kind.PLACEMENT and ruling.placed.player != game.current_player
        # (An empty board is also what taking back the round's first placement leaves.)
        if ruling.kind in (Kind.UNCLEAR, Kind.CLEARED) or grown:
            back = self._taken_back(seen, grown)
            if back:
                notes.append(back)
                ruling = infer(game.state, seen)
        current = self.game.current_player
        if ruling.kind == Kind.UNCLEAR and current is not None:  # a round over has no turn
            ruling = (
                forum_misread(self.game.state, seen, current) or self._in_turn_order(seen) or ruling
            )
        if not self._clean(ruling) and guess is not None:
            # The last board was read on a guess: a die taken as misread may have been a
            # placement with a die nudged away, two placements in turn order one placement
            # with a die read in another colour. When the board before the guess explains
            # this one as one placement of the player then to play, it was that.
            snapshot, board, depth, why = guess
            alt = infer(board, seen.with_(supply=board.supply))
            pos = snapshot["turn"][1]
            who = board.players[pos] if pos < len(board.players) else None
            if alt.kind == Kind.PLACEMENT and alt.placed.player == who and not alt.notes:
                self.game.restore(snapshot, why)
                del self.history[depth:]
                notes.append(why)
                ruling = alt
        if notes:
            ruling = Ruling(
                ruling.kind,
                ruling.move,
                ruling.verdict,
                (*notes, *ruling.notes),
                ruling.round_result,
            )
        if ruling.kind == Kind.PLACEMENT and not ruling.judged.legal:
            doubt = _doubtful(ruling.placed, unsure)
            if doubt is not None:
                ruling = Ruling(
                    Kind.UNSURE,
                    ruling.move,
                    None,
                    (f"{doubt}? The camera is not sure of this die: check it", *ruling.notes),
                )
        if ruling.kind in (Kind.UNCLEAR, Kind.UNSURE):
            self.lost = seen
            return self._record(ruling)
        self.lost = None
        if ruling.kind == Kind.PLACEMENT and not ruling.judged.legal:
            self.flagged = (ruling.placed, seen)
        if ruling.kind == Kind.PLACEMENT and ruling.judged.legal:
            no = game.out_of_turn(ruling.placed.player)
            if no is not None:
                self.flagged = (ruling.placed, seen)
                return self._record(Ruling(Kind.PLACEMENT, ruling.move, no.verdict(), ruling.notes))
            if ruling.placed.building == "latrina":  # only the count was seen: a guess too
                self.guess = (
                    game.snapshot(),
                    game.state,
                    len(self.history),
                    "what looked like a die put on the Latrina was a placement",
                )
            self.place(ruling.placed, ruling.verdict)
            self.flagged = None  # a legal placement made instead of it
            if game.current_player is None:
                ruling = Ruling(
                    ruling.kind,
                    ruling.move,
                    ruling.verdict,
                    ruling.notes,
                    round_result=score_round(game.state),
                )
        elif ruling.kind == Kind.CLEARED:
            self.lost = seen
            ruling = Ruling(
                Kind.UNCLEAR, notes=("the buildings were cleared before the round ended",)
            )
        return self._record(ruling)

    def take_as_seen(self, seen: BoardState) -> Ruling:
        """The players' one tap when the referee is lost: the board is what the camera sees.
        Placements in turn order when that explains it, else a correction (turn kept)."""
        seen = self._as_the_game_sees(seen)
        ruling = infer(self.game.state, seen)
        if ruling.kind != Kind.PLACEMENT or ruling.placed.player != self.game.current_player:
            ruling = self._in_turn_order(seen, pushes=True) or ruling
        move = ruling.move if ruling.kind == Kind.PLACEMENT else None
        kept = self._keep_or_correct(move, seen, "taken as the camera sees it")
        if kept is not None:
            out = Ruling(Kind.PLACEMENT, move, kept, ruling.notes)
        else:
            out = Ruling(Kind.CORRECTION, notes=("the board was taken as the camera sees it",))
        self.flagged = self.lost = None
        return self._record(out)

    def accept(self, seen: BoardState) -> Move | None:
        """The players overrule a flag: `seen` is the board. The placement it shows when that
        is the current player's (the turn passes), else a correction (turn kept, None)."""
        self.flagged = None  # overruled: no longer a flag to take back or keep
        ruling = infer(self.game.state, seen.with_(supply=self.game.state.supply))
        kept = self._keep_or_correct(ruling.move, seen, "accepted by the players")
        return ruling.move if kept is not None else None

    def _keep_or_correct(self, move: Move | None, seen: BoardState, why: str) -> Verdict | None:
        """Keep `move` as it lies in `seen` when it is the current player's; else take `seen`
        as a correction. Returns the kept placement's verdict, or None."""
        if move is not None and move.player == self.game.current_player:
            return self.keep(move, seen)
        self.correct(seen, why)
        return None

    def _clean(self, ruling: Ruling) -> bool:
        """A legal placement of the player whose turn it is that explains the board exactly."""
        return (
            ruling.kind == Kind.PLACEMENT
            and ruling.judged.legal
            and not ruling.notes
            and ruling.placed.player == self.game.current_player
        )

    def _taken_back(self, seen: BoardState, grown: bool = False) -> str | None:
        """This round's last placement is no longer on the table as it was accepted: the game
        goes back to before it (the turn with it) when that leaves nothing new (a flag first
        accepted, then taken back) or one legal placement of the same player in its place; or,
        with `grown`, one placement (legal or not) of the same player in the same building (a
        die of it hidden or nudged out when it first settled). Somebody else's dice seen from
        further back are never reason enough: a hand over a building looks like that. Returns
        a note, or None."""
        if not self.history or infer(self.game.state, seen).kind == Kind.NONE:
            return None  # the accepted board is what is seen: nothing was taken back
        last, before, snapshot = self.history[-1]
        # Dice accepted before it may read differently now (a misread put right).
        fixed, misread = rereads(before, seen)
        again = infer(fixed, seen.with_(supply=before.supply))
        same_player = again.kind == Kind.PLACEMENT and again.placed.player == last.player
        if grown and not (same_player and again.placed.building == last.building):
            return None  # legal or not: the whole placement is judged again
        if not grown and not (again.kind == Kind.NONE or (same_player and again.judged.legal)):
            return None
        self.game.restore(snapshot, "a placement read again" if grown else "taken back")
        self.history.pop()
        if misread:
            self.game.correct(fixed, "; ".join(misread))
        what = f"{last.player}'s {dice_text(last.dice)} in the {last.building.capitalize()}"
        if grown:
            return f"{what} now reads {dice_text(again.placed.dice)}"
        return f"taken back off the table: {what}"

    def _in_turn_order(self, seen: BoardState, pushes: bool = False) -> Ruling | None:
        """Several placements seen at once (a settled board the camera missed, a hand over the
        table): each player's new dice in one building, taken in turn order, `pushes` allowing
        Forum dice pushed out on the way. All but the last are placed here; the last is
        returned for `observe` to judge like any placement. None when that does not explain
        the board."""
        added, removed = differences(self.game.state, seen)
        # Forum dice pushed out along the way only when the players say so (`take_as_seen`):
        # on its own, a die gone from the Forum while another appears is more often one die
        # read in another colour.
        if not 2 <= len(added) <= 6 or (removed and not pushes):
            return None
        if any(b != "forum" for b, _ in removed):
            return None
        current = self.game.current_player
        if current is None:  # the round is over: nobody's turn to take placements from
            return None
        moves = placements_in_turn(self.game.state, current, added)
        if moves is None:
            return None
        move, verdict = moves[-1]
        # Only the last placement may be illegal (`placements_in_turn`).
        before = moves[-2][1].after if len(moves) > 1 else self.game.state
        after = verdict.after if verdict.legal else place_anyway(before, move)
        if differences(after, seen) != ({}, {}):
            return None
        if not pushes:  # on the referee's own guess: remembered until the next board
            self.guess = (
                self.game.snapshot(),
                self.game.state,
                len(self.history),
                "what looked like several placements was one",
            )
        for earlier, judged in moves[:-1]:
            self.place(earlier, judged)
        note = "several placements at once, taken in turn order: " + ", ".join(
            f"{m.player}'s {dice_text(m.dice)} in the {m.building.capitalize()}" for m, _ in moves
        )
        return Ruling(Kind.PLACEMENT, move, verdict, (note,))

    def _after_rereads(self, seen: BoardState, only_clean: bool = False) -> Ruling | None:
        """When dice already accepted now read differently (same player, same building, as
        many dice as before), take the new reading as a correction of an earlier misread; the
        ruling is then about what else changed (`observe` judges and applies it as usual).
        None when that does not leave one placement or nothing (with `only_clean`: nothing, or
        one placement that explains the board exactly)."""
        fixed, notes = rereads(self.game.state, seen)
        if not notes:
            return None
        again = infer(fixed, seen)
        if again.kind not in ("placement", "none"):
            return None
        if only_clean and not (again.kind == Kind.NONE or self._clean(again)):
            return None
        if again.kind == Kind.NONE:  # remembered until the next board: see `_judge`
            self.guess = (
                self.game.snapshot(),
                self.game.state,
                len(self.history),
                "a die taken as misread was a placement",
            )
        self.game.correct(fixed, "; ".join(notes))
        return Ruling(again.kind, again.move, again.verdict, (*notes, *again.notes))

    def _play_went_on(self, seen: BoardState) -> str | None:
        """A flagged placement still lies there and the next one has been made on top of it:
        the players kept it (or the camera misread a die and nobody minded). Accept it as laid
        so the new placement is judged on its own. Returns a note saying so, or None."""
        if self.flagged is None:
            return None
        move, shown = self.flagged
        game = self.game
        if infer(game.state, seen).kind == Kind.NONE:
            self.flagged = None  # taken back
            return None
        onward = infer(shown.with_(supply=game.state.supply), seen)
        if onward.kind != Kind.PLACEMENT or move.player != game.current_player:
            return None
        self.keep(move, shown)
        self.flagged = None
        return (
            f"{move.player}'s flagged {move.building.capitalize()} placement stayed on the "
            "table and play went on: it was kept"
        )

    def _record(self, ruling: Ruling) -> Ruling:
        self.rulings.append(ruling)
        return ruling


def _doubtful(move: Move, unsure: Iterable[Mapping[str, Any]]) -> str | None:
    """The first die of `move` the camera is not sure of, as the page asks it ('blue 4'), or
    None. A die of unknown colour in the move's building counts: it may be the placer's."""
    for d in unsure:
        if d["building"] != move.building:
            continue
        if d["player"] is None:
            return f"a die of unknown colour, {d['value']}"
        if d["player"] == move.player and d["value"] in move.dice:
            return f"{d['player']} {d['value']}"
    return None
