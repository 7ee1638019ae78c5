"""The SPE bulk-synchronous BFS of Villa, Scarpazza, Petrini & Fernandez
Peinador (IPDPS 2007, seed 001): Algorithm 3 as implemented in their section 3.

What it implements
    One simulated node is one SPE of a Cell BE. Each SPE owns a contiguous
    block of vertices (V_i) and keeps their visited bits in a bitmap in its
    256 KB local store; the graph G and the queues Q_i, Qnext_i live in main
    memory and reach the local store only by DMA. A level is a loop of
    iterations, each moving one bG-full of adjacency lists through six steps:

    1. Fetch     bQ (512 B of vertex codes) from Q_i, double-buffered DMA;
    2. Gather    the adjacency lists of the next vertices of bQ into bG with
                 one DMA list (a vertex code carries its list's length, so
                 the list is built without reading the lists first);
    3. Dispatch  split the gathered lists into the outgoing queues Qout_i,p;
    4. All-to-all one fenced put list (prebuilt, ``mfc_putlb``) delivers
                 Qout_i,p into Qin_p,i in the local store of SPE p, each
                 queue followed by its communication guard (Qin_i,i is an
                 alias of Qout_i,i: nothing moves);
    5. Bitmap    test-and-set the visited bits of the received vertices and
                 append the new ones to bQnext;
    6. Commit    bQnext to Qnext_i in main memory, 128-byte aligned DMA,
                 double-buffered.

    A level ends with an allreduce of the Qnext lengths (section 3, end).

Schedules
    ``cell-bsp``: every step in lockstep, each DMA waited for, barriers
    around the all-to-all (the strict BSP design of section 4).
    ``cell-overlap``: the schedule of Fig. 4, one iteration spanning two
    scheduling periods: in period t an SPE dispatches iteration t and runs
    the bitmap of iteration t-1, while the gather of t+1, the puts of t and
    the commit of t-1 are in flight. A put into Qin_p waits until SPE p has
    finished the bitmap of the previous round (Qin is single-buffered); a
    bitmap waits for all the guards of its round. Deterministic, as the
    paper stresses.

Data formats (machine file ``spe:``)
    Graph: the paper's directed graph, E_v as generated (see GraphSpec
    ``directed``). In memory every adjacency list is stored split per SPE:
    a header of one ``header_entry`` per SPE, padded to a quadword, then the
    portion bound for each SPE padded to ``padding`` (section 3, Dispatch);
    lists start at a ``dma.alignment`` boundary. A Qout entry is the parent
    vertex code padded to a quadword followed by its portion.
    Local store: code and stack, 2 x bQ, 2 x bG, Qout, Qin, 2 x bQnext and
    the bitmap partition must fit, and the bitmap may not exceed
    ``bitmap_max`` (160 KB: about 10 M vertices per Cell): violating either
    is a UserError, before anything is simulated.

Execution
    The BFS is real: the frontier queues hold real vertex ids, the lists the
    gathers move are the real lists, and the owners claim vertices in the
    order their bitmap step sees them (round, then sender, then queue
    order). Each level is computed in one vectorised pass over the level's
    frontier (edges never loop in Python); the simpy processes are then
    charged per iteration: one event per DMA command, per compute step and
    per wait, never per edge.

Compute
    Cycles per element for each step (``spe.cycles``): edges, lists,
    portions (non-empty per-SPE parts of a list = queue entries), quadwords
    and DMA commands, at the SPE clock (``node.clock``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import simpy

from ...bfs.keyed import smallest_per_key
from ...bfs.adjacency import neighbour_slots
from ...engine import NULL_RECORDER, Simulation
from ...errors import UserError
from ...graph import Graph
from ..base import Algorithm
from ...records import LevelRecord, RootRun
from ...units import format_quantity


# --------------------------------------------------------------- data layout
@dataclass
class Layout:
    """The graph as stored for N SPEs: per vertex, its per-SPE portions."""

    N: int
    block: int  # vertices per SPE (the last SPE may own fewer)
    portion_edges: np.ndarray  # (n, N) edges of v's list owned by each SPE
    list_bytes: np.ndarray  # (n,) bytes of v's stored list (0 if v has no edge)
    entry_bytes: np.ndarray  # (n, N) bytes of v's Qout entry for each SPE (0 if empty)
    portion_quadwords: np.ndarray  # (n, N) padded quadwords of each portion


def build_layout(graph: Graph, N: int, spe) -> Layout:
    n = graph.num_vertices
    block = -(-n // N)
    degree = graph.degree
    sources = np.repeat(np.arange(n, dtype=np.int64), degree)
    owners = graph.indices.astype(np.int64) // block
    portion = np.bincount(sources * N + owners, minlength=n * N).reshape(n, N).astype(np.int32)
    del sources, owners
    words_per_qw = spe.padding_bytes / spe.vertex_code_bytes
    quadwords = np.ceil(portion / words_per_qw).astype(np.int32)
    header = np.ceil(N * spe.header_entry_bytes / spe.padding_bytes) * spe.padding_bytes
    list_bytes = np.where(degree > 0, header + quadwords.sum(axis=1) * spe.padding_bytes, 0.0)
    entry_header = np.ceil(spe.vertex_code_bytes / spe.padding_bytes) * spe.padding_bytes
    entry_bytes = np.where(portion > 0, entry_header + quadwords * spe.padding_bytes, 0.0)
    return Layout(N=N, block=block, portion_edges=portion, list_bytes=list_bytes,
                  entry_bytes=entry_bytes, portion_quadwords=quadwords)


def local_store_budget(machine, num_vertices: int, N: int) -> dict[str, float]:
    """Bytes of one SPE's local store, by use (the largest SPE partition)."""
    spe = machine.section("spe")
    block = -(-num_vertices // N)
    bitmap = np.ceil(block / 8 / 16) * 16
    return {
        "code and stack": spe.code_and_stack_bytes,
        "bitmap": float(bitmap),
        "bQ (2 buffers)": 2 * spe.bq_buffer_bytes,
        "bG (2 buffers)": 2 * spe.bg_buffer_bytes,
        "Qout": spe.qout_bytes,
        "Qin": spe.qin_bytes,
        "bQnext (2 buffers)": 2 * spe.bqnext_buffer_bytes,
    }


def check_local_store(machine, num_vertices: int, N: int) -> None:
    """UserError unless the bitmap partition and all buffers fit."""
    spe = machine.section("spe")
    if spe is None:
        raise UserError(f"machine {machine.name} has no `spe:` section; the cell-* algorithms need an SPE "
                        f"model (local store, formats, per-step cycles), e.g. machines/cell_be.yaml")
    if machine.section("dma") is None:
        raise UserError(f"machine {machine.name} has no `dma:` section; SPEs move data only by DMA")
    budget = local_store_budget(machine, num_vertices, N)
    bitmap = budget["bitmap"]
    if bitmap > spe.bitmap_max_bytes:
        most = int(spe.bitmap_max_bytes * 8 * N)
        raise UserError(
            f"a graph of {num_vertices:,} vertices on {N} SPEs needs a bitmap of {format_quantity(bitmap, 'size')} "
            f"per SPE, more than the {format_quantity(spe.bitmap_max_bytes, 'size')} the local store can hold "
            f"(spe.bitmap_max); {N} SPEs handle at most {most:,} vertices: use a smaller --scale or more SPEs "
            f"(--nodes)")
    total = sum(budget.values())
    if total > spe.local_store_bytes:
        parts = ", ".join(f"{k} {format_quantity(v, 'size')}" for k, v in budget.items())
        raise UserError(f"the SPE local store overflows: {parts} = {format_quantity(total, 'size')} > "
                        f"{format_quantity(spe.local_store_bytes, 'size')} (spe.local_store); shrink a buffer "
                        f"or the graph")


# ------------------------------------------------------------ level planning
@dataclass
class LevelPlan:
    """What every SPE does in every iteration of one level (K iterations)."""

    K: int
    fetch_blocks: list[np.ndarray]  # per SPE: bQ block sizes (bytes)
    chunk_fetch: np.ndarray  # (K, N) bQ blocks that must have arrived before gather t (cumulative)
    gather_sizes: list[list[np.ndarray]]  # [rank][t] list block sizes of the DMA list
    lists: np.ndarray  # (K, N)
    edges_out: np.ndarray  # (K, N)
    portions_out: np.ndarray  # (K, N)
    quadwords_out: np.ndarray  # (K, N)
    put_bytes: np.ndarray  # (K, N, N) entry bytes i -> p
    edges_in: np.ndarray  # (K, N)
    portions_in: np.ndarray  # (K, N)
    quadwords_in: np.ndarray  # (K, N)
    new_in: np.ndarray  # (K, N) vertices newly visited by p in round t
    next_queues: list[np.ndarray]  # per SPE, Qnext in commit order
    edges_examined: int


def chunk_bounds(list_bytes: np.ndarray, entry_bytes: np.ndarray, spe, N: int) -> np.ndarray:
    """Greedy bG fill (Algorithm 3, lines 16-19): consecutive lists while
    bG, every Qout_p and the DMA list length allow. Returns chunk starts."""
    count = len(list_bytes)
    if count == 0:
        return np.zeros(1, dtype=np.int64)
    q_cap = spe.qout_bytes / N
    if list_bytes.max(initial=0) > spe.bg_buffer_bytes or entry_bytes.max(initial=0) > q_cap:
        raise UserError(f"an adjacency list does not fit the SPE buffers (largest list "
                        f"{format_quantity(list_bytes.max(), 'size')}, bG {format_quantity(spe.bg_buffer_bytes, 'size')}; "
                        f"largest queue entry {format_quantity(entry_bytes.max(), 'size')}, Qout per SPE "
                        f"{format_quantity(q_cap, 'size')}); the paper splits such heavy lists at graph creation "
                        f"(001, 2), which simbfs does not: use a smaller arity or raise spe.bg_buffer / spe.qout")
    cum_list = np.concatenate([[0.0], np.cumsum(list_bytes)])
    cum_entry = np.vstack([np.zeros((1, N)), np.cumsum(entry_bytes, axis=0)])
    max_lists = spe.dma_list_max
    starts = [0]
    s = 0
    while True:
        end = int(np.searchsorted(cum_list, cum_list[s] + spe.bg_buffer_bytes, side="right")) - 1
        for p in range(N):
            end = min(end, int(np.searchsorted(cum_entry[:, p], cum_entry[s, p] + q_cap, side="right")) - 1)
        end = min(end, s + max_lists, count)
        end = max(end, s + 1)
        if end >= count:
            break
        starts.append(end)
        s = end
    return np.asarray(starts, dtype=np.int64)


def plan_level(graph: Graph, layout: Layout, queues: list[np.ndarray], visited: np.ndarray,
               parent: np.ndarray, spe) -> LevelPlan:
    """The real work of one level for all SPEs, in one vectorised pass.
    Marks ``visited`` and sets ``parent`` for the vertices claimed."""
    N = layout.N
    codes_per_bq = int(spe.bq_buffer_bytes // spe.vertex_code_bytes)
    chunk_of = []
    starts_per_rank = []
    for rank in range(N):
        q = queues[rank]
        starts = chunk_bounds(layout.list_bytes[q], layout.entry_bytes[q], spe, N)
        starts_per_rank.append(starts)
        ids = np.zeros(len(q), dtype=np.int64)
        if len(q):
            ids[starts[1:]] = 1
            ids = np.cumsum(ids)
        chunk_of.append(ids)
    K = max(len(s) if len(q) else 0 for s, q in zip(starts_per_rank, queues))

    lists = np.zeros((K, N))
    edges_out = np.zeros((K, N))
    portions_out = np.zeros((K, N))
    quadwords_out = np.zeros((K, N))
    put_bytes = np.zeros((K, N, N))
    chunk_fetch = np.zeros((K, N), dtype=np.int64)
    gather_sizes: list[list[np.ndarray]] = []
    fetch_blocks = []
    for rank in range(N):
        q = queues[rank]
        c = chunk_of[rank]
        degree = np.diff(graph.indptr)[q] if len(q) else np.zeros(0)
        nonempty = layout.portion_edges[q] > 0
        if len(q):
            lists[:, rank] = np.bincount(c, weights=(degree > 0), minlength=K)
            edges_out[:, rank] = np.bincount(c, weights=degree, minlength=K)
            portions_out[:, rank] = np.bincount(c, weights=nonempty.sum(axis=1), minlength=K)
            quadwords_out[:, rank] = np.bincount(c, weights=layout.portion_quadwords[q].sum(axis=1), minlength=K)
            for p in range(N):
                put_bytes[:, rank, p] = np.bincount(c, weights=layout.entry_bytes[q, p], minlength=K)
            ends = np.append(starts_per_rank[rank][1:], len(q))
            chunk_fetch[:len(ends), rank] = -(-ends // codes_per_bq)
            chunk_fetch[len(ends):, rank] = chunk_fetch[len(ends) - 1, rank]
        sizes = layout.list_bytes[q]
        bounds = np.append(starts_per_rank[rank], len(q)) if len(q) else np.zeros(1, dtype=np.int64)
        per_chunk = [sizes[a:b][sizes[a:b] > 0] for a, b in zip(bounds[:-1], bounds[1:])]
        per_chunk += [np.zeros(0)] * (K - len(per_chunk))
        gather_sizes.append(per_chunk)
        full, rest = divmod(len(q) * spe.vertex_code_bytes, spe.bq_buffer_bytes)
        fetch_blocks.append(np.array([spe.bq_buffer_bytes] * int(full) + ([rest] if rest else [])))

    # The frontier in the order the bitmap steps see it: round, sender, queue order.
    order_key = np.concatenate([chunk_of[r] * N + r for r in range(N)]) if K else np.zeros(0, dtype=np.int64)
    frontier = np.concatenate(queues) if K else np.zeros(0, dtype=np.int64)
    position = np.argsort(order_key, kind="stable")
    frontier = frontier[position]
    round_of = order_key[position] // N
    slots, lengths, _ = neighbour_slots(graph.indptr, frontier)
    targets = graph.indices[slots].astype(np.int64, copy=False)
    sources = np.repeat(frontier, lengths)
    edge_round = np.repeat(round_of, lengths)
    receiver = targets // layout.block

    edges_in = np.bincount(edge_round * N + receiver, minlength=K * N).reshape(K, N).astype(np.float64)
    # Portions in: one Qin entry per (list, receiver) with at least one edge.
    portion_rows = layout.portion_edges[frontier] > 0  # (F, N)
    portions_in = np.zeros((K, N))
    quadwords_in = np.zeros((K, N))
    for p in range(N):
        portions_in[:, p] = np.bincount(round_of, weights=portion_rows[:, p], minlength=K)
        quadwords_in[:, p] = np.bincount(round_of, weights=layout.portion_quadwords[frontier, p], minlength=K)

    fresh = ~visited[targets]
    candidates = targets[fresh]
    first = smallest_per_key(candidates, np.arange(len(candidates)))[1]  # each vertex's first discovery
    first.sort()  # in discovery order
    new_positions = np.flatnonzero(fresh)[first]
    new = targets[new_positions]
    parent[new] = sources[new_positions]
    visited[new] = True
    new_owner = new // layout.block
    new_in = np.bincount(edge_round[new_positions] * N + new_owner, minlength=K * N).reshape(K, N).astype(np.float64)
    next_queues = [new[new_owner == p] for p in range(N)]
    return LevelPlan(K=K, fetch_blocks=fetch_blocks, chunk_fetch=chunk_fetch, gather_sizes=gather_sizes,
                     lists=lists, edges_out=edges_out, portions_out=portions_out, quadwords_out=quadwords_out,
                     put_bytes=put_bytes, edges_in=edges_in, portions_in=portions_in, quadwords_in=quadwords_in,
                     new_in=new_in, next_queues=next_queues, edges_examined=int(len(targets)))


# -------------------------------------------------------------- the algorithm
class CellSPE(Algorithm):
    """Algorithm 3 on N SPEs; ``overlapped`` selects the Fig. 4 schedule."""

    paper = "001"
    directed_graphs = True  # the paper's graphs: E_v as generated (GraphSpec.directed)
    requires = ("spe", "dma")

    def __init__(self, name: str, overlapped: bool):
        self.name = name
        self.overlapped = overlapped
        self._layouts: dict = {}

    @property
    def summary(self) -> str:
        kind = "overlapped schedule (Fig. 4)" if self.overlapped else "strict BSP schedule"
        return f"Cell BE SPE BFS of Villa et al. 2007 (Algorithm 3), explicit DMA and local store, {kind}"

    def node_memory_bytes(self, num_vertices: int, num_directed_edges: int, nodes: int, machine=None,
                          graph_kind: str = "kronecker") -> float:
        """Main memory per SPE: its share of the split, padded lists (about
        a quadword per portion), Q and Qnext."""
        local_vertices = -(-num_vertices // nodes)
        return 4 * num_directed_edges / nodes * 2 + 16 * local_vertices + 8 * local_vertices

    def check(self, machine, num_vertices: int, nodes: int) -> None:
        check_local_store(machine, num_vertices, nodes)

    def layout(self, graph: Graph, machine, N: int) -> Layout:
        key = (id(graph), N, machine.section("spe"))
        if key not in self._layouts:
            self._layouts.clear()
            self._layouts[key] = build_layout(graph, N, machine.section("spe"))
        return self._layouts[key]

    def run(self, sim: Simulation, graph: Graph, root: int, recorder=NULL_RECORDER) -> RootRun:
        check_local_store(sim.machine, graph.num_vertices, sim.nodes)
        return _Run(self, sim, graph, root, recorder).execute()


class _Run:
    def __init__(self, algorithm: CellSPE, sim: Simulation, graph: Graph, root: int, recorder):
        self.algorithm = algorithm
        self.machine = sim.machine
        self.spe = sim.machine.section("spe")
        self.dma_model = sim.machine.section("dma")
        self.N = sim.nodes
        self.graph = graph
        self.layout = algorithm.layout(graph, sim.machine, self.N)
        self.ctx = sim.context(recorder)
        self.env = self.ctx.env
        self.recorder = recorder
        self.clock = sim.machine.node.clock_hz
        self.root = root
        n = graph.num_vertices
        self.visited = np.zeros(n, dtype=bool)
        self.visited[root] = True
        self.parent = np.full(n, -1, dtype=np.int64)
        self.parent[root] = root
        self.queues = [np.zeros(0, dtype=np.int64) for _ in range(self.N)]
        self.queues[root // self.layout.block] = np.array([root], dtype=np.int64)
        self.records: list[LevelRecord] = []
        self.level = 0
        self.level_start = 0.0
        self.done = False
        self.plan: LevelPlan | None = None
        self.busy = np.zeros(self.N)
        self.transfer_wait = np.zeros(self.N)  # time each SPE stalled on a DMA or put
        self.comm = 0.0
        self._new_plan()

    # ------------------------------------------------------------- helpers
    def _new_plan(self) -> None:
        self.plan = plan_level(self.graph, self.layout, self.queues, self.visited, self.parent, self.spe)
        K, N = self.plan.K, self.N
        env = self.env
        self.bitmap_done = [[env.event() for _ in range(N)] for _ in range(K)]
        self.incoming = [[env.event() for _ in range(N)] for _ in range(K)]
        self.incoming_count = np.zeros((K, N), dtype=np.int64)
        self.incoming_last = np.zeros((K, N))
        self.puts = 0
        self.put_bytes = 0.0
        self.commit_offset = np.zeros(N)

    def seconds(self, cycles) -> float:
        return float(cycles) / self.clock

    def compute(self, rank: int, kind: str, cycles: float):
        duration = self.seconds(cycles)
        self.busy[rank] += duration
        if duration > 0:
            start = self.env.now
            yield self.env.timeout(duration)
            self.recorder.record(rank, "cpu", start, start + duration, kind, level=self.level)

    def wait(self, rank: int, event, what: str):
        start = self.env.now
        if not event.processed:
            yield event
        if self.env.now > start:
            self.transfer_wait[rank] += self.env.now - start
            self.recorder.record(rank, "cpu", start, self.env.now, "wait", on=what, level=self.level)
        return event.value if event.processed or event.triggered else None

    def fetch(self, rank: int, index: int):
        """Issue the DMA of bQ block ``index`` (the SPU spends the fetch
        step's cycles on it) and return its transfer process."""
        engine = self.ctx.devices["dma"][rank]
        yield from self.compute(rank, "fetch-issue", float(self.spe.cycles.fetch.cycles(transfers=1)))
        return self.env.process(engine.transfer(float(self.plan.fetch_blocks[rank][index]), kind="fetch"))

    def gather(self, rank: int, t: int):
        sizes = self.plan.gather_sizes[rank][t]
        engine = self.ctx.devices["dma"][rank]
        if len(sizes) == 0:
            return self.env.timeout(0)
        return self.env.process(engine.transfer_list(sizes, kind="gather"))

    def put(self, rank: int, t: int) -> simpy.Event:
        """Issue the fenced put list of round t; each receiver's incoming
        event fires when its last guard of the round has arrived."""
        N = self.N
        others = [p for p in range(N) if p != rank]
        sizes = self.plan.put_bytes[t, rank, others]
        engine = self.ctx.devices["dma"][rank]
        arrivals = engine.reserve_put_list(self.ctx.network, others, sizes, self.spe.guard_bytes)
        self.puts += len(others)
        self.put_bytes += float(sizes.sum())
        for p, arrival in zip(others, arrivals):
            self._arrived(t, p, float(arrival))
        end = float(arrivals.max(initial=self.env.now))
        if end > self.env.now:
            self.recorder.record(rank, "dma", self.env.now, end, "alltoall", bytes=float(sizes.sum()), level=self.level)
        return self.env.timeout(end - self.env.now)

    def _arrived(self, t: int, p: int, arrival: float) -> None:
        self.incoming_count[t, p] += 1
        self.incoming_last[t, p] = max(self.incoming_last[t, p], arrival)
        if self.incoming_count[t, p] == self.N - 1:
            event = self.incoming[t][p]
            timer = self.env.timeout(max(0.0, self.incoming_last[t, p] - self.env.now))
            timer.callbacks.append(lambda _e: event.succeed())

    def commit(self, rank: int, t: int, pending: list):
        """Commit bQnext of round t in buffer-sized pieces; wait for the
        other buffer's commit before reusing it. Qnext grows at arbitrary
        offsets, so each piece is widened to whole aligned lines (its padding
        is rewritten by the next commit, 001, 3 Commit)."""
        nbytes = self.plan.new_in[t, rank] * self.spe.vertex_code_bytes
        piece = self.spe.bqnext_buffer_bytes
        align = self.dma_model.alignment_bytes
        engine = self.ctx.devices["dma"][rank]
        while nbytes > 0:
            chunk = min(piece, nbytes)
            nbytes -= chunk
            if len(pending) >= 2:
                yield from self.wait(rank, pending.pop(0), "commit buffer")
            head = self.commit_offset[rank] % align
            span = np.ceil((head + chunk) / align) * align
            self.commit_offset[rank] += chunk
            yield from self.compute(rank, "commit-issue", float(self.spe.cycles.commit.cycles(transfers=1)))
            pending.append(self.env.process(engine.transfer(float(span), kind="commit")))

    def step_cycles(self, step: str, t: int, rank: int, direction: str) -> float:
        plan = self.plan
        cost = getattr(self.spe.cycles, step)
        if direction == "out":
            return float(cost.cycles(edges=plan.edges_out[t, rank], lists=plan.lists[t, rank],
                                     portions=plan.portions_out[t, rank], quadwords=plan.quadwords_out[t, rank]))
        return float(cost.cycles(edges=plan.edges_in[t, rank], lists=0, portions=plan.portions_in[t, rank],
                                 quadwords=plan.quadwords_in[t, rank]))

    # ------------------------------------------------------- SPE programs
    def spe_program(self, rank: int):
        coll = self.ctx.collectives
        while not self.done:
            if self.algorithm.overlapped:
                yield from self.level_overlapped(rank)
            else:
                yield from self.level_bsp(rank)
            count = np.array([len(self.plan.next_queues[rank])], dtype=np.int64)
            # the collectives record the wait and the allreduce
            yield coll.allreduce(rank, count, np.add, on_complete=self._finish_level, level=self.level)

    def _fetch_until(self, rank: int, state: dict, need: int):
        """Make bQ blocks [0, need) available; double-buffered: when block j
        is consumed, block j+1 is already on its way."""
        blocks = len(self.plan.fetch_blocks[rank])
        while state["ready"] < need:
            j = state["ready"]
            if j not in state["issued"]:
                state["issued"][j] = yield from self.fetch(rank, j)
            yield from self.wait(rank, state["issued"][j], "fetch")
            state["ready"] += 1
            if j + 1 < blocks and j + 1 not in state["issued"]:
                state["issued"][j + 1] = yield from self.fetch(rank, j + 1)

    def level_overlapped(self, rank: int):
        plan = self.plan
        K = plan.K
        cyc = self.spe.cycles
        fetch_state = {"ready": 0, "issued": {}}
        if len(plan.fetch_blocks[rank]):
            fetch_state["issued"][0] = yield from self.fetch(rank, 0)
        gathers = {}
        commits: list = []
        put_done = None
        if K:
            yield from self._fetch_until(rank, fetch_state, plan.chunk_fetch[0, rank])
            yield from self.compute(rank, "gather-issue", float(cyc.gather.cycles(lists=plan.lists[0, rank], transfers=1)))
            gathers[0] = self.gather(rank, 0)
        for t in range(K + 1):
            if t < K:
                yield from self.wait(rank, gathers.pop(t), "gather")
                if t + 1 < K:
                    yield from self._fetch_until(rank, fetch_state, plan.chunk_fetch[t + 1, rank])
                    yield from self.compute(rank, "gather-issue",
                                            float(cyc.gather.cycles(lists=plan.lists[t + 1, rank], transfers=1)))
                    gathers[t + 1] = self.gather(rank, t + 1)
                if put_done is not None:
                    yield from self.wait(rank, put_done, "Qout free")
                yield from self.compute(rank, "dispatch", self.step_cycles("dispatch", t, rank, "out"))
            if t >= 1:
                if self.N > 1:
                    yield from self.wait(rank, self.incoming[t - 1][rank], "guards")
                yield from self.compute(rank, "bitmap", self.step_cycles("bitmap", t - 1, rank, "in"))
                self.bitmap_done[t - 1][rank].succeed()
                yield from self.commit(rank, t - 1, commits)
            if t < K:
                if t >= 1 and self.N > 1:
                    yield from self.wait(rank, simpy.AllOf(self.env, self.bitmap_done[t - 1]), "Qin free")
                yield from self.compute(rank, "alltoall-issue", float(cyc.alltoall.cycles(transfers=1)))
                put_done = self.put(rank, t)
        for event in commits:
            yield from self.wait(rank, event, "commit")
        if put_done is not None:
            yield from self.wait(rank, put_done, "put")

    def level_bsp(self, rank: int):
        plan = self.plan
        cyc = self.spe.cycles
        fetch_state = {"ready": 0, "issued": {}}
        for t in range(plan.K):
            # 1. Fetch (waited for, no prefetch beyond what the step needs)
            while fetch_state["ready"] < plan.chunk_fetch[t, rank]:
                j = fetch_state["ready"]
                issued = yield from self.fetch(rank, j)
                yield from self.wait(rank, issued, "fetch")
                fetch_state["ready"] += 1
            # 2. Gather
            yield from self.compute(rank, "gather-issue", float(cyc.gather.cycles(lists=plan.lists[t, rank], transfers=1)))
            yield from self.wait(rank, self.gather(rank, t), "gather")
            # 3. Dispatch
            yield from self.compute(rank, "dispatch", self.step_cycles("dispatch", t, rank, "out"))
            yield from self._barrier(rank)
            # 4. All-to-all
            yield from self.compute(rank, "alltoall-issue", float(cyc.alltoall.cycles(transfers=1)))
            done = self.put(rank, t)
            yield from self.wait(rank, done, "put")
            if self.N > 1:
                yield from self.wait(rank, self.incoming[t][rank], "guards")
            # 5. Bitmap
            yield from self.compute(rank, "bitmap", self.step_cycles("bitmap", t, rank, "in"))
            # 6. Commit (waited for)
            commits: list = []
            yield from self.commit(rank, t, commits)
            for event in commits:
                yield from self.wait(rank, event, "commit")
            yield from self._barrier(rank)

    def _barrier(self, rank: int):
        if self.N == 1:
            return
        yield self.ctx.collectives.barrier(rank, level=self.level)

    # ---------------------------------------------------------- bookkeeping
    def _finish_level(self, closing) -> None:
        env = self.env
        plan = self.plan
        time_s = env.now - self.level_start
        compute_mean = float(self.busy.mean())
        # Communication: the SPEs' mean stall on transfers (DMA, puts and their
        # guards) plus the closing allreduce; the rest is barrier waiting.
        comm = float(self.transfer_wait.mean()) + closing.cost_s
        self.records.append(LevelRecord(
            root=self.root, level=self.level, direction="top-down",
            frontier_vertices=int(sum(len(q) for q in self.queues)),
            edges_examined=plan.edges_examined, messages=self.puts, bytes=self.put_bytes,
            time_s=time_s, compute_s=compute_mean, communication_s=comm,
            synchronisation_s=max(time_s - compute_mean - comm, 0.0),
            compute_max_s=float(self.busy.max()),
            bottleneck="compute" if self.busy.max() >= comm else "dma",
        ))
        self.ctx.recorder.level_done(self.records[-1])
        self.queues = plan.next_queues
        self.level += 1
        self.level_start = env.now
        self.busy[:] = 0.0
        self.transfer_wait[:] = 0.0
        self.done = int(closing.value[0]) == 0
        if not self.done:
            self._new_plan()

    def execute(self) -> RootRun:
        for rank in range(self.N):
            self.env.process(self.spe_program(rank))
        self.env.run()
        return RootRun(root=self.root, parent=self.parent, time_s=self.env.now, levels=self.records)
