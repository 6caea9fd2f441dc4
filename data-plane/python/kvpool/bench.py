"""``python -m kvpool.bench``: put/get throughput of the Python client next to the Java client's, on the same pool
in the same run.

Workloads: single puts and gets of 1 MiB and 64 KiB values (the Java ``kvpool bench`` workload: N client threads,
a warm-up, timed put rounds with the previous round removed in between, then timed gets of the last round), and a
batch of 64 keys x 256 KiB gathered from / scattered into 8 regions each (``batch_put_from_multi_buffers`` /
``batch_get_into_multi_buffers``, vLLM-Ascend's shape). Decimal GB/s (1e9 bytes per second of wall time), as the
Java bench prints. Without ``--master`` a local pool is started with ``./kvpool local``.
"""

from __future__ import annotations

import argparse
import ctypes
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from . import checksum
from .client import KvPoolClient
from .config import ClientConfig
from .errors import KvPoolError, RemoteError
from .store import KvPoolStore

GB = 1e9
WARMUP_SECONDS = 2.0


def _percentile(samples: list, p: float) -> float:
    if not samples:
        return 0.0
    s = sorted(samples)
    return s[min(len(s) - 1, int(p * len(s)))]


class Phase:
    def __init__(self, name: str, op: str, nbytes: int, seconds: float, latencies: list):
        self.name, self.op, self.nbytes, self.seconds, self.latencies = name, op, nbytes, seconds, latencies

    @property
    def gbps(self) -> float:
        return self.nbytes / self.seconds / GB if self.seconds else 0.0

    def row(self) -> str:
        ops = len(self.latencies)
        return (f"{self.name:<26} {self.op:<4} {self.gbps:8.3f} {ops / self.seconds:10.0f}"
                f" {_percentile(self.latencies, 0.5) * 1e6:9.0f} {_percentile(self.latencies, 0.99) * 1e6:9.0f}")


def _remove(client: KvPoolClient, keys: list, deadline_seconds: float = 60.0) -> None:
    """Removes keys, waiting out the read leases of keys that were just read."""
    pending = list(keys)
    deadline = time.monotonic() + deadline_seconds
    while pending:
        statuses = client.remove_batch(pending)
        pending = [k for k, s in zip(pending, statuses) if s.retryable]
        if pending:
            if time.monotonic() > deadline:
                raise KvPoolError(f"cannot remove {len(pending)} benchmark keys within {deadline_seconds} s")
            time.sleep(0.25)


def _in_parallel(n: int, task) -> None:
    errors: list = []

    def run(i: int) -> None:
        try:
            task(i)
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]


def single_value_phases(master: str, value_size: int, clients: int, keys_per_client: int, seconds: float,
                        replicas: int) -> list:
    """The Java bench's workload on the Python client; returns the put and the get phase."""
    conns = [KvPoolClient(ClientConfig(master, client_id=f"py-bench-{c}", replicas=replicas, timeout=30))
             for c in range(clients)]
    values = [bytearray(os.urandom(value_size)) for _ in range(clients)]
    targets = [bytearray(value_size) for _ in range(clients)]
    phase_seconds = seconds / 2

    def key(rnd: str, c: int, i: int) -> str:
        return f"pybench/{value_size}/{rnd}/c{c}/{i}"

    def put_round(rnd: str, keys: int, latencies: list | None) -> None:
        def task(c: int) -> None:
            value = values[c]
            for i in range(keys):
                value[:8] = (hash((rnd, c, i)) & (2**63 - 1)).to_bytes(8, "little")
                t0 = time.perf_counter()
                conns[c].put(key(rnd, c, i), value)
                if latencies is not None:
                    latencies.append(time.perf_counter() - t0)
        _in_parallel(clients, task)

    def get_until(rnd: str, keys: int, until: float, latencies: list | None) -> None:
        def task(c: int) -> None:
            dst = targets[c]
            i = 0
            while time.perf_counter() < until:
                t0 = time.perf_counter()
                n = conns[c].get_into(key(rnd, c, i), dst)
                if latencies is not None:
                    latencies.append(time.perf_counter() - t0)
                stamp = (hash((rnd, c, i)) & (2**63 - 1)).to_bytes(8, "little")
                if n != value_size or dst[:8] != stamp:
                    raise KvPoolError(f"benchmark read wrong bytes for {key(rnd, c, i)}")
                i = (i + 1) % keys
        _in_parallel(clients, task)

    def remove_round(rnd: str, keys: int) -> None:
        _in_parallel(clients, lambda c: _remove(conns[c], [key(rnd, c, i) for i in range(keys)]))

    try:
        warm = min(8, keys_per_client)
        start = time.perf_counter()
        rnd = 0
        while time.perf_counter() - start < WARMUP_SECONDS:
            if rnd:
                remove_round(f"w{rnd - 1}", warm)
            put_round(f"w{rnd}", warm, None)
            rnd += 1
        get_until(f"w{rnd - 1}", warm, time.perf_counter() + WARMUP_SECONDS, None)

        put_latencies: list = []
        put_wall = 0.0
        rnd = 0
        while put_wall < phase_seconds:
            if rnd:
                remove_round(f"r{rnd - 1}", keys_per_client)
            t0 = time.perf_counter()
            put_round(f"r{rnd}", keys_per_client, put_latencies)
            put_wall += time.perf_counter() - t0
            rnd += 1
        get_latencies: list = []
        t0 = time.perf_counter()
        get_until(f"r{rnd - 1}", keys_per_client, t0 + phase_seconds, get_latencies)
        get_wall = time.perf_counter() - t0
        name = f"python {_size(value_size)}"
        return [Phase(name, "put", len(put_latencies) * value_size, put_wall, put_latencies),
                Phase(name, "get", len(get_latencies) * value_size, get_wall, get_latencies)]
    finally:
        for c in conns:
            c.close()


