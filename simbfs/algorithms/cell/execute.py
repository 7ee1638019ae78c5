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

Local store (machine file ``spe:``)
    Code and stack, 2 x bQ, 2 x bG, Qout, Qin, 2 x bQnext and
    the bitmap partition must fit, and the bitmap may not exceed
    ``bitmap_max`` (160 KB: about 10 M vertices per Cell): violating either
    is a UserError, before anything is simulated.

Modules
    work.py: the graph as stored for the SPEs and a level's plan, counted
    per round and SPE on the real graph (kernels.py); pricing.py: each
    step's SPU time (``price_level``); this module: the local-store check,
    the algorithm and the executed run (:class:`CellSearch`): one simpy
    process per SPE, charged per iteration: one event per DMA command, per
    compute step and per wait, never per edge.
"""

from __future__ import annotations

import numpy as np
import simpy

from ...engine import NULL_RECORDER, Simulation
from ...errors import UserError
from ...graph import Graph
from ...records import LevelRecord, RootRun
from ...units import format_quantity
from ..base import Algorithm, LayoutCache
from ..search import RootSearch
from .pricing import LevelPrice, price_level
from .work import Layout, LevelPlan, build_layout, plan_level


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
        return CellSearch(self, sim, graph, root, recorder).execute()


class CellSearch(RootSearch):
    """One root's search on N SPEs: the search state is RootSearch's (the
    frontier is the SPEs' queues Q_i, in order), and a level ends through
    close_level when the closing allreduce completes. Each SPE runs the
    schedule of its algorithm (level_bsp or level_overlapped)."""

    def __init__(self, algorithm: CellSPE, sim: Simulation, graph: Graph, root: int, recorder=NULL_RECORDER):
        super().__init__(sim, graph, root, recorder)
        self.algorithm = algorithm
        self.layout = algorithm.layout(graph, sim.machine, self.N)
        self.spe = sim.machine.section("spe")
        self.dma_model = sim.machine.section("dma")
        self.graph = graph
        self.env = self.ctx.env
        self.clock = sim.machine.node.clock_hz
        self.plan: LevelPlan | None = None
        self.price: LevelPrice | None = None
        # per SPE, Python floats while a level runs (its record takes numpy's mean and max)
        self.busy = [0.0] * self.N
        self.transfer_wait = [0.0] * self.N  # time each SPE stalled on a DMA or put
        self.engines = self.ctx.devices["dma"]
        self.others = [[p for p in range(self.N) if p != rank] for rank in range(self.N)]
        self._new_plan()

    # ------------------------------------------------------------- helpers
    def _new_plan(self) -> None:
        self.plan = plan_level(self.graph, self.layout, self.frontier, self.visited, self.spe)
        self.price = price_level(self.spe, self.clock, self.plan)
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
        # each SPE's put sizes to the others
        self.put_sizes = [self.plan.put_bytes[:, rank, self.others[rank]] for rank in range(N)]
        self.puts = 0
        self.put_bytes = 0.0
        self.commit_offset = np.zeros(N)

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
        yield from self.compute(rank, "fetch-issue", self.price.fetch_issue_s)
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
            yield from self.compute(rank, "commit-issue", self.price.commit_issue_s)
            pending.append(self.env.process(engine.transfer(float(span), kind="commit")))

    # ------------------------------------------------------- SPE programs
    def node_program(self, rank: int):
        """SPE ``rank``: per level, its schedule, then the closing allreduce."""
        coll = self.ctx.collectives
        while not self.done:
            if self.algorithm.overlapped:
                yield from self.level_overlapped(rank)
            else:
                yield from self.level_bsp(rank)
            count = np.array([self.plan.claimed[rank]], dtype=np.int64)
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
        plan, price = self.plan, self.price
        K = plan.K
        fetch_state = {"ready": 0, "issued": {}}
        if len(plan.fetch_blocks[rank]):
            fetch_state["issued"][0] = yield from self.fetch(rank, 0)
        gathers = {}
        commits: list = []
        put_done = None
        if K:
            yield from self._fetch_until(rank, fetch_state, plan.chunk_fetch[0, rank])
            yield from self.compute(rank, "gather-issue", price.gather_issue_s[0][rank])
            gathers[0] = self.gather(rank, 0)
        for t in range(K + 1):
            if t < K:
                yield from self.wait(rank, gathers.pop(t), "gather")
                if t + 1 < K:
                    yield from self._fetch_until(rank, fetch_state, plan.chunk_fetch[t + 1, rank])
                    yield from self.compute(rank, "gather-issue", price.gather_issue_s[t + 1][rank])
                    gathers[t + 1] = self.gather(rank, t + 1)
                if put_done is not None:
                    yield from self.wait(rank, put_done, "Qout free")
                yield from self.compute(rank, "dispatch", price.dispatch_s[t][rank])
            if t >= 1:
                if self.N > 1:
                    yield from self.wait(rank, self.incoming[t - 1][rank], "guards")
                yield from self.compute(rank, "bitmap", price.bitmap_s[t - 1][rank])
                self._bitmap_done(t - 1)
                yield from self.commit(rank, t - 1, commits)
            if t < K:
                if t >= 1 and self.N > 1:
                    yield from self.wait(rank, self._qin_free(t - 1), "Qin free")
                yield from self.compute(rank, "alltoall-issue", price.alltoall_issue_s)
                put_done = self.put(rank, t)
        for event in commits:
            yield from self.wait(rank, event, "commit")
        if put_done is not None:
            yield from self.wait(rank, put_done, "put")

    def level_bsp(self, rank: int):
        plan, price = self.plan, self.price
        fetch_state = {"ready": 0, "issued": {}}
        for t in range(plan.K):
            # 1. Fetch (waited for, no prefetch beyond what the step needs)
            while fetch_state["ready"] < plan.chunk_fetch[t, rank]:
                j = fetch_state["ready"]
                issued = yield from self.fetch(rank, j)
                yield from self.wait(rank, issued, "fetch")
                fetch_state["ready"] += 1
            # 2. Gather
            yield from self.compute(rank, "gather-issue", price.gather_issue_s[t][rank])
            yield from self.wait(rank, self.gather(rank, t), "gather")
            # 3. Dispatch
            yield from self.compute(rank, "dispatch", price.dispatch_s[t][rank])
            yield from self._barrier(rank)
            # 4. All-to-all
            yield from self.compute(rank, "alltoall-issue", price.alltoall_issue_s)
            done = self.put(rank, t)
            yield from self.wait(rank, done, "put")
            if self.N > 1:
                yield from self.wait(rank, self.incoming[t][rank], "guards")
            # 5. Bitmap
            yield from self.compute(rank, "bitmap", price.bitmap_s[t][rank])
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
        """Runs once per level, when the closing allreduce completes and
        before any SPE resumes: record the level, plan the next."""
        plan = self.plan
        time_s = self.env.now - self.level_start
        busy, transfer_wait = np.array(self.busy), np.array(self.transfer_wait)
        compute_mean = float(busy.mean())
        # Communication: the SPEs' mean stall on transfers (DMA, puts and their
        # guards) plus the closing allreduce; the rest is barrier waiting.
        comm = float(transfer_wait.mean()) + closing.cost_s
        record = LevelRecord(
            root=self.root, level=self.level, direction="top-down",
            frontier_vertices=int(len(self.frontier)),
            edges_examined=plan.edges_examined, messages=self.puts, bytes=self.put_bytes,
            time_s=time_s, compute_s=compute_mean, communication_s=comm,
            synchronisation_s=max(time_s - compute_mean - comm, 0.0),
            compute_max_s=float(busy.max()),
            bottleneck="compute" if busy.max() >= comm else "dma",
        )
        self.close_level(record, plan.new_vertices, plan.new_parents)
        self.busy = [0.0] * self.N
        self.transfer_wait = [0.0] * self.N
        if not self.done:
            self._new_plan()
