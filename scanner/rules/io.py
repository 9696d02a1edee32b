"""JSON inputs of the rules commands (`check`, `round`), validated with their JSON paths.

Shared by the CLI and the web API so both reject bad input with the same error object.
"""

from __future__ import annotations

from typing import Any

from scanner.errors import InputError
from scanner.inputs.fields import (
    expect_dice,
    expect_list,
    expect_object,
    expect_player,
    expect_record,
)
from scanner.rules.components import BUILDINGS, DICE_PER_PLAYER
from scanner.rules.move import Move
from scanner.rules.state import BoardState

NO_ROLL: Any = object()  # a move entered without its roll (a camera does not see rolls)


def parse_check(data: Any) -> tuple[BoardState, Move, tuple[int, ...]]:
    """`{"state", "move", "roll"?}` → (state, move, roll); roll defaults to the move's dice."""
    obj = expect_object(data, "$", ("state", "move", "roll"))
    for key in ("state", "move"):
        if key not in obj:
            raise InputError("schema.missing", f"the input needs a '{key}'", "$")
    state = BoardState.from_json(obj["state"], "$.state")
    move, roll = parse_move(obj["move"], obj.get("roll", NO_ROLL), state.players)
    return state, move, roll


def parse_move(
    data: Any, roll: Any, players: tuple[str, ...], path: str = "$"
) -> tuple[Move, tuple[int, ...]]:
    """A move (`path.move`) and its roll (`path.roll`, or NO_ROLL) for a game with `players`.
    The board is not parsed again: a game's board may hold a flagged placement the players kept."""
    move = expect_record(data, f"{path}.move", ("player", "building", "dice"), "the move")
    player = expect_player(move["player"], f"{path}.move.player", players)
    building = move["building"]
    if building not in BUILDINGS:
        raise InputError(
            "value.building",
            f"unknown building {building!r}; buildings are {', '.join(BUILDINGS)}",
            f"{path}.move.building",
        )
    dice = expect_dice(move["dice"], f"{path}.move.dice")
    if len(dice) > DICE_PER_PLAYER:
        raise InputError("value.range", f"{len(dice)} dice; a player has 8", f"{path}.move.dice")
    if roll is NO_ROLL:
        return Move(player, building, dice), dice
    rolled = expect_dice(roll, f"{path}.roll")
    if not 1 <= len(expect_list(roll, f"{path}.roll")) <= DICE_PER_PLAYER:
        raise InputError(
            "value.range", f"a roll has 1 to 8 dice, not {len(rolled)}", f"{path}.roll"
        )
    return Move(player, building, dice), rolled


def parse_round(data: Any) -> BoardState:
    """The board state at the end of a round. The input is the state itself; `{"state": ...}`
    (what `alea scan` and `alea check` print) is accepted too, so their output pipes in."""
    if isinstance(data, dict) and "state" in data and "players" not in data:
        if data["state"] is None:
            raise InputError(
                "state.none", "there is no board state (the scan found no board)", "$.state"
            )
        return BoardState.from_json(data["state"], "$.state")
    return BoardState.from_json(data, "$")


def parse_unsure(
    data: Any, players: tuple[str, ...], path: str = "$.unsure"
) -> list[dict[str, Any]]:
    """The dice a camera reading is not sure of: `[{"building", "player" (or null), "value"}]`."""
    if data is None:
        return []
    if len(expect_list(data, path)) > 5 * DICE_PER_PLAYER:
        raise InputError("value.range", "more unsure dice than there are dice", path)
    out = []
    for i, d in enumerate(data):
        where = f"{path}[{i}]"
        obj = expect_object(d, where, ("building", "player", "value"))
        if obj.get("building") not in BUILDINGS:
            raise InputError("value.building", f"unknown building {obj.get('building')!r}", where)
        player = obj.get("player")
        if player is not None:
            expect_player(player, f"{where}.player", players)
        (value,) = expect_dice([obj.get("value")], f"{where}.value")
        out.append({"building": obj["building"], "player": player, "value": value})
    return out
