"""Sunway TaihuLight Fig. 11 (seed 003, 6.1): the four implementations
Relay_CPE (the final version, `lin1d`), Relay_MPE (`lin1d:modules=mpe`),
Direct_CPE (`lin1d:relay=off`) and Direct_MPE (`lin1d:relay=off,modules=mpe`)
at about 16M vertices per node (scale = round(log2(nodes x 2^24))) on 80 to
40,768 nodes.

PROJECTED, every point: these runs are far too large to execute here. Each
is predicted by `simbfs run ... --mode project` (simbfs/algorithms/lin1d/project.py,
docs/background/lin1d.md) from real BFS runs on a scale-18 profile graph.
A variant the model refuses at a size (Direct_CPE beyond 1,025 nodes: the
consumers' scratch pads cannot buffer every destination) is a row with
empty TEPS and the refusal's message; the script prints where each variant
fails. Claims compared: `sunway.cpe_over_mpe` (CPE modules about 10x MPE
modules), `sunway.direct_mpe_limits` (Direct_MPE linear at first, capped at
4,096 nodes, fails at 16,384) and `sunway.direct_cpe_limits` (Direct_CPE
best up to 256 nodes, fails beyond for lack of SPM).

    python experiments/sunway_taihulight/fig11.py [--quick] [--roots 4] [--profile-scale 18] [--out DIR]
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

if not __package__:  # run as a file: make `experiments` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from experiments import lib  # noqa: E402
from experiments.sunway_taihulight import sunway as S  # noqa: E402
from simbfs.claims import claim  # noqa: E402
from simbfs.errors import UserError  # noqa: E402

MACHINE = S.MACHINE
# (the paper's name, the simbfs algorithm)
VARIANTS = (("Relay_CPE", "lin1d"), ("Relay_MPE", "lin1d:modules=mpe"),
            ("Direct_CPE", "lin1d:relay=off"), ("Direct_MPE", "lin1d:relay=off,modules=mpe"))
NODES = (80, 256, 1024, 4096, 16384, 40768)
PER_NODE = 16 * 2**20  # "the vertex number of each node on average is 16 million" (Fig. 11's caption)
# --quick: 2^16 vertices per node (scales 20, 22, 27), projected from scale 12, so it runs in a second or two.
# At scale 14 (2^10 per node on 16 nodes) the modules' inputs are so small that CPE and MPE modules
# cost about the same; 2,048 nodes is there to show a refusal (Direct_CPE).
QUICK = {"nodes": (16, 64, 2048), "per_node": 2**16, "roots": 2, "profile_scale": 12}
CLOSE = 0.8  # what we call "scaling linearly": TEPS per node at least this share of the smallest size's
FALL = 0.05  # what we call TEPS per node "falling": more than this below the previous size's
TIE = 0.01  # ratios within 1% of 1 are ties (below 256 nodes relay changes nothing: one group)
PAPER_DIRECT_MPE_CAP, PAPER_DIRECT_MPE_FAILS, PAPER_DIRECT_CPE_BEST = 4096, 16384, 256


def main(argv=None) -> list[dict]:
    args = S.projected_figure_options(__doc__, argv)
    out = lib.out_dir(args)
    nodes_list = QUICK["nodes"] if args.quick else NODES
    per_node = QUICK["per_node"] if args.quick else PER_NODE
    roots = QUICK["roots"] if args.quick else args.roots
    profile_scale = QUICK["profile_scale"] if args.quick else args.profile_scale
    started = time.time()
    rows = []
    for nodes in nodes_list:
        scale = S.scale_for(nodes, per_node)
        for variant, algorithm in VARIANTS:
            row = {"variant": variant, "algorithm": algorithm, "mode": "projected", "nodes": nodes, "scale": scale,
                   "vertices_per_node": 2**scale / nodes, "roots": roots, "profile_scale": profile_scale}
            try:
                doc = S.project(algorithm, nodes, scale, roots, profile_scale)
            except UserError as error:
                row.update({"harmonic_mean_gteps": "", "gteps_per_node": "", "min_gteps": "", "median_gteps": "",
                            "max_gteps": "", "refused": str(error)})
                print(f"  {nodes:>6} nodes, scale {scale}: {variant:<10} REFUSED by the model", flush=True)
            else:
                teps = doc["teps"]
                row.update({"harmonic_mean_gteps": teps["harmonic_mean"] / 1e9,
                            "gteps_per_node": teps["harmonic_mean"] / 1e9 / nodes,
                            "min_gteps": teps["min"] / 1e9, "median_gteps": teps["median"] / 1e9,
                            "max_gteps": teps["max"] / 1e9, "refused": ""})
                print(f"  {nodes:>6} nodes, scale {scale}: {variant:<10} {row['harmonic_mean_gteps']:10.2f} GTEPS "
                      f"(projected)", flush=True)
            rows.append(row)
    _plot(rows, out / "fig11_techniques.png", profile_scale, per_node)
    lib.write_csv(out / "fig11_techniques.csv", rows)
    _compare(rows, profile_scale, per_node)
    print(f"  {time.time() - started:.0f} s; wrote {out / 'fig11_techniques.csv'}")
    return rows


def _ran(row) -> bool:
    return row["harmonic_mean_gteps"] != ""


def _series(rows, variant):
    return [r for r in rows if r["variant"] == variant]


def _compare(rows, profile_scale, per_node):
    print(f"Fig. 11, PROJECTED from scale-{profile_scale} profiles ({per_node / 2**20:g}M vertices per node; "
          f"GTEPS, harmonic mean)")
    nodes_list = sorted({r["nodes"] for r in rows})
    by = {(r["variant"], r["nodes"]): r for r in rows}
    print("  " + f"{'nodes':>8}" + "".join(f"{v:>12}" for v, _ in VARIANTS))
    for nodes in nodes_list:
        cells = [by[(v, nodes)] for v, _ in VARIANTS]
        print("  " + f"{nodes:>8}" + "".join(f"{c['harmonic_mean_gteps']:>12.2f}" if _ran(c) else f"{'refused':>12}"
                                             for c in cells))
    print("Where each variant fails:")
    for variant, _ in VARIANTS:
        refused = [r for r in _series(rows, variant) if not _ran(r)]
        if not refused:
            print(f"  {variant}: runs at every size ({', '.join(f'{n:,}' for n in nodes_list)} nodes)")
            continue
        ran = [r["nodes"] for r in _series(rows, variant) if _ran(r)]
        where = ", ".join(f"{r['nodes']:,}" for r in refused)
        upto = f" (runs up to {max(ran):,})" if ran else ""
        print(f"  {variant}: refused at {where} nodes{upto}: {refused[0]['refused']}")

    c = claim("sunway.cpe_over_mpe")
    print(f"Comparison with sunway.cpe_over_mpe (003, 6.1, Fig. 11: CPE modules about {c['value']:g}x MPE modules):")
    verdicts = []
    for nodes in nodes_list:
        for kind in ("Relay", "Direct"):
            cpe, mpe = by[(f"{kind}_CPE", nodes)], by[(f"{kind}_MPE", nodes)]
            if _ran(cpe) and _ran(mpe):
                ratio = cpe["harmonic_mean_gteps"] / mpe["harmonic_mean_gteps"]
                result = lib.compare(f"{kind}_CPE/{kind}_MPE {nodes:,}", ratio, c["value"], c.get("tolerance"), "x",
                                     claim_id="sunway.cpe_over_mpe")
                verdicts.append(result["verdict"])
            else:
                missing = " and ".join(r["variant"] for r in (cpe, mpe) if not _ran(r))
                print(f"  {kind}_CPE/{kind}_MPE {nodes:,}: no ratio ({missing} refused)")
    print(f"  sunway.cpe_over_mpe: {verdicts.count('within')} of {len(verdicts)} ratios within "
          f"{c.get('tolerance'):.0%} of {c['value']:g}x")

    print("Comparison with sunway.direct_mpe_limits (003, 6.1: Direct_MPE linear at first, capped at "
          f"{PAPER_DIRECT_MPE_CAP:,} nodes by small messages, fails at {PAPER_DIRECT_MPE_FAILS:,} from MPI "
          f"connection memory; trend):")
    direct_mpe = [r for r in _series(rows, "Direct_MPE") if _ran(r)]
    if direct_mpe:
        first = direct_mpe[0]
        print("  Direct_MPE GTEPS per node (share of the smallest size's): " + "  ".join(
            f"{r['nodes']:,}: {r['gteps_per_node']:.4g} ({r['gteps_per_node'] / first['gteps_per_node']:.0%})"
            for r in direct_mpe))
        linear_to = first["nodes"]
        for r in direct_mpe:
            if r["gteps_per_node"] < CLOSE * first["gteps_per_node"]:
                break
            linear_to = r["nodes"]
        falls = [b["nodes"] for a, b in zip(direct_mpe, direct_mpe[1:])
                 if b["gteps_per_node"] < (1 - FALL) * a["gteps_per_node"]]
        peak = max(direct_mpe, key=lambda r: r["harmonic_mean_gteps"])
        fall_at = ", ".join(f"{n:,}" for n in falls) or "no size"
        lib.trend("sunway.direct_mpe_limits", linear_to > first["nodes"],
                  f"TEPS per node >= {CLOSE:.0%} of the {first['nodes']:,}-node value up to {linear_to:,} nodes; "
                  f"per-node TEPS falls by more than {FALL:.0%} from one size to the next at {fall_at}",
                  label="sunway.direct_mpe_limits, linear at first")
        lib.trend("sunway.direct_mpe_limits", peak["nodes"] == PAPER_DIRECT_MPE_CAP,
                  f"total TEPS peaks at {peak['nodes']:,} nodes ({peak['harmonic_mean_gteps']:.4g} GTEPS; the paper: "
                  f"capped at {PAPER_DIRECT_MPE_CAP:,})", label="sunway.direct_mpe_limits, capped at 4,096 nodes",
                  judged=PAPER_DIRECT_MPE_CAP in {r["nodes"] for r in direct_mpe})
        relay = {r["nodes"]: r for r in _series(rows, "Relay_MPE") if _ran(r)}
        print("  Direct_MPE / Relay_MPE: " + "  ".join(
            f"{r['nodes']:,}: {r['harmonic_mean_gteps'] / relay[r['nodes']]['harmonic_mean_gteps']:.2f}x"
            for r in direct_mpe if r["nodes"] in relay))
    at_fail = by.get(("Direct_MPE", PAPER_DIRECT_MPE_FAILS))
    if at_fail is not None:
        lib.trend("sunway.direct_mpe_limits", not _ran(at_fail),
                  f"Direct_MPE at {PAPER_DIRECT_MPE_FAILS:,} nodes "
                  + (f"runs ({at_fail['harmonic_mean_gteps']:.4g} GTEPS)" if _ran(at_fail)
                     else f"is refused: {at_fail['refused']}"),
                  label=f"sunway.direct_mpe_limits, fails at {PAPER_DIRECT_MPE_FAILS:,} nodes")

    print(f"Comparison with sunway.direct_cpe_limits (003, 6.1: Direct_CPE best up to {PAPER_DIRECT_CPE_BEST} "
          f"nodes, fails beyond for lack of SPM; trend):")
    direct_cpe = _series(rows, "Direct_CPE")
    ran = [r["nodes"] for r in direct_cpe if _ran(r)]
    refused = [r for r in direct_cpe if not _ran(r)]
    beyond = [r["nodes"] for r in direct_cpe if r["nodes"] > PAPER_DIRECT_CPE_BEST]
    if refused:
        names_spm = "scratch pad" in refused[0]["refused"] or "SPM" in refused[0]["refused"]
        upto = f"runs up to {max(ran):,} nodes, " if ran else ""
        lib.trend("sunway.direct_cpe_limits", names_spm and refused[0]["nodes"] == min(beyond, default=None),
                  f"Direct_CPE {upto}refused from {refused[0]['nodes']:,} (the paper: fails beyond "
                  f"{PAPER_DIRECT_CPE_BEST}); the refusal {'names' if names_spm else 'does NOT name'} the scratch "
                  f"pads (SPM)", label=f"sunway.direct_cpe_limits, fails beyond {PAPER_DIRECT_CPE_BEST} nodes for SPM")
    else:
        lib.trend("sunway.direct_cpe_limits", False, f"Direct_CPE runs at every size up to {max(ran):,} nodes",
                  label=f"sunway.direct_cpe_limits, fails beyond {PAPER_DIRECT_CPE_BEST} nodes for SPM",
                  judged=bool(beyond))
    for nodes in ran:
        others = [r for r in rows if r["nodes"] == nodes and _ran(r) and r["variant"] != "Direct_CPE"]
        best = max(others, key=lambda r: r["harmonic_mean_gteps"])
        mine = by[("Direct_CPE", nodes)]["harmonic_mean_gteps"]
        ratio = mine / best["harmonic_mean_gteps"]
        verdict = ("the best" if ratio > 1 + TIE else f"tied with {best['variant']} for the best" if ratio >= 1 - TIE
                   else "not the best")
        lib.trend("sunway.direct_cpe_limits", verdict != "not the best",
                  f"Direct_CPE {mine:.4g} GTEPS, {ratio:.3f}x the best other ({best['variant']}): {verdict}",
                  label=f"sunway.direct_cpe_limits, best at {nodes:,} nodes", judged=nodes <= PAPER_DIRECT_CPE_BEST)


def _plot(rows, path, profile_scale, per_node):
    plt = lib.pyplot()
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for index, (variant, _) in enumerate(VARIANTS):
        mine = _series(rows, variant)
        ran = [r for r in mine if _ran(r)]
        colour = f"C{index}"
        style = "o-" if variant.startswith("Relay") else "s--"  # dashed: visible where Direct equals Relay
        ax.plot([r["nodes"] for r in ran], [r["harmonic_mean_gteps"] for r in ran], style, color=colour,
                label=variant, markersize=5 if variant.startswith("Relay") else 4)
        refused = [r for r in mine if not _ran(r)]
        if refused:
            # a refusal sits at its node count, at the height of the variant's last point
            y = ran[-1]["harmonic_mean_gteps"] if ran else None
            for r in refused:
                if y is not None:
                    ax.plot([r["nodes"]], [y], "X", color=colour, markersize=10)
            if y is not None:
                ax.annotate(f"{variant} refused\n({refused[0]['nodes']:,}+ nodes)", (refused[0]["nodes"], y),
                            textcoords="offset points", xytext=(6, -16), fontsize=7, color=colour)
    ax.plot([], [], "X", color="grey", label="refused by the model")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("nodes")
    ax.set_ylabel("GTEPS (harmonic mean)")
    ax.set_title(f"Fig. 11: techniques, {per_node / 2**20:g}M vertices/node - PROJECTED from scale {profile_scale}",
                 fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    lib.save_figure(fig, path)


if __name__ == "__main__":
    lib.exit_on_user_error(main)
