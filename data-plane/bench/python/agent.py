#!/usr/bin/env python3
"""Benchmark agent of ``kvpool bench compare`` for the targets driven from Python: the kvpool Python client and
Mooncake Store (``mooncake-transfer-engine-non-cuda``: ``mooncake_master``, storage processes that mount the
segments, clients that own none, protocol ``tcp``).

The Java suite starts ``agent.py agent --kind kvpool|mooncake ...`` (for the disk-3x workload, Mooncake with
``--offload-dir``: its SSD offload, and the ``tier-put``/``tier-get`` passes) and talks to it in JSON lines on
stdin/stdout.
The agent starts one worker process per client (Python threads would share one interpreter lock) and, for
Mooncake, the master and the storage processes; it answers ``{"ready": true, "pids": {...}}`` once all of them
serve, so that the suite can read the CPU time of every process. Each command runs one phase on the first
``clients`` workers from a common start time and is answered with the operations done, the wall time and the
latencies. A Mooncake agent is started inside a private network namespace (``unshare -n``) by the suite: its
ports listen on all addresses, and there only loopback exists.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import socket
import subprocess
import sys
import time

MOONCAKE_RPC_PORT = 50051
MOONCAKE_METRICS_PORT = 9003

# Mooncake Store's SSD offload (``--offload-dir``), as its source has it in 0.3.13.post1: the master queues an offload
# task for the storage process that holds the value when a put completes (--enable_offload), and pins the value in
# memory until that process has written it; each storage process's FileStorage takes its queue on a heartbeat
# (MOONCAKE_OFFLOAD_HEARTBEAT_INTERVAL_SECONDS, default 10 s), and its bucket backend writes a bucket file only once
# a batch fills MOONCAKE_OFFLOAD_BUCKET_KEYS_LIMIT keys (default 500) or MOONCAKE_OFFLOAD_BUCKET_SIZE_LIMIT_BYTES
# (default 256 MiB): the rest is held back, the master told it failed, and the value is evicted unwritten. A
# segment of tens of MiB never fills a default bucket, so each value is its own bucket here. A value looked up (as
# the offload does before writing it) is leased for --default_kv_lease_ttl (default 10 s) and not evicted before:
# 1 s lets the puts go on soon after a heartbeat has written what was pinned. A get of an evicted value reads it
# from the holder's files through that storage process's offload RPC server.
MOONCAKE_OFFLOAD_MASTER_FLAGS = ["--enable_offload=true", "--default_kv_lease_ttl=1000"]


def mooncake_offload_env(disk_bytes: int) -> dict:
    env = {
        "MOONCAKE_OFFLOAD_STORAGE_BACKEND_DESCRIPTOR": "bucket_storage_backend",
        "MOONCAKE_OFFLOAD_HEARTBEAT_INTERVAL_SECONDS": "1",
        "MOONCAKE_OFFLOAD_BUCKET_KEYS_LIMIT": "1",
        "MOONCAKE_OFFLOAD_LOCAL_BUFFER_SIZE_BYTES": str(64 << 20),  # the read staging buffer (default 1.25 GiB)
    }
    if disk_bytes > 0:  # each storage process's cap, oldest bucket evicted first (default: 90 % of the disk)
        env["MOONCAKE_OFFLOAD_BUCKET_MAX_TOTAL_SIZE"] = str(disk_bytes)
        env["MOONCAKE_OFFLOAD_BUCKET_EVICTION_POLICY"] = "fifo"
    return env


def log(message: str) -> None:
    print(f"agent: {message}", file=sys.stderr, flush=True)


def stamp_of(key: str) -> bytes:
    return hashlib.blake2b(key.encode(), digest_size=8).digest()


def key_of(prefix: str, client: int, index: int) -> str:
    return f"{prefix}/c{client}/{index}"


# ---- the stores, as the workers see them ----


class KvPoolStore:
    """The kvpool Python client, one per worker process."""

    def __init__(self, args):
        sys.path.insert(0, args.kvpool_python)
        from kvpool import ClientConfig, KvPoolClient, Regions  # noqa: imported from the checkout
        self.Regions = Regions
        self.client = KvPoolClient(ClientConfig(args.master, client_id=f"bench-py-{args.index}",
                                                replicas=args.replicas, timeout=30))
        self.src = bytearray(args.buffer_bytes)
        self.src[:] = os.urandom(len(self.src))
        self.dst = bytearray(args.buffer_bytes)
        self.src_view = memoryview(self.src)
        self.dst_view = memoryview(self.dst)

    def put(self, key, offset, size):
        self.client.put(key, self.src_view[offset:offset + size])

    def get(self, key, offset, size):
        return self.client.get_into(key, self.dst_view[offset:offset + size])

    def put_batch(self, keys, size):
        values = [self.Regions.of_buffer(self.src_view[i * size:(i + 1) * size]) for i in range(len(keys))]
        for error in self.client.put_batch(keys, values):
            if error is not None:
                raise error

    def get_batch(self, keys, size):
        dsts = [self.Regions.of_buffer(self.dst_view[i * size:(i + 1) * size], writable=True)
                for i in range(len(keys))]
        out = self.client.get_batch_regions(keys, dsts)
        for n in out:
            if not isinstance(n, int):
                raise n
        return out

    def remove(self, keys):
        pending = list(keys)
        deadline = time.monotonic() + 60
        while pending:
            statuses = self.client.remove_batch(pending)
            pending = [k for k, s in zip(pending, statuses) if s.retryable]
            if pending:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"cannot remove {len(pending)} keys within 60 s")
                time.sleep(0.2)

    def close(self):
        self.client.close()


class MooncakeStore:
    """A Mooncake client that mounts no segment of its own, so every transfer goes over TCP to a storage
    process."""

    def __init__(self, args):
        import numpy as np
        from mooncake.store import MooncakeDistributedStore
        self.store = MooncakeDistributedStore()
        rc = self.store.setup("127.0.0.1", "P2PHANDSHAKE", 0, 16 << 20, "tcp", "",
                              f"127.0.0.1:{MOONCAKE_RPC_PORT}")
        if rc != 0:
            raise RuntimeError(f"Mooncake client setup returned {rc}")
        self.src = np.frombuffer(os.urandom(args.buffer_bytes), dtype=np.uint8).copy()
        self.dst = np.zeros(args.buffer_bytes, dtype=np.uint8)
        self.src_view = memoryview(self.src)
        self.dst_view = memoryview(self.dst)
        self.src_ptr = self.src.ctypes.data
        self.dst_ptr = self.dst.ctypes.data
        for ptr, n in ((self.src_ptr, self.src.nbytes), (self.dst_ptr, self.dst.nbytes)):
            rc = self.store.register_buffer(ptr, n)
            if rc != 0:
                raise RuntimeError(f"Mooncake register_buffer returned {rc}")

    def put(self, key, offset, size):
        rc = self.store.put_from(key, self.src_ptr + offset, size)
        if rc != 0:
            raise RuntimeError(f"Mooncake put_from({key}) returned {rc}")

    def get(self, key, offset, size):
        n = self.store.get_into(key, self.dst_ptr + offset, size)
        if n < 0:
            raise RuntimeError(f"Mooncake get_into({key}) returned {n}")
        return n

    def try_put(self, key, size):
        return self.store.put_from(key, self.src_ptr, size)

    def try_get(self, key, size):
        return self.store.get_into(key, self.dst_ptr, size)

    def put_batch(self, keys, size):
        rcs = self.store.batch_put_from(keys, [self.src_ptr + i * size for i in range(len(keys))],
                                        [size] * len(keys))
        bad = [rc for rc in rcs if rc != 0]
        if bad:
            raise RuntimeError(f"Mooncake batch_put_from: {len(bad)} of {len(keys)} failed, e.g. {bad[0]}")

    def get_batch(self, keys, size):
        out = self.store.batch_get_into(keys, [self.dst_ptr + i * size for i in range(len(keys))],
                                        [size] * len(keys))
        bad = [n for n in out if n < 0]
        if bad:
            raise RuntimeError(f"Mooncake batch_get_into: {len(bad)} of {len(keys)} failed, e.g. {bad[0]}")
        return out

    def remove(self, keys):
        for i in range(0, len(keys), 1024):
            self.store.batch_remove(keys[i:i + 1024], True)  # force: housekeeping between rounds, untimed

    def close(self):
        self.store.close()


# ---- worker: one client process ----


def worker(args) -> None:
    store = (KvPoolStore if args.kind == "kvpool" else MooncakeStore)(args)
    out = sys.stdout
    print(json.dumps({"ready": True, "pid": os.getpid()}), file=out, flush=True)
    for line in sys.stdin:
        cmd = json.loads(line)
        if cmd.get("op") == "exit":
            break
        try:
            result = run_phase(store, cmd)
        except Exception as e:  # noqa: BLE001 - reported to the suite, which stops the run
            result = {"error": f"{type(e).__name__}: {e}"}
        print(json.dumps(result), file=out, flush=True)
    store.close()


def wait_until(t: float) -> None:
    while True:
        left = t - time.monotonic()
        if left <= 0:
            return
        time.sleep(min(left, 0.01))


def run_phase(store, cmd: dict) -> dict:
    op, size, prefix, c = cmd["op"], cmd["size"], cmd["prefix"], cmd["client"]
    keys, batch = cmd["keys"], cmd.get("batch", 1)
    lat: list = []
    if op == "remove":
        store.remove([key_of(prefix, c, i) for i in range(keys)])
        return {"count": keys}
    start = cmd["start"]
    wait_until(start)
    if op in ("tier-put", "tier-get"):
        return tier_phase(store, cmd)
    count = 0
    if op == "put":
        until = start + cmd["put_max"]
        for i in range(keys):
            if time.monotonic() > until:
                break
            key = key_of(prefix, c, i)
            store.src_view[0:8] = stamp_of(key)
            t0 = time.perf_counter()
            store.put(key, 0, size)
            lat.append(time.perf_counter() - t0)
            count += 1
    elif op == "get":
        until = start + cmd["seconds"]
        i = random.randrange(keys)
        while time.monotonic() < until:
            key = key_of(prefix, c, i)
            t0 = time.perf_counter()
            n = store.get(key, 0, size)
            lat.append(time.perf_counter() - t0)
            if n != size or bytes(store.dst_view[0:8]) != stamp_of(key):
                raise RuntimeError(f"wrong value for {key}: {n} bytes")
            count += 1
            i = (i + 1) % keys
    elif op == "bput":
        until = start + cmd["put_max"]
        for b in range(keys // batch):
            if time.monotonic() > until:
                break
            names = [key_of(prefix, c, b * batch + j) for j in range(batch)]
            for j, key in enumerate(names):
                store.src_view[j * size:j * size + 8] = stamp_of(key)
            t0 = time.perf_counter()
            store.put_batch(names, size)
            lat.append(time.perf_counter() - t0)
            count += 1
    elif op == "bget":
        until = start + cmd["seconds"]
        batches = keys // batch
        while time.monotonic() < until:
            b = random.randrange(batches)
            names = [key_of(prefix, c, b * batch + j) for j in range(batch)]
            t0 = time.perf_counter()
            got = store.get_batch(names, size)
            lat.append(time.perf_counter() - t0)
            for j, key in enumerate(names):
                if got[j] != size or bytes(store.dst_view[j * size:j * size + 8]) != stamp_of(key):
                    raise RuntimeError(f"wrong value for {key} in a batch: {got[j]} bytes")
            count += 1
    else:
        raise ValueError(f"unknown op {op}")
    return {"count": count, "end": time.monotonic(), "lat_us": [int(x * 1e6) for x in lat]}


MOONCAKE_NOT_FOUND = -704  # OBJECT_NOT_FOUND


def tier_phase(store, cmd: dict) -> dict:
    """The disk-3x workload's pass (as TierWorkload.java): client c of n takes the keys from + c, from + c + n, ...
    below to; each value starts with its key's number (8 bytes, big-endian). A put that fails is tried again
    until ``retry`` seconds have passed for that value (Mooncake refuses puts while the memory is held by
    objects not yet offloaded); a get is a hit, a miss (not found), wrong (other bytes) or failed."""
    size, prefix, c, n = cmd["size"], cmd["prefix"], cmd["client"], cmd["clients"]
    tally = {"hits": 0, "misses": 0, "wrong": 0, "failures": 0, "bytes": 0, "retries": 0}
    for i in range(cmd["from"] + c, cmd["to"], n):
        key = f"{prefix}{i}"
        stamp = i.to_bytes(8, "big")
        if cmd["op"] == "tier-put":
            store.src_view[0:8] = stamp
            deadline = time.monotonic() + cmd["retry"]
            while True:
                rc = store.try_put(key, size)
                if rc == 0 or time.monotonic() > deadline:
                    break
                tally["retries"] += 1
                time.sleep(0.05)
            if rc == 0:
                tally["hits"] += 1
                tally["bytes"] += size
            else:
                tally["failures"] += 1
        else:
            got = store.try_get(key, size)
            if got == size and bytes(store.dst_view[0:8]) == stamp:
                tally["hits"] += 1
                tally["bytes"] += size
            elif got == MOONCAKE_NOT_FOUND:
                tally["misses"] += 1
            elif got < 0:
                tally["failures"] += 1
            else:
                tally["wrong"] += 1
    tally["end"] = time.monotonic()
    return tally


# ---- Mooncake storage process: mounts a segment, serves until stdin closes ----


def mooncake_storage(args) -> None:
    from mooncake.store import MooncakeDistributedStore
    store = MooncakeDistributedStore()
    offload = {}
    if args.offload_dir:
        os.makedirs(args.offload_dir, exist_ok=True)
        offload = {"enable_ssd_offload": True, "ssd_offload_path": args.offload_dir}
    rc = store.setup("127.0.0.1", "P2PHANDSHAKE", args.segment_bytes, 16 << 20, "tcp", "",
                     f"127.0.0.1:{MOONCAKE_RPC_PORT}", **offload)
    print(json.dumps({"ready": rc == 0, "rc": rc, "pid": os.getpid()}), flush=True)
    sys.stdin.read()
    store.close()


# ---- agent: starts the processes, dispatches phases ----


class Child:
    def __init__(self, argv: list, env: dict, log_file):
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log_file, env=env,
                                     text=True, bufsize=1)

    def send(self, obj: dict) -> None:
        self.proc.stdin.write(json.dumps(obj) + "\n")
        self.proc.stdin.flush()

    def receive(self) -> dict:
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"process {self.proc.pid} ended (exit code {self.proc.poll()}); see the agent log")
        return json.loads(line)

    def stop(self) -> None:
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def wait_for_port(port: int, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            if time.monotonic() > deadline:
                raise RuntimeError(f"nothing listens on 127.0.0.1:{port} after {seconds} s")
            time.sleep(0.1)


def percentiles(samples: list) -> list:
    if not samples:
        return [0, 0, 0, 0]
    s = sorted(samples)
    return [s[min(len(s) - 1, max(0, int(q * len(s) + 0.999999) - 1))] for q in (0.5, 0.9, 0.99, 0.999)]


def agent(args) -> None:
    env = dict(os.environ)
    env.setdefault("GLOG_minloglevel", "2")  # Mooncake logs every setup step at INFO
    env["MC_STORE_MEMCPY"] = "0"  # never short-cut a transfer through local memory
    me = [sys.executable, os.path.abspath(__file__)]
    log_file = open(args.log, "a") if args.log else sys.stderr
    pids: dict = {"client": [], "master": [], "storage": []}
    servers: list = []
    master = None
    if args.kind == "mooncake":
        binary = os.path.join(os.path.dirname(sys.executable), "mooncake_master")
        flags = [f"--rpc_port={MOONCAKE_RPC_PORT}", "--enable_http_metadata_server=false",
                 f"--metrics_port={MOONCAKE_METRICS_PORT}"]
        storage_env = env
        if args.offload_dir:
            flags += MOONCAKE_OFFLOAD_MASTER_FLAGS
            storage_env = dict(env, **mooncake_offload_env(args.disk_bytes))
        master = subprocess.Popen([binary] + flags, stdout=log_file, stderr=subprocess.STDOUT, env=env)
        pids["master"].append(master.pid)
        wait_for_port(MOONCAKE_RPC_PORT, 30)
        for k in range(args.storage_procs):
            argv = me + ["mooncake-storage", "--segment-bytes", str(args.segment_bytes)]
            if args.offload_dir:
                argv += ["--offload-dir", os.path.join(args.offload_dir, f"storage-{k}")]
            s = Child(argv, storage_env, log_file)
            hello = s.receive()
            if not hello.get("ready"):
                raise RuntimeError(f"Mooncake storage setup returned {hello.get('rc')}")
            servers.append(s)
            pids["storage"].append(s.proc.pid)
    workers = []
    for i in range(args.workers):
        argv = me + ["worker", "--kind", args.kind, "--index", str(i), "--buffer-bytes", str(args.buffer_bytes),
                     "--replicas", str(args.replicas), "--kvpool-python", args.kvpool_python]
        if args.master:
            argv += ["--master", args.master]
        workers.append(Child(argv, env, log_file))
    for w in workers:
        w.receive()
        pids["client"].append(w.proc.pid)
    if args.kind == "kvpool":
        pids.pop("master")
        pids.pop("storage")  # the suite knows the pool's processes
    print(json.dumps({"ready": True, "pids": pids}), flush=True)
    try:
        for line in sys.stdin:
            cmd = json.loads(line)
            if cmd.get("op") == "exit":
                break
            clients = cmd["clients"]
            start = time.monotonic() + 0.05
            for c in range(clients):
                workers[c].send(dict(cmd, client=c, start=start))
            results = [workers[c].receive() for c in range(clients)]
            errors = [r["error"] for r in results if "error" in r]
            if errors:
                print(json.dumps({"error": errors[0]}), flush=True)
                continue
            if cmd["op"] == "remove":
                print(json.dumps({"ok": True}), flush=True)
                continue
            if cmd["op"].startswith("tier-"):
                total = {f: sum(r[f] for r in results) for f in ("hits", "misses", "wrong", "failures", "bytes",
                                                                  "retries")}
                total["wall_ns"] = int((max(r["end"] for r in results) - start) * 1e9)
                print(json.dumps(total), flush=True)
                continue
            lat = [x for r in results for x in r["lat_us"]]
            print(json.dumps({"counts": [r["count"] for r in results], "ops": sum(r["count"] for r in results),
                              "wall_ns": int((max(r["end"] for r in results) - start) * 1e9),
                              "lat_us": percentiles(lat)}), flush=True)
    finally:
        for w in workers:
            w.stop()
        for s in servers:
            s.stop()
        if master is not None:
            master.terminate()
            try:
                master.wait(10)
            except subprocess.TimeoutExpired:
                master.kill()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="role", required=True)
    for name in ("agent", "worker"):
        a = sub.add_parser(name)
        a.add_argument("--kind", choices=["kvpool", "mooncake"], required=True)
        a.add_argument("--master", default="", help="kvpool: the pool's master address")
        a.add_argument("--buffer-bytes", type=int, default=32 << 20)
        a.add_argument("--replicas", type=int, default=1)
        a.add_argument("--kvpool-python", default=os.path.join(os.path.dirname(__file__), "..", "..", "python"))
        if name == "agent":
            a.add_argument("--workers", type=int, default=8)
            a.add_argument("--segment-bytes", type=int, default=1536 << 20)
            a.add_argument("--storage-procs", type=int, default=2)
            a.add_argument("--log", default="")
            a.add_argument("--offload-dir", default="",
                           help="mooncake: turn on SSD offload, each storage process's files in a folder under it")
            a.add_argument("--disk-bytes", type=int, default=0, help="mooncake: each storage process's offload cap")
        else:
            a.add_argument("--index", type=int, default=0)
    s = sub.add_parser("mooncake-storage")
    s.add_argument("--segment-bytes", type=int, required=True)
    s.add_argument("--offload-dir", default="")
    args = p.parse_args()
    if args.role == "agent":
        agent(args)
    elif args.role == "worker":
        worker(args)
    else:
        mooncake_storage(args)


if __name__ == "__main__":
    main()
