"""The provably best assignment of patricians to provinces (final.assignment).

Why this is exact and fast, in four observations:

1. Patricians of one colour can only meet provinces that accept that colour. The only slots shared
   between colours are the joker, the free provinces (any one colour each) and the border cards
   (one of two colours). Once every shared slot is *labelled* with the colour it will hold, the
   colours are independent problems, except for card II (⌊placed/2⌋, which needs only the parity
   of each colour's placed count) and card VII (which is a sum over colours once labels are fixed).
2. Within a colour, province tiles are interchangeable for scoring (occupied scores +1 over empty
   whatever the value, VIII counts tiles), so only *how many* tiles hold a single woman, a single
   man, a couple, or a couple with offspring matters. A small dynamic programme over the slots with
   state (women used, men used, offspring used) finds the best bonus for each count.
3. For given counts of placed women and men, placing the highest-valued ones is best for the total,
   and also the tie-break (`unplaced_value`) cannot do better at that total.
4. The labels of the shared slots are folded into a dynamic programme over colours with state
   (joker used, free provinces used, parity of placed patricians, pending border cards). A border
   card is settled by its two colours in turn; with card XI it may hold one colour's couple and
   the other colour's offspring, which is the only link between two colours' choices.

The objective is lexicographic (total, then unplaced value), encoded as one integer key
`2·total·K + unplaced` (2× so that card II's half points stay integral). The tests compare this
module with an independent exhaustive search on thousands of small inventories.

>>> from scanner.rules.final.holdings import Province, Patrician, Holdings
>>> h = Holdings("grey", provinces=(Province("red", 4),),
...              patricians=(Patrician("red", "f", 3), Patrician("red", "m", 2)))
>>> [(str(f.slot), [str(p) for p in f.occupants]) for f in best_fills(h)]
[('red IV', ['red woman III', 'red man II'])]
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import TypeAlias

from scanner.rules import components
from scanner.rules.final.holdings import Holdings, Patrician
from scanner.rules.final.scoring import Fill, Slot, slots

K = 1024  # weight of the total over the tie-break in the key; unplaced value is at most 72

# A slot's content pattern: (women, men, offspring). OFF is an offspring lodged with another
# colour's couple on a border card.
Pattern = tuple[int, int, int]
E, W, M, C, CO, OFF = (0, 0, 0), (1, 0, 0), (0, 1, 0), (1, 1, 0), (1, 1, 1), (0, 0, 1)
# Pending state of a border card shared by two colours, between its first and second colour.
OPEN, TAKEN, WANT_OFFSPRING, WANT_COUPLE = 0, 1, 2, 3

Kinds = tuple[str, ...]  # the slot kinds one colour fills, e.g. ("tile", "tile", "joker")
# One colour's table: (women, men, offspring) placed -> (best bonus ×2, a pattern per kind).
Table = dict[Pattern, tuple[int, tuple[Pattern, ...]]]
Used = tuple[tuple[int, str], ...]  # (border card index, slot kind) a colour takes
# One way a colour may use a border card: the slot kinds it takes there, and the card's
# pending state after (None: settled).
Option = tuple[Kinds, int | None]


@dataclass(frozen=True)
class _Best:
    key: int
    patterns: tuple[Pattern, ...]  # one pattern per kind, in kinds order
    women: int  # placed women of this colour, offspring included
    men: int
    offspring_women: int
    offspring_men: int


# The DP over colours: its state (joker used, free provinces used, parity of placed
# patricians, pending border cards as sorted (card, state) pairs), and the choices that led to
# a state, one link per colour back to the first (None).
_State = tuple[int, int, int, tuple[tuple[int, int], ...]]
_Chain: TypeAlias = tuple["_Chain", str, Kinds, _Best, Used] | None


class _Optimiser:
    def __init__(self, h: Holdings) -> None:
        cards = h.cards
        self.h = h
        has = {c: int(c in cards) for c in components.SENATE_SINGLES}
        self.ii, self.vii = has["II"], has["VII"]
        self.ix, self.x, self.vi = has["IX"], has["X"], has["VI"]
        self.offspring = bool(has["XI"])
        v, viii = has["V"], has["VIII"]
        grow = (CO,) if self.offspring else ()
        # kind -> (allowed patterns, bonus when occupied, bonus for a couple), all ×2
        self.kinds = {
            "tile": ((E, W, M, C, *grow), 2 * (1 + viii), 2 * v),  # final.province, VIII, V
            "joker": ((W, M, C, *grow), 2 * viii, 2 * v),  # labelled joker: occupied
            "free": ((W, M, C, *grow), 2, 2 * v),  # final.free: labelled, so occupied
            "border": ((E, W, M, C, *grow), 0, 2 * (3 + v)),  # final.border
            "border_couple": ((C,), 0, 2 * (3 + v)),  # couple whose offspring is the other colour
            "foreign_offspring": ((OFF,), 0, 0),
        }
        self.all_slots = slots(h)
        self.tiles: dict[str, list[Slot]] = {}
        self.joker: Slot | None = None
        self.borders: list[Slot] = []
        self.free: list[Slot] = []
        for s in self.all_slots:
            if s.kind == "border":
                self.borders.append(s)
            elif s.kind == "free":
                self.free.append(s)
            elif s.province.is_joker:  # type: ignore[union-attr]
                self.joker = s
            else:
                self.tiles.setdefault(s.province.color, []).append(s)  # type: ignore[union-attr]
        for ts in self.tiles.values():
            ts.sort(key=lambda s: -s.province.value)  # type: ignore[union-attr]
        self.women: dict[str, list[Patrician]] = {}
        self.men: dict[str, list[Patrician]] = {}
        for p in sorted(h.patricians, key=lambda p: -p.value):
            (self.women if p.sex == "f" else self.men).setdefault(p.color, []).append(p)
        self.colors = [c for c in components.TILE_COLORS if c in self.women or c in self.men]
        self.fixed_colors = set(self.tiles) | {
            c for b in self.borders if b.border is not None for c in b.border.colors
        }  # (every border slot has its card)
        self._tables: dict[tuple[str, Kinds], Table] = {}
        self._finals: dict[tuple[str, Kinds], tuple[_Best | None, _Best | None]] = {}

    # --- one colour ----------------------------------------------------------------------------

    def _table(self, color: str, kinds: Kinds) -> Table:
        """Best bonus (×2) per (women, men, offspring) over the slots `kinds`, with patterns."""
        key = (color, kinds)
        if key in self._tables:
            return self._tables[key]
        nw, nm = len(self.women.get(color, ())), len(self.men.get(color, ()))
        table: Table
        if not kinds:
            table = {(0, 0, 0): (0, ())}
        else:
            table = {}
            allowed, occupied, couple = self.kinds[kinds[-1]]
            for (w, m, o), (bonus, pats) in self._table(color, kinds[:-1]).items():
                for p in allowed:
                    w2, m2, o2 = w + p[0], m + p[1], o + p[2]
                    if w2 > nw or m2 > nm or o2 > nw - w2 + nm - m2:
                        continue
                    b = bonus + (occupied if p != E else 0) + (couple if p[0] and p[1] else 0)
                    old = table.get((w2, m2, o2))
                    if old is None or b > old[0]:
                        table[w2, m2, o2] = (b, (*pats, p))
        self._tables[key] = table
        return table

    def _final(self, color: str, kinds: Kinds) -> tuple[_Best | None, _Best | None]:
        """Best key for this colour on `kinds`, for an even and for an odd placed count."""
        key = (color, kinds)
        if key in self._finals:
            return self._finals[key]
        women, men = self.women.get(color, []), self.men.get(color, [])
        wsum = [0, *itertools.accumulate(p.value for p in women)]
        msum = [0, *itertools.accumulate(p.value for p in men)]
        whole = wsum[-1] + msum[-1]
        best: list[_Best | None] = [None, None]
        for (w, m, o), (bonus, pats) in self._table(color, kinds).items():
            for ow in range(o + 1):
                nw, nm = w + ow, m + o - ow
                if nw > len(women) or nm > len(men):
                    continue
                value = wsum[nw] + msum[nm]
                n = nw + nm
                total2 = (
                    bonus
                    + 2 * (value + self.ix * nw + self.x * nm + self.vi * (n > 0))
                    + self.ii * n
                )
                k = total2 * K + (whole - value)
                cur = best[n & 1]
                if cur is None or k > cur.key:
                    best[n & 1] = _Best(k, pats, nw, nm, ow, o - ow)
        result = (best[0], best[1])
        self._finals[key] = result
        return result

    # --- all colours -------------------------------------------------------------------------

    def _border_roles(self) -> dict[str, list[tuple[int, bool, bool]]]:
        """Per colour, the border cards it may use: (card index, is its first colour, shared)."""
        pos = {c: i for i, c in enumerate(self.colors)}
        roles: dict[str, list[tuple[int, bool, bool]]] = {c: [] for c in self.colors}
        for i, b in enumerate(self.borders):
            parts = sorted((c for c in b.border.colors if c in pos), key=pos.__getitem__)  # type: ignore[union-attr]
            for n, c in enumerate(parts):
                roles[c].append((i, n == 0, len(parts) == 2))
        return roles

    def _border_choices(
        self, roles: list[tuple[int, bool, bool]], live: dict[int, int]
    ) -> list[tuple[Used, dict[int, int]]]:
        """Every way one colour can use its border cards, given the cards' pending states.

        A shared card is decided by its first colour (in DP order): left open for the second,
        taken (`border`), or (with XI) split: a couple here awaiting the other colour's
        offspring, or an offspring here awaiting the other colour's couple. The second colour
        completes it, so no state is pending at the end.
        """
        per_card = []
        for i, first, shared in roles:
            opts: list[Option]
            if first:
                opts = [((), OPEN if shared else None), (("border",), TAKEN if shared else None)]
                if shared and self.offspring:
                    opts += [(("border_couple",), WANT_OFFSPRING)]
                    opts += [(("foreign_offspring",), WANT_COUPLE)]
            else:
                second: dict[int, list[Option]] = {
                    OPEN: [((), None), (("border",), None)],
                    TAKEN: [((), None)],
                    WANT_OFFSPRING: [(("foreign_offspring",), None)],
                    WANT_COUPLE: [(("border_couple",), None)],
                }
                opts = second[live[i]]
            per_card.append([(i, kinds, state) for kinds, state in opts])
        out = []
        for combo in itertools.product(*per_card):
            new_live = dict(live)
            used: list[tuple[int, str]] = []
            for i, kinds, state in combo:
                new_live.pop(i, None)
                if state is not None:
                    new_live[i] = state
                used += [(i, k) for k in kinds]
            out.append((tuple(used), new_live))
        return out

    def solve(self) -> list[Fill]:
        """Dynamic programme over colours; state (joker used, free used, parity, border cards)."""
        has_joker = self.joker is not None
        nfree = len(self.free)
        vii2 = 2 * self.vii * K
        roles = self._border_roles()
        states: dict[_State, tuple[int, _Chain]] = {(0, 0, 0, ()): (0, None)}
        for c in self.colors:
            base = ("tile",) * len(self.tiles.get(c, ()))
            new: dict[_State, tuple[int, _Chain]] = {}
            for (ju, fu, par, live), (key, chain) in states.items():
                for used, new_live in self._border_choices(roles[c], dict(live)):
                    tail = tuple(sorted(k for _, k in used))
                    live_key = tuple(sorted(new_live.items()))
                    for j in (0, 1) if has_joker and not ju else (0,):
                        for f in range(nfree - fu + 1):
                            kinds = base + ("joker",) * j + ("free",) * f + tail
                            bonus = vii2 if (j or f) and c not in self.fixed_colors else 0
                            for p, best in enumerate(self._final(c, kinds)):
                                if best is None:
                                    continue
                                k = key + best.key + bonus
                                st = (ju | j, fu + f, par ^ p, live_key)
                                old = new.get(st)
                                if old is None or k > old[0]:
                                    new[st] = (k, (chain, c, kinds, best, used))
            states = new
        result: tuple[int, _Chain] | None = None
        for (ju, fu, par, live), (key, chain) in states.items():
            assert not live  # every shared card was settled by its second colour
            grey = (has_joker and not ju) or fu < nfree  # final.card.VII: an empty one is grey
            k = key + (vii2 if grey else 0) - self.ii * par * K
            if result is None or k > result[0]:
                result = (k, chain)
        assert result is not None  # placing nobody is always possible
        return self._fills(result[1])

    # --- from choices back to patricians on slots ----------------------------------------------

    def _fills(self, chain: _Chain) -> list[Fill]:
        occupants: dict[Slot, list[Patrician]] = {s: [] for s in self.all_slots}
        offspring_of: dict[Slot, Patrician | None] = {s: None for s in self.all_slots}
        free_left = list(self.free)
        while chain is not None:
            chain, color, kinds, best, used = chain
            women = self.women.get(color, [])[: best.women]
            men = self.men.get(color, [])[: best.men]
            kept_w, kept_m = best.women - best.offspring_women, best.men - best.offspring_men
            offspring = women[kept_w:] + men[kept_m:]
            women, men = women[:kept_w], men[:kept_m]
            targets: dict[str, list[Slot]] = {
                "tile": list(self.tiles.get(color, ())),
                "joker": [] if self.joker is None else [self.joker],
                "free": free_left,
                **{
                    kind: [self.borders[i] for i, k in used if k == kind]
                    for kind in ("border", "border_couple", "foreign_offspring")
                },
            }
            # Fullest patterns first, so the best patricians sit on the highest tiles.
            for kind, pat in sorted(
                zip(kinds, best.patterns, strict=True),
                key=lambda kp: (kp[0], -sum(kp[1]), -kp[1][0]),
            ):
                slot = targets[kind].pop(0)
                if pat[0]:
                    occupants[slot].append(women.pop(0))
                if pat[1]:
                    occupants[slot].append(men.pop(0))
                if pat[2]:
                    offspring_of[slot] = offspring.pop(0)
        return [Fill(s, tuple(occ), offspring_of[s]) for s, occ in occupants.items()]


def best_fills(h: Holdings) -> list[Fill]:
    """One Fill per slot of `h` maximising the total, then the unplaced value (final.assignment)."""
    return _Optimiser(h).solve()
