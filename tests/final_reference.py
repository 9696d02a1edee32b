"""An exhaustive reference for end-of-game scoring, written apart from scanner.rules.final.

It tries every way to put every patrician somewhere (or nowhere), keeps the legal ones and scores
each from first principles, straight from CONTRACT.md `alea final`. Slow on purpose: only for the
small inventories the property tests generate. Works on the contract's JSON for one player.
"""

from __future__ import annotations


def _slots(player: dict) -> list[tuple]:
    out = []
    for p in player.get("provinces", []):
        out.append(("joker",) if p["color"] == "joker" else ("tile", p["color"], p["value"]))
    for c in player.get("senate", []):
        if isinstance(c, dict) and c["card"] == "XII":
            out.append(("border", *c["colors"]))
        elif c == "XIII":
            out.append(("free",))
    return out


def _accepts(slot: tuple, color: str) -> bool:
    if slot[0] == "tile":
        return slot[1] == color
    if slot[0] == "border":
        return color in slot[1:]
    return True


def _legal(slot: tuple, group: list[tuple], offspring_card: bool) -> bool:
    """group: patricians (color, sex, value) on this slot."""
    if len(group) <= 1:
        return True
    if len(group) == 2:
        (c1, s1, _), (c2, s2, _) = group
        return {s1, s2} == {"f", "m"} and c1 == c2
    if len(group) == 3 and offspring_card:
        for i in range(3):
            couple = [g for j, g in enumerate(group) if j != i]
            extra = group[i]
            if not _legal(slot, couple, False):
                continue
            if slot[0] == "border" or extra[0] == couple[0][0]:
                return True
    return False


def score_contents(player: dict, slots: list[tuple], contents: list[list[tuple]]) -> tuple:
    """(total, unplaced value) of one legal assignment, everything counted from scratch."""
    cards = [c if isinstance(c, str) else c["card"] for c in player.get("senate", [])]
    placed = [p for g in contents for p in g]
    couples = sum(1 for g in contents if len(g) >= 2)
    total = 0
    colors = set()
    occupied_tiles = 0
    for slot, g in zip(slots, contents, strict=True):
        if slot[0] == "tile":
            total += slot[2] if g else slot[2] - 1
            colors.add(slot[1])
            occupied_tiles += bool(g)
        elif slot[0] == "joker":
            colors.add(g[0][0] if g else "grey")
            occupied_tiles += bool(g)
        elif slot[0] == "border":
            total += 3 if len(g) >= 2 else 0
            colors |= {slot[1], slot[2]}
        else:
            total += 1 if g else 0
            colors.add(g[0][0] if g else "grey")
    total += sum(p[2] for p in placed)
    fortuna = player.get("fortuna", [])
    per_card = {
        "I": 1 + len(slots) // 2,
        "II": len(placed) // 2,
        "III": 1 + len(cards),
        "IV": 1 + 2 * (len(fortuna) // 3),
        "V": 1 + couples,
        "VI": len({p[0] for p in placed}),
        "VII": len(colors),
        "VIII": occupied_tiles,
        "IX": sum(p[1] == "f" for p in placed),
        "X": sum(p[1] == "m" for p in placed),
    }
    total += sum(per_card.get(c, 0) for c in cards)
    total += sum(fortuna) + player.get("repete", 0) // 2
    unplaced = sum(p[2] for p in _patricians(player)) - sum(p[2] for p in placed)
    return total, unplaced


def _patricians(player: dict) -> list[tuple]:
    return [(p["color"], p["sex"], p["value"]) for p in player.get("patricians", [])]


def legal_contents(player: dict, slots: list[tuple], contents: list[list[tuple]]) -> bool:
    offspring = "XI" in player.get("senate", [])
    return all(
        all(_accepts(s, p[0]) for p in g) and _legal(s, g, offspring)
        for s, g in zip(slots, contents, strict=True)
    )


def reference_best(player: dict) -> tuple[int, int]:
    """The best (total, unplaced value) over every legal assignment, by brute force."""
    slots = _slots(player)
    pats = _patricians(player)
    cap = 3 if "XI" in player.get("senate", []) else 2
    contents: list[list[tuple]] = [[] for _ in slots]
    best = None

    def place(i: int) -> None:
        nonlocal best
        if i == len(pats):
            if legal_contents(player, slots, contents):
                got = score_contents(player, slots, contents)
                best = got if best is None or got > best else best
            return
        place(i + 1)  # unplaced
        for s, g in zip(slots, contents, strict=True):
            if len(g) < cap and _accepts(s, pats[i][0]):
                g.append(pats[i])
                place(i + 1)
                g.pop()

    place(0)
    return best  # type: ignore[return-value]
