"""What the steps of one Cell level cost an SPU, as pure functions of counts.

Compute
    Cycles per element for each step (``spe.cycles``): edges, lists,
    portions (non-empty per-SPE parts of a list = queue entries), quadwords
    and DMA commands, at the SPE clock (``node.clock``). The DMA transfers
    themselves are priced by the machine's ``dma:`` engines as the executed
    schedule issues them.

An SPE's busy time in a level is the sum of the steps it runs; which steps
(how many fetches and commits, in what order around the waits) is the
schedule's, so the executed run adds them up as it runs them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .work import LevelPlan


def seconds(cycles, clock_hz: float):
    """SPU cycles (a number or an array) in seconds."""
    if isinstance(cycles, np.ndarray):
        return cycles / clock_hz
    return float(cycles) / clock_hz


@dataclass(frozen=True)
class LevelPrice:
    """Seconds of every SPU step of one level. The steps whose work varies
    are given per round and SPE (``[t][rank]``, Python floats, as the simpy
    processes read them); the DMA issues cost the same every time."""

    fetch_issue_s: float  # issue one bQ fetch
    gather_issue_s: list  # build and issue round t's DMA list
    dispatch_s: list  # split round t's lists into Qout
    alltoall_issue_s: float  # issue one fenced put list
    bitmap_s: list  # test and set the bits of round t's received entries
    commit_issue_s: float  # issue one bQnext commit


def price_level(spe, clock_hz: float, plan: LevelPlan) -> LevelPrice:
    """Every step's seconds for the counts of ``plan``. Each step of every
    SPE in every round is priced in one call (StepCost.cycles on arrays,
    element by element the same sum as on one SPE's counts)."""
    cyc = spe.cycles
    return LevelPrice(
        fetch_issue_s=seconds(cyc.fetch.cycles(transfers=1), clock_hz),
        gather_issue_s=seconds(cyc.gather.cycles(lists=plan.lists, transfers=1), clock_hz).tolist(),
        dispatch_s=seconds(cyc.dispatch.cycles(edges=plan.edges_out, lists=plan.lists, portions=plan.portions_out,
                                               quadwords=plan.quadwords_out), clock_hz).tolist(),
        alltoall_issue_s=seconds(cyc.alltoall.cycles(transfers=1), clock_hz),
        bitmap_s=seconds(cyc.bitmap.cycles(edges=plan.edges_in, lists=0, portions=plan.portions_in,
                                           quadwords=plan.quadwords_in), clock_hz).tolist(),
        commit_issue_s=seconds(cyc.commit.cycles(transfers=1), clock_hz),
    )
