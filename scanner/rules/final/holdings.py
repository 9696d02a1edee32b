"""What a player holds at the end of the game, read from JSON and checked against the box.

The optimiser trusts these value types completely, so every impossible holding is refused here,
with the JSON path of the first bad field (CONTRACT.md `alea final`). A tile exists once in the box
(`final.tiles`), so a second "red woman III" is an error whether it sits with the same player or
another one.

>>> h = parse_final({"players": [{"player": "grey",
...     "provinces": [{"color": "red", "value": 3}],
...     "patricians": [{"color": "red", "sex": "f", "value": 2}],
...     "senate": ["I", {"card": "XII", "colors": ["red", "green"]}]}]})
>>> h.players[0].patricians[0]
Patrician(color='red', sex='f', value=2)
>>> str(h.players[0].senate[1])
'border red/green'
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from scanner.errors import InputError
from scanner.inputs.fields import is_int
from scanner.rules import components

JOKER = "joker"
SEXES = {"f": "woman", "m": "man"}
SINGLE_CARDS = components.SENATE_SINGLES  # "I" .. "XI": each exists once
BORDER, FREE = "XII", "XIII"
MAX_BORDER_CARDS = len(components.BORDER_PAIRS)
MAX_FREE_CARDS: int = components.table()["senate_cards"]["free"]
ROMAN = {0: "0", 1: "I", 2: "II", 3: "III", 4: "IV"}


@dataclass(frozen=True, order=True)
class Province:
    """A province tile: a tile colour and value 1–4, or the joker (colour `joker`, value 0)."""

    color: str
    value: int

    @property
    def is_joker(self) -> bool:
        return self.color == JOKER

    def __str__(self) -> str:
        return "joker" if self.is_joker else f"{self.color} {ROMAN[self.value]}"

    def to_json(self) -> dict[str, Any]:
        return {"color": self.color, "value": self.value}


@dataclass(frozen=True, order=True)
class Patrician:
    """A patrician tile: colour, sex (`f` woman, `m` man) and value 1–3; each exists once."""

    color: str
    sex: str
    value: int

    def __str__(self) -> str:
        return f"{self.color} {SEXES[self.sex]} {ROMAN[self.value]}"

    def to_json(self) -> dict[str, Any]:
        return {"color": self.color, "sex": self.sex, "value": self.value}


@dataclass(frozen=True)
class BorderCard:
    """Senate card XII, a border province of two tile colours (order as written on the input)."""

    colors: tuple[str, str]

    @property
    def pair(self) -> frozenset[str]:
        return frozenset(self.colors)

    def __str__(self) -> str:
        return f"border {self.colors[0]}/{self.colors[1]}"

    def to_json(self) -> dict[str, Any]:
        return {"card": BORDER, "colors": list(self.colors)}


SenateCard = str | BorderCard  # "I".."XI", "XIII", or a BorderCard


@dataclass(frozen=True)
class Holdings:
    """One player's tiles, cards, Fortuna tiles and Repete! chips at the end of the game."""

    player: str
    provinces: tuple[Province, ...] = ()
    patricians: tuple[Patrician, ...] = ()
    senate: tuple[SenateCard, ...] = ()
    fortuna: tuple[int, ...] = ()
    repete: int = 0

    @property
    def cards(self) -> frozenset[str]:
        """The single cards (I–XI) held."""
        return frozenset(c for c in self.senate if isinstance(c, str) and c != FREE)

    @property
    def borders(self) -> tuple[BorderCard, ...]:
        return tuple(c for c in self.senate if isinstance(c, BorderCard))


@dataclass(frozen=True)
class FinalInput:
    """The whole `alea final` input: players in input order and the optional player count."""

    players: tuple[Holdings, ...]
    player_count: int | None = None


# --- parsing --------------------------------------------------------------------------------------


def _want(cond: bool, code: str, message: str, path: str) -> None:
    if not cond:
        raise InputError(code, message, path)


def _object(obj: object, message: str, path: str) -> dict[str, Any]:
    """`obj` when it is a JSON object, else InputError `schema.type` with `message` (which
    says what the object holds). Its values are JSON as given: each field is checked where it
    is read."""
    if not isinstance(obj, dict):
        raise InputError("schema.type", message, path)
    return obj