def multi_buffer_batch_phases(master: str, keys: int, value_size: int, regions: int, seconds: float,
                              replicas: int) -> list:
    """Batches of ``keys`` values, each gathered from ``regions`` raw-address regions, through the Mooncake API."""
    store = KvPoolStore()
    if store.setup(None, master_server_addr=master, replicas=replicas, timeout=30.0) != 0:
        raise KvPoolError(f"cannot connect to {master}")
    region = value_size // regions
    src = [(ctypes.c_ubyte * (keys * region)).from_buffer_copy(os.urandom(keys * region)) for _ in range(regions)]
    dst = [(ctypes.c_ubyte * (keys * region))() for _ in range(regions)]
    addrs = [[ctypes.addressof(layer) + k * region for layer in src] for k in range(keys)]
    dst_addrs = [[ctypes.addressof(layer) + k * region for layer in dst] for k in range(keys)]
    sizes = [[region] * regions for _ in range(keys)]
    phase_seconds = seconds / 2
    try:
        rnd = 0
        put_latencies: list = []
        put_wall = 0.0
        warm_until = time.perf_counter() + WARMUP_SECONDS
        while True:
            names = [f"pybench/batch/{rnd}/{k}" for k in range(keys)]
            t0 = time.perf_counter()
            results = store.batch_put_from_multi_buffers(names, addrs, sizes)
            elapsed = time.perf_counter() - t0
            if any(r != 0 for r in results):
                raise KvPoolError(f"batch put failed: {sorted(set(results))}")
            warm = time.perf_counter() < warm_until
            if not warm:
                put_wall += elapsed
                put_latencies.append(elapsed)
            if not warm and put_wall >= phase_seconds:
                break
            _remove(store.client, names)
            rnd += 1
        get_latencies: list = []
        for timed in (False, True):
            until = time.perf_counter() + (phase_seconds if timed else WARMUP_SECONDS)
            start = time.perf_counter()
            while time.perf_counter() < until:
                t0 = time.perf_counter()
                got = store.batch_get_into_multi_buffers(names, dst_addrs, sizes)
                if timed:
                    get_latencies.append(time.perf_counter() - t0)
                if got != [value_size] * keys:
                    raise KvPoolError(f"batch get failed: {sorted(set(got))}")
            get_wall = time.perf_counter() - start
        if bytes(dst[0]) != bytes(src[0]):
            raise KvPoolError("batch get returned other bytes than were put")
        name = f"python batch {keys}x{_size(value_size)}"
        return [Phase(name, "put", len(put_latencies) * keys * value_size, put_wall, put_latencies),
                Phase(name, "get", len(get_latencies) * keys * value_size, get_wall, get_latencies)]
    finally:
        try:
            store.remove_all()
        except RemoteError:
            pass
        store.close()


