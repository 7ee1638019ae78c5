"""What graph to build: :class:`GraphSpec`.

A spec is small, hashable and fully determines the generated graph (the
generators are deterministic in the seed), so it doubles as the cache key.
Validation lives here so every entry point (CLI, cache, tests) rejects a bad
size or arity with the same :class:`~simbfs.errors.UserError`.
"""

from __future__ import annotations

from dataclasses import dataclass

from simbfs.errors import UserError

KRONECKER = "kronecker"
UNIFORM = "uniform"
GRAPH_KINDS = (KRONECKER, UNIFORM)

# Bumped whenever a generator, or the CSR builder (simbfs/graph/csr.py),
# changes what is cached for a given spec, so stale cache entries are
# ignored instead of silently reused.
GENERATOR_VERSION = 1

# Vertex labels are packed into 32-bit halves while generating (see
# kronecker.py), and anything larger could not be held in memory anyway.
MAX_SCALE = 31


@dataclass(frozen=True)
class GraphSpec:
    """A Kronecker (Graph500) or uniform-arity random graph of 2**scale vertices.

    ``directed`` (uniform graphs only) keeps each generated tuple (v, w) as
    the directed edge v -> w, so vertex v's adjacency list E_v holds exactly
    its k_v ~ U[0, 2a] generated neighbours: the graphs of Villa et al.
    (seed 001, 2 and 5), whose mean arity is a. Undirected (the default),
    every tuple is an edge both ways and the mean degree is about 2a.
    """

    kind: str
    scale: int
    edgefactor: int = 16
    arity: float = 16.0
    seed: int = 1
    directed: bool = False

    def __post_init__(self) -> None:
        if self.kind not in GRAPH_KINDS:
            raise UserError(
                f"unknown graph kind {self.kind!r}; use one of {', '.join(GRAPH_KINDS)}"
            )
        if not isinstance(self.scale, int) or isinstance(self.scale, bool) or self.scale < 1:
            raise UserError(
                f"graph scale must be a positive integer (2**scale vertices), got {self.scale!r}"
            )
        if not isinstance(self.seed, int) or self.seed < 0 or self.seed >= 2**64:
            raise UserError(f"graph seed must be an integer in [0, 2**64), got {self.seed!r}")
        if self.kind == KRONECKER and (
            not isinstance(self.edgefactor, int) or self.edgefactor < 1
        ):
            raise UserError(
                f"edgefactor must be a positive integer (Graph500 uses 16), got {self.edgefactor!r}"
            )
        if self.kind == UNIFORM:
            # Arities are integers uniform in [0, 2*arity]; a half-integer
            # arity keeps both ends integral so the mean is exactly `arity`.
            if self.arity < 0 or (2 * self.arity) != int(2 * self.arity):
                raise UserError(
                    f"uniform-graph arity must be a non-negative multiple of 0.5 "
                    f"(vertex arities are integers drawn from [0, 2*arity]), got {self.arity!r}"
                )

        if self.directed and self.kind != UNIFORM:
            raise UserError("only uniform graphs can be directed (the Cell paper's adjacency lists E_v); "
                            "Graph500 Kronecker graphs are undirected")

    def num_vertices(self) -> int:
        return 1 << self.scale

    def num_input_edges_estimate(self) -> int:
        """Input tuples: exact for Kronecker, the expectation for uniform graphs."""
        if self.kind == KRONECKER:
            return self.edgefactor * self.num_vertices()
        return int(round(self.arity * self.num_vertices()))

    def cache_key(self) -> str:
        """A stable, filename-safe name for this graph (includes the generator version)."""
        if self.kind == KRONECKER:
            shape = f"ef{self.edgefactor}"
        else:
            shape = "a" + f"{self.arity:g}".replace(".", "p")
            if self.directed:
                shape += "-directed"
        return f"{self.kind}-s{self.scale}-{shape}-seed{self.seed}-v{GENERATOR_VERSION}"
