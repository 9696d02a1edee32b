"""A game session: the durable event log of one real game, replayed into a `Referee`.

Every input (a settled camera state, a move entered by hand, a correction, an accepted flag, a
tile picked, undo, redo) is appended to the store *before* it is applied, and the game is always
the replay of the log's effective events, so a restart or a crash resumes exactly, and undo/redo
are just log entries.

>>> from scanner.store import MemoryStore
>>> s = Session(MemoryStore(), players=["grey", "blue"], seed=1)
>>> s.place({"player": "grey", "building": "senatus", "dice": [3, 4]})["legal"]
True
>>> s.undo(); s.game.state.senatus
{}
"""

from __future__ import annotations

import json
from typing import Any

from scanner.changes import Kind, Ruling
from scanner.errors import InputError
from scanner.events import effective, short_text
from scanner.inputs import expect_die, expect_int, expect_object, expect_player, parse_seating
from scanner.record import KINDS, TileRecord
from scanner.referee import Referee
from scanner.rules.game import Game
from scanner.rules.io import NO_ROLL, parse_move, parse_unsure
from scanner.rules.placement import place_anyway
from scanner.rules.state import BoardState
from scanner.store import Store


class Session:
    """One game, resumable from its store. Open an existing store with `players=None`."""

    def __init__(
        self,
        store: Store,
        players: list[str] | None = None,
        seed: int = 0,
        source: str | None = None,
    ) -> None:
        self.store = store
        if not store.events():
            if players is None:
                raise InputError("session.empty", "this game file holds no game yet")
            parse_seating(players, "$.players")
            head = {"event": "new-game", "players": list(players), "seed": seed}
            store.append({**head, **({"source": source} if source else {})})
        self.replay()

    # ------------------------------------------------------------------ replay
    def replay(self) -> None:
        events = effective(self.store.events())
        head = events[0] if events else {}
        if head.get("event") != "new-game":
            raise InputError("store.corrupt", "the game record does not start with a new game")
        seat = parse_seating(head.get("players"), "$.events[0].players")
        if not isinstance(head.get("seed", 0), int | float) or isinstance(head.get("seed"), bool):
            raise InputError("store.corrupt", "the new game's seed is not a number", "$.events[0]")
        self.seating = list(seat)
        self.source: str | None = head.get("source")  # "demo" for the demo feed's games
        # The table deals the tiles: the game model only follows turns, rounds and chips.
        self.referee = Referee(Game(self.seating, seed=head.get("seed", 0), deal=False))
        self.tiles = TileRecord(self.seating)
        self.round_results: list[dict] = []
        self.log: list[dict] = []
        self._per_round: dict[int, int] = {}  # entries so far in each round, for their numbers
        self.flag: dict | None = None  # the latest entry, when it is a flagged placement
        for e in events[1:]:
            self._step(e)

    def _step(self, e: dict) -> None:
        """Apply one effective event of the log (replaying it, or just recorded)."""
        self.flag = None  # only the latest entry's flag can be accepted
        # Entries are numbered within the round they happened in, so "round 3, entry 12" still
        # names the same entry when the page shows only the latest ones.
        in_round = self.game.round_no
        self._per_round[in_round] = number = self._per_round.get(in_round, 0) + 1
        try:
            outcome = self._apply(e)
        except (InputError, ValueError, KeyError, TypeError) as exc:
            # An entry that no longer applies (e.g. after an undo before it) is kept in the
            # log and shown, never allowed to stop the game from opening.
            outcome = {"kind": "error", "message": getattr(exc, "message", str(exc))}
        if outcome.get("kind") == "cleared" and "round" in outcome:
            self.round_results.append(outcome["round"])
        self.log.append(
            {"id": e["id"], "event": e["event"], "in_round": in_round, "n": number, **outcome}
        )

    @property
    def game(self) -> Game:
        return self.referee.game

    def _apply(self, e: dict) -> dict:
        kind = e["event"]
        if kind == "observe":
            seen = BoardState.from_json(e["state"], "$.state", strict=False)
            ruling = self.referee.observe(seen, e.get("unsure", [])).to_json()
            if ruling.get("legal") is False:
                self.flag = {**ruling, "state": seen.to_json()}
            return ruling
        if kind == "place":
            move, roll = parse_move(e["move"], e.get("roll", NO_ROLL), self.game.state.players)
            no = self.game.out_of_turn(move.player)
            if no is not None:
                return Ruling(Kind.PLACEMENT, move, no.verdict()).to_json()
            if "roll" in e:
                self.game.roll(roll)
            verdict = self.referee.place(move)
            ruling = Ruling(Kind.PLACEMENT, move, verdict).to_json()
            if not verdict.legal:
                self.flag = {**ruling, "state": place_anyway(self.game.state, move).to_json()}
            return ruling
        if kind == "correct":
            self.referee.correct(
                BoardState.from_json(e["state"], "$.state", strict=False),
                e.get("why", "corrected by hand"),
            )
            return {"kind": "correction"}
        if kind == "take-as-seen":
            seen = BoardState.from_json(e["state"], "$.state", strict=False)
            return self.referee.take_as_seen(seen).to_json()
        if kind == "accept":
            # The players keep a flagged placement: the seen state becomes the accepted one,
            # and the turn passes as for any placement.
            kept = self.referee.accept(BoardState.from_json(e["state"], "$.state", strict=False))
            return (
                {"kind": "correction"}
                if kept is None
                else {"kind": "accepted", "move": kept.to_json()}
            )
        if kind == "next-round":
            if self.game.current_player is not None or self.game.over:
                raise InputError("session.round-not-over", "the round is still being played")
            return Ruling(Kind.CLEARED, round_result=self.referee.end_round()).to_json()
        if kind == "pick":
            # Not checked against the pick order again here: a record written before the
            # order was checked still opens with every pick it holds.
            self.tiles.pick(len(self.round_results), e["player"], e["kind"], e["tile"])
            return {"kind": "pick"}
        if kind == "lay-out":
            self.tiles.lay_out(self.game.round_no, e["provinces"], e["patricians"])
            return {"kind": "lay-out"}
        if kind == "repete":
            self.tiles.spend(e["player"], self.game.holdings[e["player"]].repete)
            return {"kind": "repete", "player": e["player"]}
        return {"kind": "ignored"}

    # ------------------------------------------------------------------ inputs
    def _record(self, event: dict) -> dict:
        """Append first (durability), then apply it. A new event (not undo or redo) extends
        the effective log by itself, so applying it to the game as it stands is the replay of
        the whole log, without the replay's cost growing with the evening."""
        event_id = self.store.append(event)
        self._step({**json.loads(json.dumps(event)), "id": event_id})  # as the log reads back
        return self.log[-1]

    def observe(self, state: dict, unsure: Any = None) -> dict | None:
        """A settled camera state, and the dice in it the camera is not sure of (building,
        player or None, value). Nothing is recorded when nothing changed."""
        seen = BoardState.from_json(state, "$.state", strict=False)
        doubts = parse_unsure(unsure, seen.players)
        if not self.referee.news(seen):
            return None
        event = {"event": "observe", "state": seen.to_json()}
        return self._record({**event, **({"unsure": doubts} if doubts else {})})

    def take_as_seen(self, state: dict | None = None) -> dict:
        """The one tap when the referee cannot explain the table: the board is what the camera
        sees now (the board it could not explain, unless another is given)."""
        if state is None:
            if self.referee.lost is None:
                raise InputError(
                    "session.not-lost", "the referee follows the table; nothing to take"
                )
            state = self.referee.lost.to_json()
        BoardState.from_json(state, "$.state", strict=False)
        return self._record({"event": "take-as-seen", "state": state})

    def place(self, move: dict, roll: list[int] | None = None) -> dict:
        """A move entered by hand (camera off)."""
        player = self.game.current_player
        if player is None:
            raise InputError("session.round-over", "the round is over: clear the buildings")
        parse_move(move, NO_ROLL if roll is None else roll, self.game.state.players)  # validate
        if roll is not None and len(roll) != self.game.state.supply.get(player, 0):
            raise InputError(
                "value.range",
                f"{player} rolls {self.game.state.supply.get(player, 0)} dice, not {len(roll)}",
                "$.roll",
            )
        return self._record(
            {"event": "place", "move": move, **({"roll": roll} if roll is not None else {})}
        )

    def correct(self, state: dict, why: str = "corrected by hand") -> dict:
        short_text(why, "$.why")
        BoardState.from_json(state, "$.state", strict=False)
        return self._record({"event": "correct", "state": state, "why": why})

    def read_anew(self, die: Any, now: Any) -> dict:
        """A misread die put right by a tap: the accepted board with that die read anew
        (`BoardState.read_anew`), recorded as a correction. `die`: {building, player, value,
        and in the Forum its column}; `now`: {player, value}."""
        expect_object(die, "$.die", ("building", "player", "value", "column"))
        expect_object(now, "$.now", ("player", "value"))
        building = die.get("building")
        if building not in ("templum", "senatus", "castrum", "forum"):
            raise InputError("value.building", "a die is read anew in a building", "$.die.building")
        players = self.game.state.players
        old = (
            expect_player(die.get("player"), "$.die.player", players),
            expect_die(die.get("value"), "$.die.value"),
        )
        new = (
            expect_player(now.get("player"), "$.now.player", players),
            expect_die(now.get("value"), "$.now.value"),
        )
        column = die.get("column")
        if column is not None:
            column = expect_int(column, "$.die.column", 0, 6, "column")
        try:
            board = self.game.state.read_anew(building, old, new, column)
        except ValueError as exc:
            raise InputError("state.no-such-die", str(exc), "$.die") from None
        # The dice in front of the players are recounted from the board (`Game.correct`).
        state = {k: v for k, v in board.to_json().items() if k != "supply"}
        return self.correct(state, f"a die read as {old[1]} is a {new[1]}")

    def accept(self, state: dict | None = None) -> dict:
        """The players overrule the referee: keep the flagged placement (or the given board)."""
        if state is None:
            if self.flag is None:
                raise InputError("session.no-flag", "there is no flagged placement to accept")
            state = self.flag["state"]
        BoardState.from_json(state, "$.state", strict=False)
        return self._record({"event": "accept", "state": state})

    def pick(self, player: str, kind: str, tile: Any) -> dict:
        """A tile taken after a round (None: nothing left to take), in the pick order."""
        self._known(player)
        if kind not in KINDS:
            raise InputError("value.kind", f"unknown tile kind {kind!r}", "$.kind")
        if not self.round_results:
            raise InputError("session.no-round", "tiles are picked after a round is scored")
        order = TileRecord.pick_order(self.round_results[-1])
        self.tiles.check_pick(len(self.round_results), player, kind, tile, order)
        return self._record({"event": "pick", "player": player, "kind": kind, "tile": tile})

    def lay_out(self, provinces: Any, patricians: Any) -> dict:
        """The province and patrician tiles laid out for the round being played."""
        if self.game.over:
            raise InputError("session.over", "the game is over")
        self.tiles.check_lay_out(provinces, patricians)
        event = {"event": "lay-out", "provinces": provinces, "patricians": patricians}
        return self._record(event)

    def spend_repete(self, player: str) -> dict:
        """A Repete chip spent on a re-roll (the camera does not see rolls)."""
        self._known(player)
        self.tiles.check_spend(player, self.game.holdings[player].repete)
        return self._record({"event": "repete", "player": player})

    def _known(self, player: Any) -> None:
        if player not in self.seating:
            raise InputError("state.unknown-player", f"{player} is not in this game", "$.player")

    def next_round(self) -> dict:
        """Score the finished round and start the next (what clearing the table does on camera)."""
        if self.game.current_player is not None or self.game.over:
            raise InputError("session.round-not-over", "the round is still being played")
        return self._record({"event": "next-round"})

    def undo(self) -> None:
        self.store.append({"event": "undo"})
        self.replay()

    def redo(self) -> None:
        self.store.append({"event": "redo"})
        self.replay()

    # ------------------------------------------------------------------ results
    def inventory(self) -> dict:
        """The `alea final` input so far: tiles from the picks, chips earned less spent."""
        return self.tiles.inventory({p: self.game.holdings[p].repete for p in self.seating})

    def record(self) -> dict:
        """The whole game as the final score needs it: each round's tiles laid out, result,
        tiles taken and chips, then the inventory derived from them."""
        rounds = []
        for n, result in enumerate(self.round_results, start=1):
            rounds.append(
                {
                    "round": n,
                    "laid_out": self.tiles.laid_out.get(n),
                    "result": result,
                    "picks": [p for p in self.tiles.picks if p["round"] == n],
                    "chips_earned": result["repete"],
                }
            )
        return {
            "players": self.seating,
            "over": self.game.over,
            "rounds": rounds,
            "chips_spent": dict(self.tiles.spent),
            "inventory": self.inventory(),
        }

    def inventory_chips(self) -> dict[str, int]:
        return {p["player"]: p["repete"] for p in self.inventory()["players"]}

    def next_pick(self) -> dict | None:
        """After a scored round: who takes what next, and what is there to take."""
        if not self.round_results:
            return None
        n = len(self.round_results)
        due = self.tiles.due(n, TileRecord.pick_order(self.round_results[-1]))
        if due is None:
            return None
        done, player, kind = due
        return {
            "index": done,
            "player": player,
            "kind": kind,
            "choices": self.tiles.choices(n, kind),
        }

    def summary(self) -> dict:
        g = self.game
        return {
            "players": self.seating,
            "round": min(g.round_no, g.rounds),
            "rounds": g.rounds,
            "over": g.over,
            "turn": g.turn_no,
            "current_player": g.current_player,
            "state": g.state.to_json(),
            "log": self.log[-20:],
            "picks": self.tiles.picks,
            "chips": self.inventory_chips(),
            "laid_out": self.tiles.laid_out.get(g.round_no),
            "next_pick": self.next_pick(),
            "flag": self.flag,
            # The board the referee could not explain, and why: the page offers to take it.
            "unclear": None
            if self.referee.lost is None
            else {
                "state": self.referee.lost.to_json(),
                "notes": next(
                    (
                        e.get("notes", [])
                        for e in reversed(self.log)
                        if e.get("kind") in ("unclear", "unsure")
                    ),
                    [],
                ),
            },
            "last_round": (
                {
                    "number": len(self.round_results),
                    "result": self.round_results[-1],
                    "order": TileRecord.pick_order(self.round_results[-1]),
                }
                if self.round_results
                else None
            ),
        }
