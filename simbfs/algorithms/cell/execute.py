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
    order). Each level is computed in one compiled pass over the level's
    frontier (kernels.py; edges never loop in Python); the simpy processes
    are then charged per iteration: one event per DMA command, per compute
    step and per wait, never per edge.

Compute
    Cycles per element for each step (``spe.cycles``): edges, lists,
    portions (non-empty per-SPE parts of a list = queue entries), quadwords
    and DMA commands, at the SPE clock (``node.clock``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import simpy

from ...engine import NULL_RECORDER, Simulation
from ...engine.simulation import run_to_end
from ...errors import UserError
from ...graph import Graph
from ..base import Algorithm, LayoutCache
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
                        f"model (local store, formats, per-step cycles), as the bundled cell_be has "
                        f"(simbfs machines --describe cell_be)")
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
    gather_lists: list[np.ndarray]  # per SPE: the sizes of its non-empty lists, in queue order
    # (K + 1, N): round t's DMA list of SPE r is gather_lists[r][bounds[t, r]:bounds[t + 1, r]]
    gather_bounds: np.ndarray
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

    def gather_sizes(self, rank: int, t: int) -> np.ndarray:
        """The block sizes of SPE ``rank``'s DMA list in round ``t`` (a view)."""
        bounds = self.gather_bounds
        return self.gather_lists[rank][bounds[t, rank]:bounds[t + 1, rank]]


def chunk_bounds(queue: np.ndarray, layout: Layout, spe) -> np.ndarray:
    """Greedy bG fill (Algorithm 3, lines 16-19) of the lists of ``queue``:
    consecutive lists while bG, every Qout_p and the DMA list length allow.
    Returns chunk starts. The fill is a loop over the queue, compiled
    (kernels.chunk_starts)."""
    from .kernels import chunk_starts

    q_cap = spe.qout_bytes / layout.N
    starts, largest_list, largest_entry = chunk_starts(
        np.asarray(queue, dtype=np.int64), layout.list_bytes, layout.entry_bytes,
        float(spe.bg_buffer_bytes), float(q_cap), int(spe.dma_list_max))
    if largest_list > spe.bg_buffer_bytes or largest_entry > q_cap:
        raise UserError(f"an adjacency list does not fit the SPE buffers (largest list "
                        f"{format_quantity(largest_list, 'size')}, bG {format_quantity(spe.bg_buffer_bytes, 'size')}; "
                        f"largest queue entry {format_quantity(largest_entry, 'size')}, Qout per SPE "
                        f"{format_quantity(q_cap, 'size')}); the paper splits such heavy lists at graph creation "
                        f"(001, 2), which simbfs does not: use a smaller arity or raise spe.bg_buffer / spe.qout")
    return starts


