"""Dice the players corrected by hand, held against the camera until they move: a die the
camera keeps misreading can be fixed once, and the next reading does not put the misread back.

>>> from scanner.rules.state import BoardState
>>> misread = BoardState.from_json({"players": ["grey", "blue"], "senatus": {"grey": [3, 4]}})
>>> fixed = misread.with_(senatus={"grey": (4, 5)})
>>> held = Corrections()
>>> held.hold(misread, fixed)
>>> held.apply(misread).senatus
{'grey': (4, 5)}
"""

from __future__ import annotations

from scanner.rules.state import BoardState, ForumDie


class Corrections:
    """Dice the players corrected by hand, held against the camera until they move: a die
    the camera keeps misreading can be fixed once. Per (building, player) in the Templum,
    Senatus and Castrum, the corrected dice; the Forum as a whole."""

    def __init__(self) -> None:
        self.groups: dict[tuple[str, str], tuple] = {}
        self.forum: tuple[ForumDie, ...] | None = None

    def hold(self, before: BoardState, after: BoardState) -> None:
        """Hold what a correction from `before` to `after` changed."""
        for b in ("templum", "senatus"):
            old, new = getattr(before, b), getattr(after, b)
            for p, dice in new.items():
                if tuple(old.get(p, ())) != tuple(dice):
                    self.groups[(b, p)] = tuple(dice)
        for p in after.players:
            old_sets = sorted((s.value, s.count) for s in before.castrum if s.player == p)
            new_sets = [s for s in after.castrum if s.player == p]
            if new_sets and sorted((s.value, s.count) for s in new_sets) != old_sets:
                self.groups[("castrum", p)] = tuple(new_sets)
        if after.forum and after.forum != before.forum:
            self.forum = tuple(after.forum)

    def apply(self, seen: BoardState) -> BoardState:
        """`seen` with every held group in place of what the camera reads there, where the
        camera still sees as many of that player's dice there (else the dice moved)."""
        templum, senatus = dict(seen.templum), dict(seen.senatus)
        sets = list(seen.castrum)
        for (b, p), held in self.groups.items():
            if b == "castrum":
                now = [s for s in sets if s.player == p]
                if sum(s.count for s in now) == sum(s.count for s in held):
                    sets = [s for s in sets if s.player != p] + list(held)
            else:
                where = templum if b == "templum" else senatus
                if len(where.get(p, ())) == len(held):
                    where[p] = held
        forum = seen.forum
        if self.forum is not None and [d.player for d in forum] == [d.player for d in self.forum]:
            forum = self.forum
        return seen.with_(templum=templum, senatus=senatus, castrum=tuple(sets), forum=forum)

    def forget_moved(self, seen: BoardState) -> None:
        """Let go of the groups whose dice moved (another count there now)."""
        for (b, p), held in list(self.groups.items()):
            if b == "castrum":
                now = sum(s.count for s in seen.castrum if s.player == p)
                moved = now != sum(s.count for s in held)
            else:
                moved = len(getattr(seen, b).get(p, ())) != len(held)
            if moved:
                del self.groups[(b, p)]
        if self.forum is not None and [d.player for d in seen.forum] != [
            d.player for d in self.forum
        ]:
            self.forum = None
