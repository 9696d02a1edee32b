"""The same optimisation as a MILP (HiGHS via highspy), kept only to compare against.

`python benchmarks/milp_final.py` checks on random inventories that the MILP and
scanner.rules.final.optimise agree on (total, unplaced value) and prints both methods' times.
It is not used by the product (highspy is not a dependency; it is installed on the dev machine):
the pure-Python optimiser was 30-50x faster at the median (see the printout).
"""

from __future__ import annotations

import random
import statistics
import sys
import time

import highspy

from scanner.rules import components
from scanner.rules.final import score_player
from scanner.rules.final.holdings import parse_final
from scanner.rules.final.scoring import slots

SCALE = 100  # total first, then unplaced value (at most 72)


def milp_best(player: dict) -> tuple[int, int]:
    """(total, unplaced value) of the best assignment, by integer programming."""
    h_in = parse_final({"players": [player]}).players[0]
    cards = h_in.cards
    has = {c: int(c in cards) for c in components.SENATE_SINGLES}
    ss = slots(h_in)
    pats = list(h_in.patricians)
    colors = list(components.TILE_COLORS)
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("mip_rel_gap", 0.0)
    h.setOptionValue("mip_abs_gap", 0.5)
    obj = 0
    placed = {p: [] for p in pats}
    occ, couple = {}, {}
    label = {}
    for s in ss:
        joker_or_free = s.kind == "free" or (s.kind == "province" and s.province.is_joker)
        if s.kind == "province" and not s.province.is_joker:
            ok = {s.province.color}
        elif s.kind == "border":
            ok = set(s.border.colors)
        else:
            ok = set(colors)
        xs = {p: h.addBinary() for p in pats if p.color in ok}
        for p, x in xs.items():
            placed[p].append(x)
        z = {c: h.addBinary() for c in ok}
        label[s] = (z, xs, joker_or_free)
        h.addConstr(sum(z.values()) <= 1)
        for p, x in xs.items():
            h.addConstr(x <= z[p.color])
        women = [x for p, x in xs.items() if p.sex == "f"]
        men = [x for p, x in xs.items() if p.sex == "m"]
        if women:
            h.addConstr(sum(women) <= 1)
        if men:
            h.addConstr(sum(men) <= 1)
        o, u = h.addBinary(), h.addBinary()
        occ[s], couple[s] = o, u
        h.addConstr(o <= sum(xs.values()) + 0)
        h.addConstr(u <= sum(women) + 0)
        h.addConstr(u <= sum(men) + 0)
        if joker_or_free:  # a label means someone of that colour sits there; occ is exact
            for x in xs.values():
                h.addConstr(o >= x)
            for c in ok:
                h.addConstr(z[c] <= sum(x for p, x in xs.items() if p.color == c) + 0)
        if has["XI"]:
            ys = {p: h.addBinary() for p in pats if p.color in ok}
            for p, y in ys.items():
                placed[p].append(y)
                if s.kind != "border":
                    h.addConstr(y <= z[p.color])
            h.addConstr(sum(ys.values()) <= u)
        if s.kind == "province" and not s.province.is_joker:
            obj += (1 + has["VIII"]) * o
        elif s.kind == "province":
            obj += has["VIII"] * o
        elif s.kind == "border":
            obj += 3 * u
        else:
            obj += o
        obj += has["V"] * u
    n_placed = 0
    for p in pats:
        if not placed[p]:
            continue
        h.addConstr(sum(placed[p]) <= 1)
        got = sum(placed[p])
        n_placed += got
        obj += (p.value + has["IX"] * (p.sex == "f") + has["X"] * (p.sex == "m")) * got
        obj += (-p.value / SCALE) * got
    if has["II"] and pats:
        t = h.addIntegral(lb=0, ub=len(pats))
        h.addConstr(2 * t <= n_placed)
        obj += t
    if has["VI"]:
        for c in colors:
            mine = [x for p in pats if p.color == c for x in placed[p]]
            if mine:
                v = h.addBinary()
                h.addConstr(v <= sum(mine))
                obj += v
    if has["VII"]:
        fixed = {s.province.color for s in ss if s.kind == "province" and not s.province.is_joker}
        fixed |= {c for s in ss if s.kind == "border" for c in s.border.colors}
        flexible = [s for s in ss if label[s][2]]
        for c in colors:
            if c not in fixed and flexible:
                g = h.addBinary()
                h.addConstr(g <= sum(label[s][0][c] for s in flexible))
                obj += g
        if flexible:
            g = h.addBinary()
            h.addConstr(g <= sum(1 - occ[s] for s in flexible))
            obj += g
    if isinstance(obj, int):
        best = 0.0
    else:
        h.maximize(obj)
        best = h.getInfo().objective_function_value
    base = score_player(
        h_in.__class__(h_in.player, h_in.provinces, (), h_in.senate, h_in.fortuna, h_in.repete)
    )
    # `base` scores the same holdings with no patricians; the MILP objective is the gain.
    # With no patricians: provinces empty, VII counts empty joker/free as grey, V gives 1 etc.
    gain_none = _gain_without_patricians(h_in, has)
    total_value = sum(p.value for p in pats)
    scaled = round(best * SCALE) + total_value  # SCALE*gain + unplaced
    gain, unplaced = divmod(scaled, SCALE)
    return base.total + gain - gain_none, unplaced


def _gain_without_patricians(h_in, has) -> int:
    """The MILP objective's value when nothing is placed (the grey colour for VII)."""
    ss = slots(h_in)
    flexible = any(s.kind == "free" or (s.kind == "province" and s.province.is_joker) for s in ss)
    return has["VII"] * int(flexible)


def main(n: int = 100) -> None:
    sys.path.insert(0, ".")
    from benchmarks.bench_final import extreme_player, large_player

    rng = random.Random(7)
    players = [large_player(rng) for _ in range(n)] + [extreme_player(rng) for _ in range(n // 4)]
    t_py, t_milp = [], []
    for p in players:
        h_in = parse_final({"players": [p]}).players[0]
        t = time.perf_counter()
        s = score_player(h_in)
        t_py.append((time.perf_counter() - t) * 1000)
        t = time.perf_counter()
        m = milp_best(p)
        t_milp.append((time.perf_counter() - t) * 1000)
        assert (s.total, s.unplaced_value) == m, (p, s.total, s.unplaced_value, m)
    for name, ms in (("python", t_py), ("milp", t_milp)):
        print(
            f"{name:7s} n={len(ms)} median {statistics.median(ms):7.2f} ms worst {max(ms):7.2f} ms"
        )
    ext_py, ext_milp = t_py[n:], t_milp[n:]
    print(f"extreme only: python worst {max(ext_py):.2f} ms, milp worst {max(ext_milp):.2f} ms")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 100)
