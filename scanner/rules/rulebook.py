"""The rules' sentences by rule id, as `seeds/RULES.md` states them, for the help behind every
rule id a page shows. RULES.md is the one place a rule is written down for people; this reads
its tables (rows of a rule id in backticks and its sentence) rather than keeping a second copy."""

from __future__ import annotations

import re
from functools import cache

from scanner.shipped import shipped

ROW = re.compile(r"^\|\s*`([a-z]+(?:\.[a-z-]+)+)`\s*\|\s*(.+?)\s*\|\s*$")


@cache
def sentences() -> dict[str, str]:
    """rule id → its sentence (table rows of RULES.md; inline markup kept as written)."""
    path = shipped("seeds/RULES.md")
    if not path.exists():
        raise FileNotFoundError("seeds/RULES.md is missing from this installation")
    text = path.read_text(encoding="utf-8")
    return {m[1]: m[2] for line in text.splitlines() if (m := ROW.match(line))}
