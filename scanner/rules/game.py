"""A whole game: setup by player count, turns and rolls, Repete re-rolls, the round's end, the
picks after scoring, the first player rotating, and the tile supplies (RULES.md `setup.*`,
`play.*`, `score.*`).

`Game` is a state machine driven from outside: a simulator feeds it random rolls and choices, the
referee feeds it what the camera saw. Both get turn order and round flow from here, never from a
second copy. Every step is appended to `events` (plain JSON), which is the game's record.

>>> g = Game(["grey", "blue"], seed=1)
>>> g.current_player, g.round_no, g.state.forum_columns
('grey', 1, 4)
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, TypedDict, TypeVar

from scanner.inputs.fields import parse_seating
from scanner.rules import components
from scanner.rules.components import (
    DICE_PER_PLAYER,
    PatricianTile,
    ProvinceTile,
    SenateCardJSON,
)
from scanner.rules.move import Move
from scanner.rules.placement import Illegal, Verdict, check
from scanner.rules.round import RoundResult, score_round
from scanner.rules.state import BoardState

T = TypeVar("T")  # a tile or card, as the component table writes it


@dataclass
class Holdings:
    """What a player has in front of him between rounds; at the end, the `final` input."""

    provinces: list[ProvinceTile] = field(default_factory=list)
    patricians: list[PatricianTile] = field(default_factory=list)
    senate: list[SenateCardJSON] = field(default_factory=list)
    fortuna: list[int] = field(default_factory=list)
    repete: int = 0


class Snapshot(TypedDict):
    """What one placement changes (`Game.snapshot`): the board, the turn (turn number, seat,
    whether the round is ending, the roll) and the Fortuna tiles drawn, left and returned."""

    state: BoardState
    turn: tuple[int, int, bool, tuple[int, ...] | None]
    fortuna_drawn: dict[str, list[int]]
    fortuna_pile: list[int]
    fortuna_returned: list[int]


class Chooser:
    """The decisions the rules leave to players. The default chooses at random (simulation);
    the referee and UI substitute the players' real choices."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def pick(self, player: str, kind: str, offered: Sequence[object]) -> int:
        """Index of the tile `player` takes among `offered` (kind: province, patrician, senate)."""
        return self.rng.randrange(len(offered))

    def keep_fortuna(self, player: str, drawn: Sequence[int], keep: int) -> list[int]:
        """Indexes of the Fortuna tiles kept face up: a sensible player keeps the best."""
        return sorted(range(len(drawn)), key=lambda i: drawn[i], reverse=True)[:keep]

    def reroll(self, player: str, roll: tuple[int, ...], chips: int) -> tuple[int, ...] | None:
        """Dice values to re-roll by spending one Repete chip, or None to stop."""
        if chips and self.rng.random() < 0.15:
            return tuple(v for v in roll if self.rng.random() < 0.5) or None
        return None


