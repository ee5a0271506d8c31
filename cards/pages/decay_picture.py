"""A label's decay as a small server-drawn picture: weight e^(−λ·days) over a
year (recall/score.py's decay), as SVG polyline points (no script, so the
Content Security Policy holds)."""

from __future__ import annotations

from ..recall.score import decay

DAYS = 365
WIDTH, HEIGHT = 160, 40


def decay_points(decay_lambda: float) -> str:
    """Points of the weight curve from day 0 (weight 1, top) to day 365."""
    points = []
    for day in range(0, DAYS + 1, 15):
        weight = decay(decay_lambda, float(day))
        points.append(f"{day * WIDTH / DAYS:.1f},{(1 - weight) * (HEIGHT - 2) + 1:.1f}")
    return " ".join(points)
