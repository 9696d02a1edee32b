"""The referee on a messy table: demo scripts of random games (2–5 players, one round each, about
15 % of placements first tried illegally) fed as settled boards, disturbed as a real camera and
real players disturb them (`scanner.synth.disturb`): 2 % of dice misread in value or colour for
one settled frame, 1 % nudged out of their zone, a hand resting over a building before 5 % of
boards, half the flags first accepted and then taken back.

    python benchmarks/replay_disturbed.py [--seeds 10] [--clean]

Prints placements right (the accepted board equals the true one once the placement's board has
settled), flags right (the true flag's rule was shown), rounds scored right, how often the
referee was still asking once the true board had settled (`asked`: a board it could not
explain, shown with the one-tap fix, which the players then tap), how often it asked or
flagged in passing, on a disturbed board (`unclear_shown`, `flags_shown_wrongly`), boards
silently wrong (the accepted board differs from the truth and nothing on the page says so)
and games lost.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable

from scanner.rules.round import score_round
from scanner.session import Session
from scanner.store import MemoryStore
from scanner.synth.demo import demo_script
from scanner.synth.disturb import Disturbance, disturbed, same_board

CLEAN = Disturbance(misread=0, nudged=0, hand=0, accept_then_take_back=0.5)


def session_feed(players: list[str]) -> tuple[Session, Callable[[str, dict | None], dict | None]]:
    """A session and the calls `alea serve` makes on it for a camera reading or an accept."""
    s = Session(MemoryStore(), players=players)

    def feed(kind: str, state: dict | None) -> dict | None:
        if kind == "accept":  # the players overrule a flag the page shows
            return s.accept() if s.flag is not None else None
        if kind == "take-as-seen":  # the one tap the page offers when the referee is lost
            return s.take_as_seen()
        return s.observe(state)

    return s, feed


def judge(scenes, steps, session: Session, feed) -> dict:
    """Feed `steps` and tally what came of each settled scene of the script."""
    tally = dict.fromkeys(
        (
            "placements",
            "placements_right",
            "flags",
            "flags_right",
            "rounds",
            "rounds_right",
            "asked",
            "silently_wrong",
            "false_flags",
            "unclear_shown",
            "flags_shown_wrongly",
        ),
        0,
    )
    by_scene: dict[int, list[dict]] = {}
    order = list(steps)
    for n, step in enumerate(order):
        out = feed(step.kind, step.state)
        if out is not None:
            by_scene.setdefault(step.scene, []).append(out)
            # What the page showed in passing: a board it could not explain, a flag no rule
            # of the true placement raised.
            tally["unclear_shown"] += out.get("kind") == "unclear"
            truth = scenes[step.scene].expect or {}
            tally["flags_shown_wrongly"] += out.get("legal") is False and truth.get(
                "rule"
            ) != out.get("rule")
        last_of_scene = n + 1 == len(order) or order[n + 1].scene != step.scene
        if not last_of_scene:
            continue
        scene = scenes[step.scene]
        expect = scene.expect or {}
        got = by_scene.get(step.scene, [])
        summary = session.summary()
        asking = summary["unclear"] is not None
        tally["asked"] += asking
        if asking:  # the true board has settled and the page asks: the players tap
            feed("take-as-seen", None)
            summary = session.summary()
        flagged = [r for r in got if r.get("legal") is False]
        if expect.get("legal") is False:
            tally["flags"] += 1
            tally["flags_right"] += any(r.get("rule") == expect["rule"] for r in flagged)
            continue
        tally["false_flags"] += summary["flag"] is not None
        if expect.get("kind") == "cleared":
            tally["rounds"] += 1
            cleared = [r for r in got if r.get("kind") == "cleared"]
            tally["rounds_right"] += bool(cleared) and cleared[-1].get("round") == expect["round"]
            continue
        right = same_board(session.game.state, scene.state.to_json())
        if expect.get("kind") == "placement":
            tally["placements"] += 1
            tally["placements_right"] += right
        if not right and not asking and summary["flag"] is None:
            tally["silently_wrong"] += 1
    end = [s for s in scenes if s.hand and "cleared" in s.note]
    tally["lost"] = int(
        tally["rounds_right"] < tally["rounds"]
        or (bool(end) and session.round_results[-1:] != [score_round(end[-1].state).to_json()])
    )
    return tally


def run(seeds: int = 10, how: Disturbance | None = None) -> dict:
    total: dict[str, int] = {}
    games = 0
    started = time.perf_counter()
    for seed in range(seeds):
        for players in (2, 3, 4, 5):
            scenes = demo_script(seed, players, rounds=1)
            session, feed = session_feed(list(scenes[0].state.players))
            steps = list(disturbed(scenes, seed=1000 + seed, how=how))
            for k, v in judge(scenes, steps, session, feed).items():
                total[k] = total.get(k, 0) + v
            games += 1
    return {"games": games, **total, "seconds": round(time.perf_counter() - started, 1)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--clean", action="store_true", help="no misreads, nudges or hands")
    args = ap.parse_args()
    print(json.dumps(run(args.seeds, CLEAN if args.clean else None), indent=1))


if __name__ == "__main__":
    main()
