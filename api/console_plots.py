"""The console's pictures, drawn on the server as inline SVG (nothing loaded from elsewhere):
a fact's life on a timeline, and counts as horizontal bars (the interest profile's windows,
the tiers of a namespace). Coordinates are computed here, the markup is the templates' in
``api/templates/console/svg`` (every label escaped)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from markupsafe import Markup

from api.console_html import render
from memvault.kg.model import Fact

ROW, LABEL, WIDTH = 22, 320, 900
COLOURS = {"current": "#10b981", "ended": "#9ca3af", "retired": "#ef4444"}


def fact_state(f: Fact, now: datetime) -> str:
    """``current`` (true now), ``ended`` (its validity ended: superseded or corrected) or
    ``retired`` (the vault let go of it: merged, culled, its source forgotten)."""
    if f.expired_at is not None:
        return "retired"
    if f.invalid_at is not None and f.invalid_at <= now:
        return "ended"
    return "current"


def timeline_svg(facts: Sequence[Fact], now: datetime, *, rows: int = 40) -> Markup:
    """One bar per fact from ``valid_at`` to ``invalid_at`` (or now), coloured by its state;
    a retired fact's bar ends where the vault retired it. Oldest first, at most ``rows``."""
    shown = sorted(facts, key=lambda f: (f.valid_at, f.id))[:rows]
    if not shown:
        return render("svg/timeline.svg", bars=[])

    def end(f: Fact) -> datetime:
        ends = [t for t in (f.invalid_at, f.expired_at) if t is not None]
        return min([*ends, now]) if ends else now

    start = min(f.valid_at for f in shown)
    stop = max(max(end(f) for f in shown), now)
    span = max((stop - start).total_seconds(), 1.0)
    plot = WIDTH - LABEL - 10

    def x(t: datetime) -> float:
        return LABEL + plot * (t - start).total_seconds() / span

    bars: list[dict[str, Any]] = []
    for n, f in enumerate(shown):
        left, right = x(f.valid_at), max(x(end(f)), x(f.valid_at) + 3)
        tip = (
            f"{f.statement} · from {f.valid_at.date()}"
            + (f" to {f.invalid_at.date()}" if f.invalid_at else "")
            + (f" · retired {f.expired_at.date()}" if f.expired_at else "")
        )
        label = f.statement if len(f.statement) <= 48 else f.statement[:47] + "…"
        bars.append(
            {"state": fact_state(f, now), "id": f.id, "tip": tip, "label": label,
             "y": 20 + n * ROW, "left": left, "width": right - left}
        )  # fmt: skip
    return render(
        "svg/timeline.svg",
        bars=bars,
        width=WIDTH,
        height=40 + len(shown) * ROW,
        label_x=LABEL,
        start=start.date(),
        stop=stop.date(),
        now_x=x(now),
        colours=COLOURS,
    )


def bars_svg(counts: Sequence[tuple[str, int]], *, css: str = "bars") -> Markup:
    """Horizontal bars, one per (label, count), longest first as given."""
    top = max((n for _, n in counts), default=0) or 1
    rows = [
        {"label": label, "n": n, "y": 4 + i * ROW, "width": max(360 * n / top, 2)}
        for i, (label, n) in enumerate(counts)
    ]
    return render("svg/bars.svg", rows=rows, css=css, height=8 + len(counts) * ROW)


TIER_COLOURS = {"hot": "#ef4444", "warm": "#f59e0b", "cold": "#3b82f6", "frozen": "#6b7280"}


def tiers_by_month_svg(rows: Sequence[tuple[str, dict[str, int]]]) -> Markup:
    """One stacked bar per month (when the memories happened): how many of them sit in each
    tier now. Old months going cold and frozen is the tiers at work."""
    top = max((sum(c.values()) for _, c in rows), default=0) or 1
    months = []
    for i, (month, counts) in enumerate(rows):
        x, parts = 80.0, []
        for tier in TIER_COLOURS:
            if n := counts.get(tier, 0):
                parts.append({"tier": tier, "n": n, "x": x, "width": 480.0 * n / top})
                x += 480.0 * n / top
        months.append(
            {"month": month, "y": 4 + i * ROW, "parts": parts, "end": x,
             "total": sum(counts.values())}
        )  # fmt: skip
    return render(
        "svg/tiers_by_month.svg", months=months, height=8 + len(rows) * ROW, colours=TIER_COLOURS
    )


def ego_svg(name: str, links: Sequence[tuple[str, str, str]]) -> Markup:
    """An entity in the middle and what its facts link it to around it: (neighbour,
    predicate, state) per link, the edge coloured by the fact's state."""
    size, r = 520, 190
    cx = cy = size / 2
    names = sorted({n for n, _, _ in links})
    pos = {
        n: (cx + r * math.cos(2 * math.pi * i / len(names)),
            cy + r * math.sin(2 * math.pi * i / len(names)))
        for i, n in enumerate(names)
    }  # fmt: skip
    edges = [
        {"state": state, "predicate": p, "x": pos[n][0], "y": pos[n][1],
         "colour": COLOURS.get(state, "#9ca3af")}
        for n, p, state in links
    ]  # fmt: skip
    nodes = [{"name": n, "x": x, "y": y} for n, (x, y) in pos.items()]
    return render("svg/ego.svg", name=name, edges=edges, nodes=nodes, size=size, cx=cx, cy=cy)