def _list(obj: dict[str, Any], key: str, path: str) -> list[Any]:
    value = obj.get(key, [])
    if not isinstance(value, list):
        raise InputError("schema.type", f"`{key}` must be a list", f"{path}.{key}")
    return value


def _int_field(obj: dict[str, Any], key: str, path: str, code: str, allowed: range) -> int:
    _want(key in obj, "schema.missing", f"missing `{key}`", path)
    value = obj[key]
    where = f"{path}.{key}"
    if not is_int(value):
        raise InputError(code, f"{key} must be an integer, not {value!r}", where)
    _want(
        value in allowed,
        code,
        f"{key} {value} is not between {allowed[0]} and {allowed[-1]}",
        where,
    )
    return value


def _tile_color(value: object, path: str) -> str:
    if not (isinstance(value, str) and value in components.TILE_COLORS):
        raise InputError(
            "value.color",
            f"unknown tile colour {value!r} (expected one of {', '.join(components.TILE_COLORS)})",
            path,
        )
    return value


def _province(raw: object, path: str) -> Province:
    obj = _object(raw, "a province is an object {color, value}", path)
    color = obj.get("color")
    if color == JOKER:
        _want(
            obj.get("value") == 0 and is_int(obj.get("value")),
            "value.joker",
            f"the joker province is worth 0, not {obj.get('value')!r}",
            f"{path}.value",
        )
        return Province(JOKER, 0)
    color = _tile_color(color, f"{path}.color")
    return Province(color, _int_field(obj, "value", path, "value.province", range(1, 5)))


def _patrician(raw: object, path: str) -> Patrician:
    obj = _object(raw, "a patrician is an object {color, sex, value}", path)
    color = _tile_color(obj.get("color"), f"{path}.color")
    sex = obj.get("sex")
    if not (isinstance(sex, str) and sex in SEXES):
        raise InputError("sex.unknown", f"sex must be 'f' or 'm', not {sex!r}", f"{path}.sex")
    return Patrician(color, sex, _int_field(obj, "value", path, "value.patrician", range(1, 4)))


def _card(obj: object, path: str) -> SenateCard:
    name = obj.get("card") if isinstance(obj, dict) else obj
    where = f"{path}.card" if isinstance(obj, dict) else path
    known = (*SINGLE_CARDS, BORDER, FREE)
    if not (isinstance(name, str) and name in known):
        raise InputError(
            "card.unknown", f"unknown Senate card {name!r} (expected I to XIII)", where
        )
    if name != BORDER:
        return name
    colors = obj.get("colors") if isinstance(obj, dict) else None
    if not (isinstance(colors, list) and len(colors) == 2):
        raise InputError(
            "card.border", "a border province card needs `colors`: two tile colours", path
        )
    a = _tile_color(colors[0], f"{path}.colors[0]")
    b = _tile_color(colors[1], f"{path}.colors[1]")
    _want(
        a != b,
        "card.border",
        f"a border province joins two different colours, not {a}/{a}",
        f"{path}.colors[1]",
    )
    return BorderCard((a, b))


def _holdings(raw: object, path: str) -> Holdings:
    obj = _object(raw, "a player is an object", path)
    player = obj.get("player")
    if not (isinstance(player, str) and player in components.PLAYER_COLORS):
        raise InputError(
            "value.color",
            f"unknown player colour {player!r} "
            f"(expected one of {', '.join(components.PLAYER_COLORS)})",
            f"{path}.player",
        )
    provinces = [
        _province(p, f"{path}.provinces[{i}]") for i, p in enumerate(_list(obj, "provinces", path))
    ]
    patricians = [
        _patrician(p, f"{path}.patricians[{i}]")
        for i, p in enumerate(_list(obj, "patricians", path))
    ]
    senate = [_card(c, f"{path}.senate[{i}]") for i, c in enumerate(_list(obj, "senate", path))]
    fortuna = []
    for i, f in enumerate(_list(obj, "fortuna", path)):
        where = f"{path}.fortuna[{i}]"
        _want(
            is_int(f) and 1 <= f <= 3,
            "value.fortuna",
            f"a Fortuna tile shows 1, 2 or 3, not {f!r}",
            where,
        )
        fortuna.append(f)
    repete = obj.get("repete", 0)
    _want(
        is_int(repete) and repete >= 0,
        "value.repete",
        f"Repete! chips must be a whole number from 0, not {repete!r}",
        f"{path}.repete",
    )
    return Holdings(
        player, tuple(provinces), tuple(patricians), tuple(senate), tuple(fortuna), repete
    )


