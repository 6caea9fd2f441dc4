#!/usr/bin/env python3
"""Charts of ``kvpool bench compare``: reads ``results.json`` and writes the PNGs that ``docs/benchmarks.md`` shows.

Usage: report.py RESULTS_JSON OUTPUT_DIR. Every figure is the median over the rounds; error bars span min-max.
"""

from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

STYLE = {
    "kvpool": ("#1f77b4", "o", "-"),
    "kvpool-r2": ("#4fa3e0", "o", "--"),
    "kvpool-py": ("#17becf", "s", "-"),
    "kvpool-sendfile": ("#9467bd", "o", ":"),
    "memcached": ("#2ca02c", "^", "-"),
    "redis": ("#d62728", "v", "-"),
    "mooncake": ("#ff7f0e", "D", "-"),
    "loopback-stream": ("#555555", "", "--"),
    "nio-rr": ("#999999", "", "-."),
    "memcpy": ("#bbbbbb", "", ":"),
}


def style(name: str):
    return STYLE.get(name, ("#8c564b", "x", "-"))


class Results:
    def __init__(self, path: Path):
        self.data = json.loads(path.read_text())
        self.workloads = {w["id"]: w for w in self.data["workloads"]}
        self.targets = [t["name"] for t in self.data["targets"]]
        self.by = {}
        for m in self.data["measurements"]:
            self.by.setdefault((m["workload"], m["target"], m["op"]), []).append(m)

    def values(self, workload: str, target: str, op: str, field):
        ms = self.by.get((workload, target, op), [])
        return [field(m) for m in ms]

    def spread(self, workload: str, target: str, op: str, field):
        v = self.values(workload, target, op, field)
        if not v:
            return None
        return statistics.median(v), min(v), max(v)

    def single(self, size: int, clients: int):
        for w in self.data["workloads"]:
            if w["kind"] == "SINGLE" and w["valueSize"] == size and w["clients"] == clients:
                return w["id"]
        return None


def size_label(n: int) -> str:
    return f"{n >> 20} MiB" if n >= 1 << 20 else f"{n >> 10} KiB"


def lines(ax, r: Results, points, op: str, xlabels):
    """One line per target over the workloads in ``points`` (None where a workload did not run)."""
    for t in r.targets:
        if t == "kvpool-master":
            continue
        t_op = "copy" if t == "memcpy" else op
        xs, ys, lo, hi = [], [], [], []
        for x, wid in enumerate(points):
            s = r.spread(wid, t, t_op, lambda m: m["gbps"]) if wid else None
            if s:
                xs.append(x)
                ys.append(s[0])
                lo.append(s[0] - s[1])
                hi.append(s[2] - s[0])
        if not xs:
            continue
        color, marker, ls = style(t)
        ax.errorbar(xs, ys, yerr=[lo, hi], label=t, color=color, marker=marker or None, linestyle=ls, capsize=3)
    ax.set_xticks(range(len(xlabels)))
    ax.set_xticklabels(xlabels)
    ax.set_ylabel("GB/s (median, min-max)")
    ax.set_yscale("log")
    ax.grid(True, which="both", alpha=0.3)
    ax.set_title(op)


def throughput_vs_size(r: Results, out: Path):
    sizes = [64 << 10, 1 << 20, 4 << 20]
    points = [r.single(s, 4) for s in sizes]
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.8))
    for ax, op in zip(axes, ("put", "get")):
        lines(ax, r, points, op, [size_label(s) for s in sizes])
        ax.set_xlabel("value size (4 clients)")
    axes[1].legend(fontsize=8, loc="lower right")
    fig.suptitle("Throughput vs value size, 4 clients, loopback")
    fig.tight_layout()
    fig.savefig(out / "throughput-vs-size.png", dpi=110)
    plt.close(fig)


def throughput_vs_clients(r: Results, out: Path):
    clients = [1, 4, 8]
    points = [r.single(1 << 20, c) for c in clients]
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.8))
    for ax, op in zip(axes, ("put", "get")):
        lines(ax, r, points, op, [str(c) for c in clients])
        ax.set_xlabel("clients (1 MiB values)")
    axes[1].legend(fontsize=8, loc="lower right")
    fig.suptitle("Throughput vs clients, 1 MiB values, loopback")
    fig.tight_layout()
    fig.savefig(out / "throughput-vs-clients.png", dpi=110)
    plt.close(fig)


def stores(r: Results, wid: str, op: str):
    return [t for t in r.targets if t not in ("memcpy", "kvpool-master", "loopback-stream")
            and r.by.get((wid, t, op))]


def latency(r: Results, out: Path):
    wid = r.single(1 << 20, 4)
    if not wid:
        return
    fig, axes = plt.subplots(1, 2, figsize=(13, 4.8))
    names = ["p50", "p90", "p99", "p99.9"]
    for ax, op in zip(axes, ("put", "get")):
        ts = stores(r, wid, op)
        width = 0.8 / max(1, len(ts))
        for i, t in enumerate(ts):
            med = [statistics.median(r.values(wid, t, op, lambda m, k=k: m["latencyMicros"][k])) for k in range(4)]
            color = style(t)[0]
            ax.bar([x + i * width for x in range(4)], med, width, label=t, color=color)
        ax.set_xticks([x + 0.4 - width / 2 for x in range(4)])
        ax.set_xticklabels(names)
        ax.set_yscale("log")
        ax.set_ylabel("µs per operation (median of rounds)")
        ax.set_title(op)
        ax.grid(True, axis="y", which="both", alpha=0.3)
    axes[1].legend(fontsize=8)
    fig.suptitle("Latency percentiles, 1 MiB values, 4 clients")
    fig.tight_layout()
    fig.savefig(out / "latency.png", dpi=110)
    plt.close(fig)