def measure_checksums() -> None:
    """CRC32C throughput of the crc32c wheel (when installed) and of the pure-Python fallbacks, best of 5."""
    data = os.urandom(1 << 20)
    rows = [("pure python, lanes", checksum._pure_crc32c, len(data)),
            ("pure python, byte table", lambda d: checksum._update_bytewise(0, d), 64 << 10)]
    if checksum._wheel_crc32c is not None:
        rows.insert(0, ("crc32c wheel", checksum._wheel_crc32c, len(data)))
    for name, f, size in rows:
        part = data[:size]
        best = float("inf")
        for _ in range(5):
            t0 = time.perf_counter()
            f(part)
            best = min(best, time.perf_counter() - t0)
        print(f"{name:<26} {size / best / 1e6:10.1f} MB/s  ({size >> 10} KiB)")


_JAVA_ROW = re.compile(r"^kvpool\s+(put|get)\s+([\d.]+)\s+(\d+)\s+(\d+)\s+(\d+)")


def java_phases(kvpool: Path, master: str, value_size: int, clients: int, seconds: int, replicas: int) -> list:
    """The Java client's figures from ``./kvpool bench --master`` against the same pool."""
    command = [str(kvpool), "bench", "--master", master, "--value-size", _size(value_size), "--clients", str(clients),
               "--seconds", str(seconds), "--replicas", str(replicas)]
    done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=600,
                          env={**os.environ, "PATH": _path_without_redis()})
    if done.returncode != 0:
        raise KvPoolError(f"{' '.join(command)} failed:\n{done.stdout}")
    phases = []
    for line in done.stdout.splitlines():
        m = _JAVA_ROW.match(line)
        if m:
            phase = Phase(f"java {_size(value_size)}", m.group(1), 0, 1.0, [])
            phase.java = (float(m.group(2)), float(m.group(3)), float(m.group(4)), float(m.group(5)))
            phases.append(phase)
    if len(phases) != 2:
        raise KvPoolError(f"cannot find the kvpool rows in the Java bench output:\n{done.stdout}")
    return phases


def _path_without_redis() -> str:
    """The Java bench also measures Redis when redis-server is on PATH; not needed here."""
    redis = shutil.which("redis-server")
    parts = os.environ.get("PATH", "").split(os.pathsep)
    return os.pathsep.join(p for p in parts if not redis or os.path.dirname(redis) != p)


def _size(n: int) -> str:
    return f"{n >> 20}MiB" if n >= 1 << 20 and n % (1 << 20) == 0 else f"{n >> 10}KiB"


def _find_kvpool(explicit: str | None) -> Path:
    if explicit:
        return Path(explicit)
    for folder in [Path.cwd(), *Path.cwd().parents, *Path(__file__).resolve().parents]:
        candidate = folder / "kvpool"
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return candidate
    raise SystemExit("cannot find the ./kvpool script of a kvpool checkout: pass --kvpool PATH")


class _LocalPool:
    def __init__(self, kvpool: Path, nodes: int, memory: str):
        # without keys: `./kvpool bench --master`, the Java side of the comparison, connects with none
        self.proc = subprocess.Popen([str(kvpool), "local", "--storage-nodes", str(nodes), "--memory", memory,
                                      "--pool-id", "pybench", "--no-auth"], stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, text=True, start_new_session=True)
        self.master = ""
        deadline = time.monotonic() + 300
        for line in self.proc.stdout:
            m = re.match(r"master (\S+)\s+\(admin", line)
            if m:
                self.master = m.group(1)
            if line.startswith("Ctrl-C stops the pool") or time.monotonic() > deadline:
                break
        if not self.master:
            self.stop()
            raise SystemExit("./kvpool local did not start a pool")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)