def _check_box(players: list[Holdings], player_count: int | None) -> None:
    """Refuse more of any component than the box holds, counted over all players (final.tiles)."""
    box_provinces = Counter(Province(p["color"], p["value"]) for p in components.provinces())
    box_patricians = Counter(
        Patrician(p["color"], p["sex"], p["value"]) for p in components.patricians()
    )
    box_fortuna = Counter({int(k): v for k, v in components.table()["fortuna"].items()})
    # Every component by its identity: a tile, a border card by its pair, a single card.
    seen: Counter[Province | Patrician | frozenset[str] | str] = Counter()
    borders = 0
    free = 0
    fortuna: Counter[int] = Counter()
    for n, h in enumerate(players):
        base = f"$.players[{n}]"
        for i, province in enumerate(h.provinces):
            seen[province] += 1
            _want(
                seen[province] <= box_provinces[province],
                "tile.count",
                f"the box has only one {province} province",
                f"{base}.provinces[{i}]",
            )
        for i, patrician in enumerate(h.patricians):
            seen[patrician] += 1
            _want(
                seen[patrician] <= box_patricians[patrician],
                "tile.count",
                f"the box has only one {patrician}",
                f"{base}.patricians[{i}]",
            )
        for i, c in enumerate(h.senate):
            where = f"{base}.senate[{i}]"
            if isinstance(c, BorderCard):
                seen[c.pair] += 1
                borders += 1
                _want(seen[c.pair] == 1, "tile.count", f"there is only one {c} card", where)
                _want(
                    borders <= MAX_BORDER_CARDS,
                    "tile.count",
                    f"the box has only {MAX_BORDER_CARDS} border province cards",
                    where,
                )
            elif c == FREE:
                free += 1
                _want(
                    free <= MAX_FREE_CARDS,
                    "tile.count",
                    f"the box has only {MAX_FREE_CARDS} free province cards",
                    where,
                )
            else:
                seen[c] += 1
                _want(seen[c] == 1, "tile.count", f"there is only one Senate card {c}", where)
                _want(
                    not (c == "IV" and player_count is not None and player_count <= 3),
                    "card.removed",
                    f"card IV is removed from the game with {player_count} players",
                    where,
                )
        for i, f in enumerate(h.fortuna):
            fortuna[f] += 1
            _want(
                fortuna[f] <= box_fortuna[f],
                "tile.count",
                f"the box has only {box_fortuna[f]} Fortuna tiles showing {f}",
                f"{base}.fortuna[{i}]",
            )


def parse_final(raw: object) -> FinalInput:
    """Read and check an `alea final` input; raise InputError at the first bad field."""
    data = _object(raw, "the input must be an object with `players`", "$")
    player_count = data.get("player_count")
    if player_count is not None:
        _want(
            is_int(player_count)
            and components.MIN_PLAYERS <= player_count <= components.MAX_PLAYERS,
            "value.range",
            f"player_count must be 2 to 5, not {player_count!r}",
            "$.player_count",
        )
    listed = data.get("players")
    if not (isinstance(listed, list) and len(listed) >= 1):
        code = "schema.missing" if listed in (None, []) else "schema.type"
        raise InputError(code, "`players` must be a non-empty list", "$.players")
    if player_count is not None:
        _want(
            len(listed) <= player_count,
            "value.range",
            f"{len(listed)} players listed in a {player_count}-player game",
            "$.players",
        )
    players = [_holdings(p, f"$.players[{i}]") for i, p in enumerate(listed)]
    colors: set[str] = set()
    for i, h in enumerate(players):
        _want(
            h.player not in colors,
            "state.duplicate-player",
            f"player {h.player} is listed twice",
            f"$.players[{i}].player",
        )
        colors.add(h.player)
    _check_box(players, player_count)
    return FinalInput(tuple(players), player_count)