def cpu(r: Results, out: Path):
    wid = r.single(1 << 20, 4)
    if not wid:
        return
    fig, axes = plt.subplots(1, 2, figsize=(13, 4.8))
    palette = {"client": "#1f77b4", "master": "#ff7f0e", "storage": "#2ca02c", "redis-server": "#d62728",
               "memcached": "#9467bd", "client+server": "#7f7f7f"}
    for ax, op in zip(axes, ("put", "get")):
        ts = [t for t in stores(r, wid, op)]
        seen = set()
        for i, t in enumerate(ts):
            ms = r.by[(wid, t, op)]
            groups = list(ms[0]["cpuMicrosPerOp"].keys())
            bottom = 0.0
            for g in groups:
                v = statistics.median(m["cpuMicrosPerOp"].get(g, 0.0) for m in ms)
                ax.bar(i, v, bottom=bottom, color=palette.get(g, "#8c564b"), label=g if g not in seen else None)
                seen.add(g)
                bottom += v
            ax.text(i, bottom, f"{bottom:.0f}", ha="center", va="bottom", fontsize=8)
        ax.set_xticks(range(len(ts)))
        ax.set_xticklabels(ts, rotation=30, ha="right")
        ax.set_ylabel("CPU µs per operation (median of rounds)")
        ax.set_title(op)
        ax.legend(fontsize=8)
    fig.suptitle("CPU per operation by process, 1 MiB values, 4 clients")
    fig.tight_layout()
    fig.savefig(out / "cpu.png", dpi=110)
    plt.close(fig)


def batch(r: Results, out: Path):
    wids = [w["id"] for w in r.data["workloads"] if w["kind"] == "BATCH"]
    if not wids:
        return
    fig, axes = plt.subplots(1, 2, figsize=(13, 4.8))
    for ax, op in zip(axes, ("put", "get")):
        ts = [t for t in r.targets if any(r.by.get((w, t, op)) for w in wids)]
        width = 0.8 / max(1, len(ts))
        for i, t in enumerate(ts):
            xs, ys, lo, hi = [], [], [], []
            for x, w in enumerate(wids):
                s = r.spread(w, t, op, lambda m: m["gbps"])
                if s:
                    xs.append(x + i * width)
                    ys.append(s[0])
                    lo.append(s[0] - s[1])
                    hi.append(s[2] - s[0])
            ax.bar(xs, ys, width, yerr=[lo, hi], label=t, color=style(t)[0], capsize=2)
        ax.set_xticks([x + 0.4 - width / 2 for x in range(len(wids))])
        ax.set_xticklabels([r.workloads[w]["label"].replace(" batch", "\nbatch") for w in wids], fontsize=8)
        ax.set_ylabel("GB/s (median, min-max)")
        ax.set_title(op)
        ax.grid(True, axis="y", alpha=0.3)
    axes[1].legend(fontsize=8)
    fig.suptitle("Inference-shaped batches: a request's prefix of blocks as one request")
    fig.tight_layout()
    fig.savefig(out / "batch.png", dpi=110)
    plt.close(fig)


def metadata(r: Results, out: Path):
    metas = [w for w in r.data["workloads"] if w["kind"] == "META"]
    if not metas or not any(r.by.get((w["id"], "kvpool-master", "op")) for w in metas):
        return
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5))
    ops = []
    for w in metas:
        name = w["label"].rsplit(" x ", 1)[0]
        if name not in ops:
            ops.append(name)
    for name in ops:
        ws = [w for w in metas if w["label"].rsplit(" x ", 1)[0] == name]
        xs = [w["clients"] for w in ws]
        thr = [r.spread(w["id"], "kvpool-master", "op", lambda m: m["opsPerSecond"]) for w in ws]
        cpu_m = [r.spread(w["id"], "kvpool-master", "op", lambda m: m["cpuMicrosPerOp"].get("master", 0.0))
                 for w in ws]
        pts = [(x, t, c) for x, t, c in zip(xs, thr, cpu_m) if t]
        if not pts:
            continue
        axes[0].errorbar([p[0] for p in pts], [p[1][0] for p in pts],
                         yerr=[[p[1][0] - p[1][1] for p in pts], [p[1][2] - p[1][0] for p in pts]], marker="o",
                         capsize=3, label=name)
        axes[1].plot([p[0] for p in pts], [p[2][0] for p in pts], marker="o", label=name)
    axes[0].set_xlabel("clients")
    axes[0].set_ylabel("operations/s (median, min-max)")
    axes[0].set_title("throughput")
    axes[1].set_xlabel("clients")
    axes[1].set_ylabel("master CPU µs per operation")
    axes[1].set_title("master CPU per operation")
    for ax in axes:
        ax.set_xticks([1, 4, 8])
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle("kvpool master: metadata requests")
    fig.tight_layout()
    fig.savefig(out / "metadata.png", dpi=110)
    plt.close(fig)


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: report.py RESULTS_JSON OUTPUT_DIR")
    r = Results(Path(sys.argv[1]))
    out = Path(sys.argv[2])
    out.mkdir(parents=True, exist_ok=True)
    for chart in (throughput_vs_size, throughput_vs_clients, latency, cpu, batch, metadata):
        chart(r, out)
    print(f"charts: {out}")


if __name__ == "__main__":
    main()
