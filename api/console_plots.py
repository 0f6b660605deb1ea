"""The console's pictures, drawn on the server as inline SVG (nothing loaded from elsewhere):
a fact's life on a timeline, and counts as horizontal bars (the interest profile's windows,
the tiers of a namespace)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import datetime
from html import escape

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


def timeline_svg(facts: Sequence[Fact], now: datetime, *, rows: int = 40) -> str:
    """One bar per fact from ``valid_at`` to ``invalid_at`` (or now), coloured by its state;
    a retired fact's bar ends where the vault retired it. Oldest first, at most ``rows``."""
    shown = sorted(facts, key=lambda f: (f.valid_at, f.id))[:rows]
    if not shown:
        return '<p class="muted">no facts</p>'

    def end(f: Fact) -> datetime:
        ends = [t for t in (f.invalid_at, f.expired_at) if t is not None]
        return min([*ends, now]) if ends else now

    start = min(f.valid_at for f in shown)
    stop = max(max(end(f) for f in shown), now)
    span = max((stop - start).total_seconds(), 1.0)
    plot = WIDTH - LABEL - 10

    def x(t: datetime) -> float:
        return LABEL + plot * (t - start).total_seconds() / span

    bars = []
    for n, f in enumerate(shown):
        state = fact_state(f, now)
        y = 20 + n * ROW
        left, right = x(f.valid_at), max(x(end(f)), x(f.valid_at) + 3)
        tip = (
            f"{f.statement} · from {f.valid_at.date()}"
            + (f" to {f.invalid_at.date()}" if f.invalid_at else "")
            + (f" · retired {f.expired_at.date()}" if f.expired_at else "")
        )
        label = f.statement if len(f.statement) <= 48 else f.statement[:47] + "…"
        bars.append(
            f'<g class="fact {state}" data-id="{escape(f.id)}"><title>{escape(tip)}</title>'
            f'<text x="4" y="{y + 12}" font-size="11">{escape(label)}</text>'
            f'<rect x="{left:.1f}" y="{y}" width="{right - left:.1f}" height="14" rx="3" '
            f'fill="{COLOURS[state]}"/></g>'
        )
    height = 40 + len(shown) * ROW
    axis = (
        f'<text x="{LABEL}" y="{height - 4}" font-size="11">{start.date()}</text>'
        f'<text x="{WIDTH - 80}" y="{height - 4}" font-size="11">{stop.date()}</text>'
        f'<line x1="{x(now):.1f}" y1="10" x2="{x(now):.1f}" y2="{height - 16}" '
        'stroke="#1d2330" stroke-dasharray="3 3"><title>now</title></line>'
    )
    legend = " ".join(f'<span style="color:{c}">■</span> {escape(s)}' for s, c in COLOURS.items())
    return (
        f'<svg class="timeline" width="{WIDTH}" height="{height}" viewBox="0 0 {WIDTH} '
        f'{height}" style="background:#fff">{"".join(bars)}{axis}</svg>'
        f'<p class="muted">{legend}; the dashed line is now</p>'
    )


def bars_svg(counts: Sequence[tuple[str, int]], *, css: str = "bars") -> str:
    """Horizontal bars, one per (label, count), longest first as given."""
    if not counts:
        return '<p class="muted">nothing yet</p>'
    top = max(n for _, n in counts) or 1
    plot = 360
    rows = "".join(
        f'<g class="bar" data-label="{escape(label)}"><text x="4" y="{16 + i * ROW}" '
        f'font-size="11">{escape(label[:30])}</text><rect x="180" y="{4 + i * ROW}" '
        f'width="{max(plot * n / top, 2):.1f}" height="14" fill="#3b82f6"/><text '
        f'x="{186 + plot * n / top:.1f}" y="{16 + i * ROW}" font-size="11">{n}</text></g>'
        for i, (label, n) in enumerate(counts)
    )
    height = 8 + len(counts) * ROW
    return (
        f'<svg class="{escape(css)}" width="600" height="{height}" viewBox="0 0 600 {height}" '
        f'style="background:#fff">{rows}</svg>'
    )