def plan_level(graph: Graph, layout: Layout, queues: list[np.ndarray], visited: np.ndarray,
               parent: np.ndarray, spe) -> LevelPlan:
    """The real work of one level for all SPEs: the chunks of every queue,
    then one compiled pass over the frontier in bitmap order
    (kernels.plan_rounds). Marks ``visited`` and sets ``parent`` for the
    vertices claimed."""
    from .kernels import plan_rounds

    N = layout.N
    codes_per_bq = int(spe.bq_buffer_bytes // spe.vertex_code_bytes)
    offsets = np.concatenate([[0], np.cumsum([len(q) for q in queues])]).astype(np.int64)
    starts_per_rank = [chunk_bounds(q, layout, spe) for q in queues]
    rounds = [len(s) if len(q) else 0 for s, q in zip(starts_per_rank, queues)]
    K = max(rounds)

    # chunk (t, r) is queue[bounds[t, r]:bounds[t + 1, r]] of the concatenated queues; rounds
    # past an SPE's last are empty
    bounds = np.repeat(offsets[1:][None, :], K + 1, axis=0)
    chunk_fetch = np.zeros((K, N), dtype=np.int64)
    gather_lists = []
    gather_bounds = np.zeros((K + 1, N), dtype=np.int64)
    fetch_blocks = []
    for rank, (q, starts, k) in enumerate(zip(queues, starts_per_rank, rounds)):
        ends = np.append(starts[1:], len(q))
        if k:
            bounds[:k, rank] = offsets[rank] + starts
            chunk_fetch[:, rank] = -(-ends[-1] // codes_per_bq)
            chunk_fetch[:k, rank] = -(-ends // codes_per_bq)
        # the DMA list of a chunk: its lists that have a byte to move
        sizes = layout.list_bytes[q]
        moved = sizes > 0
        gather_lists.append(sizes[moved])
        before = np.concatenate([[0], np.cumsum(moved)])
        gather_bounds[:, rank] = before[-1]
        gather_bounds[:k, rank] = before[starts[:k]]
        full, rest = divmod(len(q) * spe.vertex_code_bytes, spe.bq_buffer_bytes)
        fetch_blocks.append(np.array([spe.bq_buffer_bytes] * int(full) + ([rest] if rest else [])))

    queue = np.concatenate(queues).astype(np.int64, copy=False)
    (lists, edges_out, portions_out, quadwords_out, put_bytes, edges_in, portions_in, quadwords_in, new_in,
     new, examined) = plan_rounds(graph.indptr, graph.indices, queue, bounds[:-1], bounds[1:], layout.block,
                                  layout.portion_edges, layout.portion_quadwords, layout.entry_bytes,
                                  visited, parent)
    new_owner = new // layout.block
    next_queues = [new[new_owner == p] for p in range(N)]
    return LevelPlan(K=K, fetch_blocks=fetch_blocks, chunk_fetch=chunk_fetch, gather_lists=gather_lists,
                     gather_bounds=gather_bounds, lists=lists, edges_out=edges_out, portions_out=portions_out,
                     quadwords_out=quadwords_out, put_bytes=put_bytes, edges_in=edges_in,
                     portions_in=portions_in, quadwords_in=quadwords_in, new_in=new_in,
                     next_queues=next_queues, edges_examined=int(examined))


# -------------------------------------------------------------- the algorithm
class CellSPE(Algorithm):
    """Algorithm 3 on N SPEs; ``overlapped`` selects the Fig. 4 schedule."""

    paper = "001"
    directed_graphs = True  # the paper's graphs: E_v as generated (GraphSpec.directed)
    requires = ("spe", "dma")

    def __init__(self, name: str, overlapped: bool):
        self.name = name
        self.overlapped = overlapped
        self._layouts = LayoutCache()

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
        spe = machine.section("spe")
        return self._layouts.get(graph, (N, spe), lambda: build_layout(graph, N, spe))

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
        # per SPE, Python floats while a level runs (its record takes numpy's mean and max)
        self.busy = [0.0] * self.N
        self.transfer_wait = [0.0] * self.N  # time each SPE stalled on a DMA or put
        self.comm = 0.0
        self.engines = self.ctx.devices["dma"]
        self.others = [[p for p in range(self.N) if p != rank] for rank in range(self.N)]
        cyc = self.spe.cycles
        self.fetch_issue_s = self.seconds(cyc.fetch.cycles(transfers=1))
        self.commit_issue_s = self.seconds(cyc.commit.cycles(transfers=1))
        self.alltoall_issue_s = self.seconds(cyc.alltoall.cycles(transfers=1))
        self._new_plan()

    # ------------------------------------------------------------- helpers
    def _new_plan(self) -> None:
        self.plan = plan_level(self.graph, self.layout, self.queues, self.visited, self.parent, self.spe)
        K, N = self.plan.K, self.N
        env = self.env
        self.bitmaps_pending = [N] * K  # per round, the SPEs whose bitmap step has not ended
        self.qin_waiters: list[list[simpy.Event]] = [[] for _ in range(K)]
        self.incoming = [[env.event() for _ in range(N)] for _ in range(K)]
        self.incoming_count = [[0] * N for _ in range(K)]
        # numpy, not Python floats: the guard timers' delays are numpy floats,
        # and so are the simulated times that follow from them (a trace rounds
        # numpy and Python floats differently in the last digit)
        self.incoming_last = np.zeros((K, N))
        # The step durations of every SPE in every round, priced in one call
        # each (StepCost.cycles on arrays, element by element the same sum as
        # on one SPE's counts), and each SPE's put sizes to the others; the
        # simpy processes read them as Python floats.
        plan = self.plan
        cyc = self.spe.cycles
        self.gather_issue_s = self.seconds(cyc.gather.cycles(lists=plan.lists, transfers=1)).tolist()
        self.dispatch_s = self.seconds(cyc.dispatch.cycles(
            edges=plan.edges_out, lists=plan.lists, portions=plan.portions_out,
            quadwords=plan.quadwords_out)).tolist()
        self.bitmap_s = self.seconds(cyc.bitmap.cycles(
            edges=plan.edges_in, lists=0, portions=plan.portions_in, quadwords=plan.quadwords_in)).tolist()
        self.put_sizes = [plan.put_bytes[:, rank, self.others[rank]] for rank in range(N)]
        self.puts = 0
        self.put_bytes = 0.0
        self.commit_offset = np.zeros(N)

    def seconds(self, cycles):
        """SPU cycles (a number or an array) in seconds."""
        if isinstance(cycles, np.ndarray):
            return cycles / self.clock
        return float(cycles) / self.clock

    def compute(self, rank: int, kind: str, duration: float):
        """The SPU of ``rank`` works for ``duration`` seconds."""
        self.busy[rank] += duration
        if duration > 0:
            start = self.env.now
            yield self.env.timeout(duration)
            if self.recorder.enabled:  # (spans nobody keeps are not built: a call per step)
                self.recorder.record(rank, "cpu", start, start + duration, kind, level=self.level)

    def wait(self, rank: int, event, what: str):
        start = self.env.now
        if not event.processed:
            yield event
        if self.env.now > start:
            self.transfer_wait[rank] += self.env.now - start
            if self.recorder.enabled:
                self.recorder.record(rank, "cpu", start, self.env.now, "wait", on=what, level=self.level)
        return event.value if event.processed or event.triggered else None

    def fetch(self, rank: int, index: int):
        """Issue the DMA of bQ block ``index`` (the SPU spends the fetch
        step's cycles on it) and return its transfer process."""
        engine = self.engines[rank]
        yield from self.compute(rank, "fetch-issue", self.fetch_issue_s)
        return self.env.process(engine.transfer(float(self.plan.fetch_blocks[rank][index]), kind="fetch"))

    def gather(self, rank: int, t: int):
        sizes = self.plan.gather_sizes(rank, t)
        engine = self.engines[rank]
        if len(sizes) == 0:
            return self.env.timeout(0)
        return self.env.process(engine.transfer_list(sizes, kind="gather"))

    def put(self, rank: int, t: int) -> simpy.Event:
        """Issue the fenced put list of round t; each receiver's incoming
        event fires when its last guard of the round has arrived."""
        others = self.others[rank]
        sizes = self.put_sizes[rank][t]
        arrivals = self.engines[rank].reserve_put_list(self.ctx.network, others, sizes, self.spe.guard_bytes)
        nbytes = float(sizes.sum())
        self.puts += len(others)
        self.put_bytes += nbytes
        for p, arrival in zip(others, arrivals.tolist()):
            self._arrived(t, p, arrival)
        now = self.env.now
        end = float(arrivals.max(initial=now))
        if end > now:
            self.recorder.record(rank, "dma", now, end, "alltoall", bytes=nbytes, level=self.level)
        return self.env.timeout(end - now)

    def _arrived(self, t: int, p: int, arrival: float) -> None:
        count = self.incoming_count[t]
        count[p] += 1
        self.incoming_last[t, p] = max(self.incoming_last[t, p], arrival)
        if count[p] == self.N - 1:
            event = self.incoming[t][p]
            timer = self.env.timeout(max(0.0, self.incoming_last[t, p] - self.env.now))
            timer.callbacks.append(lambda _e: event.succeed())

    def _bitmap_done(self, t: int) -> None:
        """An SPE has ended its bitmap step of round t: an event, so that
        the count of round t drops when simpy processes it."""
        done = self.env.event()
        done.callbacks.append(lambda _event: self._bitmap_processed(t))
        done.succeed()

    def _bitmap_processed(self, t: int) -> None:
        self.bitmaps_pending[t] -= 1
        if self.bitmaps_pending[t] == 0:
            for waiter in self.qin_waiters[t]:
                waiter.succeed()

    def _qin_free(self, t: int) -> simpy.Event:
        """Event: every SPE has ended its bitmap step of round t, so every
        Qin may take round t + 1. What simpy.AllOf of the SPEs' bitmap
        events does, event for event (it fires when the last of them is
        processed, the waiters in the order they asked), without an N-event
        condition per SPE and round."""
        free = self.env.event()
        if self.bitmaps_pending[t] == 0:
            free.succeed()
        else:
            self.qin_waiters[t].append(free)
        return free

    def commit(self, rank: int, t: int, pending: list):
        """Commit bQnext of round t in buffer-sized pieces; wait for the
        other buffer's commit before reusing it. Qnext grows at arbitrary
        offsets, so each piece is widened to whole aligned lines (its padding
        is rewritten by the next commit, 001, 3 Commit)."""
        nbytes = self.plan.new_in[t, rank] * self.spe.vertex_code_bytes
        piece = self.spe.bqnext_buffer_bytes
        align = self.dma_model.alignment_bytes
        engine = self.engines[rank]
        while nbytes > 0:
            chunk = min(piece, nbytes)
            nbytes -= chunk
            if len(pending) >= 2:
                yield from self.wait(rank, pending.pop(0), "commit buffer")
            head = self.commit_offset[rank] % align
            span = np.ceil((head + chunk) / align) * align
            self.commit_offset[rank] += chunk
            yield from self.compute(rank, "commit-issue", self.commit_issue_s)
            pending.append(self.env.process(engine.transfer(float(span), kind="commit")))

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
        fetch_state = {"ready": 0, "issued": {}}
        if len(plan.fetch_blocks[rank]):
            fetch_state["issued"][0] = yield from self.fetch(rank, 0)
        gathers = {}
        commits: list = []
        put_done = None
        if K:
            yield from self._fetch_until(rank, fetch_state, plan.chunk_fetch[0, rank])
            yield from self.compute(rank, "gather-issue", self.gather_issue_s[0][rank])
            gathers[0] = self.gather(rank, 0)
        for t in range(K + 1):
            if t < K:
                yield from self.wait(rank, gathers.pop(t), "gather")
                if t + 1 < K:
                    yield from self._fetch_until(rank, fetch_state, plan.chunk_fetch[t + 1, rank])
                    yield from self.compute(rank, "gather-issue", self.gather_issue_s[t + 1][rank])
                    gathers[t + 1] = self.gather(rank, t + 1)
                if put_done is not None:
                    yield from self.wait(rank, put_done, "Qout free")
                yield from self.compute(rank, "dispatch", self.dispatch_s[t][rank])
            if t >= 1:
                if self.N > 1:
                    yield from self.wait(rank, self.incoming[t - 1][rank], "guards")
                yield from self.compute(rank, "bitmap", self.bitmap_s[t - 1][rank])
                self._bitmap_done(t - 1)
                yield from self.commit(rank, t - 1, commits)
            if t < K:
                if t >= 1 and self.N > 1:
                    yield from self.wait(rank, self._qin_free(t - 1), "Qin free")
                yield from self.compute(rank, "alltoall-issue", self.alltoall_issue_s)
                put_done = self.put(rank, t)
        for event in commits:
            yield from self.wait(rank, event, "commit")
        if put_done is not None:
            yield from self.wait(rank, put_done, "put")

    def level_bsp(self, rank: int):
        plan = self.plan
        fetch_state = {"ready": 0, "issued": {}}
        for t in range(plan.K):
            # 1. Fetch (waited for, no prefetch beyond what the step needs)
            while fetch_state["ready"] < plan.chunk_fetch[t, rank]:
                j = fetch_state["ready"]
                issued = yield from self.fetch(rank, j)
                yield from self.wait(rank, issued, "fetch")
                fetch_state["ready"] += 1
            # 2. Gather
            yield from self.compute(rank, "gather-issue", self.gather_issue_s[t][rank])
            yield from self.wait(rank, self.gather(rank, t), "gather")
            # 3. Dispatch
            yield from self.compute(rank, "dispatch", self.dispatch_s[t][rank])
            yield from self._barrier(rank)
            # 4. All-to-all
            yield from self.compute(rank, "alltoall-issue", self.alltoall_issue_s)
            done = self.put(rank, t)
            yield from self.wait(rank, done, "put")
            if self.N > 1:
                yield from self.wait(rank, self.incoming[t][rank], "guards")
            # 5. Bitmap
            yield from self.compute(rank, "bitmap", self.bitmap_s[t][rank])
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
        busy, transfer_wait = np.array(self.busy), np.array(self.transfer_wait)
        compute_mean = float(busy.mean())
        # Communication: the SPEs' mean stall on transfers (DMA, puts and their
        # guards) plus the closing allreduce; the rest is barrier waiting.
        comm = float(transfer_wait.mean()) + closing.cost_s
        self.records.append(LevelRecord(
            root=self.root, level=self.level, direction="top-down",
            frontier_vertices=int(sum(len(q) for q in self.queues)),
            edges_examined=plan.edges_examined, messages=self.puts, bytes=self.put_bytes,
            time_s=time_s, compute_s=compute_mean, communication_s=comm,
            synchronisation_s=max(time_s - compute_mean - comm, 0.0),
            compute_max_s=float(busy.max()),
            bottleneck="compute" if busy.max() >= comm else "dma",
        ))
        self.ctx.recorder.level_done(self.records[-1])
        self.queues = plan.next_queues
        self.level += 1
        self.level_start = env.now
        self.busy = [0.0] * self.N
        self.transfer_wait = [0.0] * self.N
        self.done = int(closing.value[0]) == 0
        if not self.done:
            self._new_plan()

    def execute(self) -> RootRun:
        for rank in range(self.N):
            self.env.process(self.spe_program(rank))
        run_to_end(self.env)
        return RootRun(root=self.root, parent=self.parent, time_s=self.env.now, levels=self.records)