def main(argv: list | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m kvpool.bench", description=__doc__.splitlines()[0])
    parser.add_argument("--master", help="HOST:PORT of the pool (default: start ./kvpool local)")
    parser.add_argument("--clients", type=int, default=4, help="client threads, for Python and Java alike")
    parser.add_argument("--seconds", type=int, default=6, help="timed seconds per workload (half put, half get)")
    parser.add_argument("--replicas", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=1, help="alternate Python and Java this many times")
    parser.add_argument("--kvpool", help="path of the ./kvpool script (default: found from here)")
    parser.add_argument("--no-java", action="store_true", help="skip the Java client's runs")
    parser.add_argument("--storage-nodes", type=int, default=3)
    parser.add_argument("--memory", default="512MiB", help="per storage node of a pool started here")
    parser.add_argument("--checksum", action="store_true", help="only measure the CRC32C implementations")
    args = parser.parse_args(argv)
    if args.checksum:
        measure_checksums()
        return 0

    kvpool = None if args.no_java and args.master else _find_kvpool(args.kvpool)
    local = None
    master = args.master
    if master is None:
        print(f"starting a local pool: ./kvpool local --storage-nodes {args.storage_nodes} --memory {args.memory}"
              " --no-auth", flush=True)
        local = _LocalPool(kvpool, args.storage_nodes, args.memory)
        master = local.master
    try:
        with KvPoolClient(ClientConfig(master)) as probe:
            stats = probe.stats()
        print(f"pool at {master}: {stats.alive_nodes} storage nodes, {stats.capacity / 2**20:.0f} MiB,"
              f" CRC32C: {checksum.IMPLEMENTATION}, Python {sys.version.split()[0]}, {args.clients} clients,"
              f" replicas {args.replicas}", flush=True)
        room = int(min(stats.capacity * 0.5, stats.capacity * 0.8 - stats.used))
        results = []
        for value_size in (1 << 20, 64 << 10):
            keys = max(1, min(64, room // (value_size * args.replicas * args.clients * 2)))
            python_rounds, java_rounds = [], []
            for r in range(args.rounds):  # alternated, so a change of the machine's load hits both clients alike
                print(f"round {r + 1}/{args.rounds}: python client, {_size(value_size)} values ...", flush=True)
                python_rounds.append(single_value_phases(master, value_size, args.clients, keys, args.seconds,
                                                         args.replicas))
                if not args.no_java:
                    print(f"round {r + 1}/{args.rounds}: java client (./kvpool bench --master), {_size(value_size)}"
                          " values ...", flush=True)
                    java_rounds.append(java_phases(kvpool, master, value_size, args.clients, max(2, args.seconds),
                                                   args.replicas))
            results.append((python_rounds, java_rounds))
        print("python client, batch of 64 x 256KiB multi-buffer keys ...", flush=True)
        batch = multi_buffer_batch_phases(master, 64, 256 << 10, 8, args.seconds, args.replicas)
    finally:
        if local is not None:
            local.stop()

    print()
    print(f"{'CLIENT / WORKLOAD':<26} {'OP':<4} {'GB/s':>8} {'ops/s':>10} {'p50 us':>9} {'p99 us':>9}  PYTHON/JAVA")
    for python_rounds, java_rounds in results:
        for r in range(len(python_rounds)):
            label = f" (round {r + 1})" if len(python_rounds) > 1 else ""
            for p in python_rounds[r]:
                j = next((x for x in java_rounds[r] if x.op == p.op), None) if java_rounds else None
                ratio = f"{p.gbps / j.java[0]:.2f}" if j is not None and j.java[0] else "-"
                print(f"{p.row()}  {ratio}{label}")
            for j in java_rounds[r] if java_rounds else []:
                gbps, ops, p50, p99 = j.java
                print(f"{j.name:<26} {j.op:<4} {gbps:8.3f} {ops:10.0f} {p50:9.0f} {p99:9.0f}{label}")
    for p in batch:
        print(f"{p.row()}  (per batch call; no Java counterpart in ./kvpool bench)")
    if args.rounds > 1 and not args.no_java:
        print()
        for python_rounds, java_rounds in results:
            for op in ("put", "get"):
                ratios = sorted(next(p for p in pr if p.op == op).gbps / next(j for j in jr if j.op == op).java[0]
                                for pr, jr in zip(python_rounds, java_rounds))
                name = python_rounds[0][0].name.replace("python ", "")
                print(f"median python/java {name} {op}: {ratios[len(ratios) // 2]:.2f}"
                      f" (rounds: {', '.join(f'{x:.2f}' for x in ratios)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