TIER_COLOURS = {"hot": "#ef4444", "warm": "#f59e0b", "cold": "#3b82f6", "frozen": "#6b7280"}


def tiers_by_month_svg(rows: Sequence[tuple[str, dict[str, int]]]) -> str:
    """One stacked bar per month (when the memories happened): how many of them sit in each
    tier now. Old months going cold and frozen is the tiers at work."""
    if not rows:
        return '<p class="muted">no memories</p>'
    top = max(sum(c.values()) for _, c in rows) or 1
    plot, out = 480.0, []
    for i, (month, counts) in enumerate(rows):
        y, x = 4 + i * ROW, 80.0
        parts = []
        for tier, colour in TIER_COLOURS.items():
            n = counts.get(tier, 0)
            if not n:
                continue
            w = plot * n / top
            parts.append(
                f'<rect class="{tier}" x="{x:.1f}" y="{y}" width="{w:.1f}" height="14" '
                f'fill="{colour}"><title>{escape(month)}: {n} {tier}</title></rect>'
            )
            x += w
        out.append(
            f'<g class="month" data-month="{escape(month)}"><text x="4" y="{y + 12}" '
            f'font-size="11">{escape(month)}</text>{"".join(parts)}<text x="{x + 6:.1f}" '
            f'y="{y + 12}" font-size="11">{sum(counts.values())}</text></g>'
        )
    height = 8 + len(rows) * ROW
    legend = " ".join(
        f'<span style="color:{c}">■</span> {escape(t)}' for t, c in TIER_COLOURS.items()
    )
    return (
        f'<svg class="tiers-by-month" width="640" height="{height}" viewBox="0 0 640 {height}" '
        f'style="background:#fff">{"".join(out)}</svg><p class="muted">{legend}; by the month '
        "each memory happened</p>"
    )


def ego_svg(name: str, links: Sequence[tuple[str, str, str]]) -> str:
    """An entity in the middle and what its facts link it to around it: (neighbour,
    predicate, state) per link, the edge coloured by the fact's state."""
    if not links:
        return '<p class="muted">no links</p>'
    size, r = 520, 190
    cx = cy = size / 2
    names = sorted({n for n, _, _ in links})
    pos = {
        n: (cx + r * math.cos(2 * math.pi * i / len(names)),
            cy + r * math.sin(2 * math.pi * i / len(names)))
        for i, n in enumerate(names)
    }  # fmt: skip
    edges = "".join(
        f'<g class="edge {state}"><line x1="{cx}" y1="{cy}" x2="{pos[n][0]:.1f}" '
        f'y2="{pos[n][1]:.1f}" stroke="{COLOURS.get(state, "#9ca3af")}" stroke-width="2"/>'
        f'<text x="{(cx + pos[n][0]) / 2:.1f}" y="{(cy + pos[n][1]) / 2 - 3:.1f}" '
        f'font-size="10" fill="#6b7280">{escape(p)}</text></g>'
        for n, p, state in links
    )
    nodes = "".join(
        f'<g class="node"><circle cx="{x:.1f}" cy="{y:.1f}" r="6" fill="#3b82f6"/><text '
        f'x="{x + 8:.1f}" y="{y + 4:.1f}" font-size="11">{escape(n)}</text></g>'
        for n, (x, y) in pos.items()
    )
    centre = (
        f'<circle cx="{cx}" cy="{cy}" r="9" fill="#1d2330"/><text x="{cx + 12}" y="{cy + 4}" '
        f'font-size="13" font-weight="bold">{escape(name)}</text>'
    )
    return (
        f'<svg class="ego" width="{size}" height="{size}" viewBox="0 0 {size} {size}" '
        f'style="background:#fff">{edges}{nodes}{centre}</svg>'
    )