class Game:
    """One game in progress. Call `roll`, optionally `reroll`, then `place`, while
    `current_player` is not None; then `end_round`, until `over`."""

    def __init__(
        self,
        seating: Sequence[str],
        seed: float | None = None,
        chooser: Chooser | None = None,
        deal: bool = True,
    ) -> None:
        """`seed`: an int, or the float a seeded generator drew (`play_random_game`).
        `deal=False`: the table deals, not this model. The tiles laid out, the Fortuna
        tiles drawn and the tiles taken are the players' to record (a session does), so none
        is drawn here and the holdings keep only Repete chips."""
        n = len(seating)
        parse_seating(list(seating))
        self.seating = tuple(seating)
        self.deal = deal
        self.rng = random.Random(seed)
        self.chooser = chooser or Chooser(random.Random(self.rng.random()))
        self.rounds = components.rounds(n)
        self.holdings = {p: Holdings() for p in seating}
        self.fortuna_pile = self._shuffled(components.fortuna_tiles() if n >= 4 else [])
        self.fortuna_returned: list[int] = []
        self.senate_pile = self._shuffled(components.senate_deck(n))
        self.province_pile = self._shuffled(components.provinces())
        self.patrician_pile = self._shuffled(components.patricians())
        self.events: list[dict[str, Any]] = []
        self.round_no = 0
        self.first = 0
        self._log("setup", players=list(seating), rounds=self.rounds, seed=seed)
        self._start_round()

    # ------------------------------------------------------------------ round flow
    def _shuffled(self, items: list[T]) -> list[T]:
        self.rng.shuffle(items)
        return items

    def _start_round(self) -> None:
        self.round_no += 1
        order = self.seating[self.first :] + self.seating[: self.first]
        self.state = BoardState(players=order, supply={p: DICE_PER_PLAYER for p in order})
        self.turn_no, self.pos, self.ending = 1, 0, False
        self.roll_: tuple[int, ...] | None = None
        self.fortuna_drawn: dict[str, list[int]] = {}
        n = len(order)
        shown = n if self.deal else 0
        self.provinces_shown = [
            self.province_pile.pop() for _ in range(shown) if self.province_pile
        ]
        columns = self.state.forum_columns if self.deal else 0
        self.patricians_shown = [
            self.patrician_pile.pop() for _ in range(columns) if self.patrician_pile
        ]
        self._log(
            "round",
            round=self.round_no,
            first=order[0],
            provinces=list(self.provinces_shown),  # as laid out: the picks take from the lists
            patricians=list(self.patricians_shown),
        )
        self._advance_to_player_with_dice()

    def _advance_to_player_with_dice(self) -> None:
        """play.turn / play.round-end: skip players without dice; after the last seat, a new
        turn starts, unless someone placed his last die during this one."""
        order = self.state.players
        while True:
            if self.pos >= len(order):
                if self.ending:
                    return
                self.turn_no, self.pos = self.turn_no + 1, 0
            if self.state.supply.get(order[self.pos], 0):
                return
            self.pos += 1

    @property
    def current_player(self) -> str | None:
        """Whose placement is awaited, or None when the round is over."""
        order = self.state.players
        return order[self.pos] if self.pos < len(order) else None

    @property
    def over(self) -> bool:
        return self.round_no > self.rounds

    def out_of_turn(self, player: str) -> Illegal | None:
        """play.turn: why `player` may not place now, or None when it is his turn."""
        current = self.current_player
        if player == current:
            return None
        return Illegal(
            "play.turn",
            f"It is {current}'s turn, not {player}'s.",
            player=player,
            current=current,
        )

    # ------------------------------------------------------------------ a player's turn
    def roll(self, values: Sequence[int] | None = None) -> tuple[int, ...]:
        """The current player rolls all dice in front of him (`values` when read off a table)."""
        player = self._require_player()
        n = self.state.supply[player]
        if values is None:
            values = [self.rng.randint(1, 6) for _ in range(n)]
        if len(values) != n:
            raise ValueError(f"{player} rolls {n} dice, not {len(values)}")
        self.roll_ = tuple(values)
        self._log("roll", player=player, dice=list(self.roll_))
        return self.roll_

    def reroll(self, dice: Sequence[int], values: Sequence[int] | None = None) -> tuple[int, ...]:
        """play.repete: spend one chip to re-roll `dice` (values taken from the current roll)."""
        player = self._require_player()
        if self.roll_ is None:
            raise ValueError("roll before re-rolling")
        if self.holdings[player].repete < 1:
            raise ValueError(f"{player} has no Repete chip")
        kept = list(self.roll_)
        for v in dice:
            kept.remove(v)  # ValueError when the die is not in the roll
        if values is None:
            values = [self.rng.randint(1, 6) for _ in dice]
        self.holdings[player].repete -= 1
        self.roll_ = tuple(kept) + tuple(values)
        self._log("repete", player=player, rerolled=list(dice), dice=list(self.roll_))
        return self.roll_

    def place(self, move: Move, verdict: Verdict | None = None) -> Verdict:
        """Judge and, when legal, apply the current player's placement against his roll.

        When no roll was recorded (a camera sees the dice land, not the roll), the move is
        judged against its own dice, as CONTRACT `check` does without a roll. A caller that
        judged the move itself from more evidence (the referee) passes its `verdict`."""
        player = self._require_player()
        if move.player != player:
            raise ValueError(f"it is {player}'s turn, not {move.player}'s")
        if verdict is None:
            verdict = check(self.state, move, self.roll_)
        self._log(
            "place",
            move=move.to_json(),
            legal=verdict.legal,
            rule=verdict.rule,
            pushed_out=[{"player": d.player, "value": d.value} for d in verdict.pushed_out],
        )
        if not verdict.legal:
            return verdict
        self.state = verdict.after
        if move.building == "templum" and self.deal:
            self.fortuna_drawn.setdefault(player, []).extend(self._draw_fortuna(len(move.dice)))
        if not self.state.supply.get(player):
            self.ending = True
        self.roll_ = None
        self.pos += 1
        self._advance_to_player_with_dice()
        return verdict

    def correct(self, state: BoardState, why: str) -> None:
        """Replace the board by what the players say it is (a misread die, a move entered by
        hand); turn order is kept. Dice in front of players are recounted from the board."""
        if state.players != self.state.players:
            raise ValueError("a correction cannot change the players or their order")
        supply = {
            p: DICE_PER_PLAYER - state.placed(p) - state.latrina.get(p, 0) for p in state.players
        }
        if any(n < 0 for n in supply.values()):
            raise ValueError(f"a correction cannot give a player more than {DICE_PER_PLAYER} dice")
        self.state = state.with_(supply={p: n for p, n in supply.items() if n})
        self._log("correct", state=self.state.to_json(), why=why)
        if self.current_player is not None and not self.state.supply.get(self.current_player):
            self.pos += 1
            self._advance_to_player_with_dice()

    def snapshot(self) -> Snapshot:
        """Everything one placement changes, to put a placement the players took back off the
        table again (`restore`). Holdings, piles and the record are not in it: within a round
        only a Templum placement touches a pile (its Fortuna draw, which `restore` returns)."""
        return {
            "state": self.state,
            "turn": (self.turn_no, self.pos, self.ending, self.roll_),
            "fortuna_drawn": {p: list(t) for p, t in self.fortuna_drawn.items()},
            "fortuna_pile": list(self.fortuna_pile),
            "fortuna_returned": list(self.fortuna_returned),
        }

    def restore(self, snapshot: Snapshot, why: str) -> None:
        """Back to a `snapshot` taken earlier in this round (the turn passes back with it)."""
        self.state = snapshot["state"]
        self.turn_no, self.pos, self.ending, self.roll_ = snapshot["turn"]
        self.fortuna_drawn = {p: list(t) for p, t in snapshot["fortuna_drawn"].items()}
        self.fortuna_pile = list(snapshot["fortuna_pile"])
        self.fortuna_returned = list(snapshot["fortuna_returned"])
        self._log("take-back", state=self.state.to_json(), why=why)

    def _require_player(self) -> str:
        player = self.current_player
        if player is None:
            raise ValueError("the round is over: score it with end_round()")
        return player

    def _draw_fortuna(self, k: int) -> list[int]:
        """score.fortuna-pile: returned tiles are reshuffled only when the pile is empty."""
        drawn = []
        for _ in range(k):
            if not self.fortuna_pile:
                self.fortuna_pile = self._shuffled(self.fortuna_returned)
                self.fortuna_returned = []
            if self.fortuna_pile:
                drawn.append(self.fortuna_pile.pop())
        return drawn

    # ------------------------------------------------------------------ scoring
    def end_round(self) -> RoundResult:
        """Score the round, hand out tiles in pick order, clear the buildings, next round."""
        if self.current_player is not None:
            raise ValueError("the round is still being played")
        result = score_round(self.state)
        self._log(
            "scored", round=self.round_no, state=self.state.to_json(), result=result.to_json()
        )

        if self.deal:
            self._hand_out_tiles(result)
        for player, chips in result.repete.items():
            self.holdings[player].repete += chips

        self.first = (self.first + 1) % len(self.seating)  # play.first-player
        if self.round_no < self.rounds:
            self._start_round()
        else:
            self.round_no += 1
            self._log("end", inventory=self.inventory())
        return result

    def _hand_out_tiles(self, result: RoundResult) -> None:
        """score.*: Fortuna tiles kept, Senate cards, provinces and patricians in pick order."""
        if sum(len(d) for d in self.state.templum.values()) == 1:
            (lone,) = self.state.templum
            self.fortuna_drawn[lone].extend(self._draw_fortuna(1))
        for player, keep in result.templum.items():
            drawn = self.fortuna_drawn.get(player, [])
            kept = self.chooser.keep_fortuna(player, drawn, keep)
            self.holdings[player].fortuna += [drawn[i] for i in kept]
            self.fortuna_returned += [t for i, t in enumerate(drawn) if i not in kept]
            self._log("fortuna", player=player, kept=[drawn[i] for i in kept])
        self.fortuna_drawn = {}

        self._senate_cards(result.senatus)
        for player in result.castrum:
            self._take(player, "province", self.provinces_shown, self.holdings[player].provinces)
        for player in result.forum:
            self._take(player, "patrician", self.patricians_shown, self.holdings[player].patricians)

    def _take(self, player: str, kind: str, offered: list[T], into: list[T]) -> None:
        if not offered:
            return
        tile = offered.pop(self.chooser.pick(player, kind, offered))
        into.append(tile)
        self._log("pick", player=player, kind=kind, tile=tile)

    def _senate_cards(self, takers: Sequence[str]) -> None:
        """score.senatus: the first draws three and keeps one, passing the rest down the line;
        the card nobody keeps goes back under the stack."""
        if not takers:
            return
        hand = [self.senate_pile.pop() for _ in range(3) if self.senate_pile]
        for player in takers:
            if not hand:
                break
            self._take(player, "senate", hand, self.holdings[player].senate)
        self.senate_pile[:0] = hand  # under the stack; pop() draws from the top

    def inventory(self) -> dict[str, Any]:
        """Every player's holdings in the shape `alea final` reads."""
        return {
            "player_count": len(self.seating),
            "players": [
                {
                    "player": p,
                    "provinces": h.provinces,
                    "patricians": h.patricians,
                    "senate": h.senate,
                    "fortuna": h.fortuna,
                    "repete": h.repete,
                }
                for p, h in self.holdings.items()
            ],
        }

    def _log(self, event: str, **data: object) -> None:
        self.events.append({"event": event, **data})
