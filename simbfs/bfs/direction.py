"""The direction-optimising switch of Beamer, Asanovic & Patterson (SC12), as one pure function.

Top-down examines every edge of the frontier; bottom-up lets each unvisited
vertex stop at its first frontier neighbour, which wins when the frontier
is a large part of the graph. The heuristic:

* top-down -> bottom-up when the frontier's edges m_f exceed m_u / alpha
  (m_u: edges still to be checked from unexplored vertices) while the
  frontier is growing;
* bottom-up -> top-down when the frontier n_f falls below n / beta while
  it is shrinking.

The paper uses alpha=14, beta=24; the GAP benchmark suite uses 15 and 18
(our defaults). Kept standalone so the reference BFS and every simulated
algorithm make the same decision from the same counts.
"""

from __future__ import annotations

TOP_DOWN = "top-down"
BOTTOM_UP = "bottom-up"
DIRECTIONS = (TOP_DOWN, BOTTOM_UP)

DEFAULT_ALPHA = 15.0
DEFAULT_BETA = 18.0


def choose_direction(
    current: str,
    *,
    frontier_edges: int,
    unexplored_edges: int,
    frontier_vertices: int,
    prev_frontier_vertices: int,
    num_vertices: int,
    alpha: float = DEFAULT_ALPHA,
    beta: float = DEFAULT_BETA,
) -> str:
    """The direction for the next level, given the one used for the previous level."""
    if current == TOP_DOWN:
        growing = frontier_vertices > prev_frontier_vertices
        if growing and frontier_edges > unexplored_edges / alpha:
            return BOTTOM_UP
        return TOP_DOWN
    if current == BOTTOM_UP:
        shrinking = frontier_vertices < prev_frontier_vertices
        if shrinking and frontier_vertices < num_vertices / beta:
            return TOP_DOWN
        return BOTTOM_UP
    raise ValueError(f"unknown BFS direction {current!r}; expected one of {DIRECTIONS}")
