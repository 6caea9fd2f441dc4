"""One deadline per call (issue 31): against a pool that cannot serve -- its storage nodes frozen (SIGSTOP) while the
master, with a long node TTL, still counts them alive; or its master killed -- every single and batch call of the
client and of the Mooncake-compatible store ends within about one operation timeout, with a failure per key. Before,
a batch retried its failed keys one by one with fresh deadlines: (keys + 1) operation timeouts."""

import ctypes
import os
import signal
import time

import pytest

from conftest import start_pool
from pool import freeze, pid_alive

from kvpool import ClientConfig, KvPoolClient, KvPoolError, Regions
from kvpool.store import KvPoolStore, MooncakeError

TIMEOUT = 1.0  # one exchange
OPERATION_TIMEOUT = 3.0
BOUND = 3 * OPERATION_TIMEOUT  # generous: the operation timeout, one exchange cut short, a busy machine
KEYS = 6
SIZE = 10_000
UNREACHABLE = (MooncakeError.RPC_FAIL, MooncakeError.RPC_TIMEOUT)


def test_the_bound_is_below_what_the_old_retries_took():
    assert BOUND < (KEYS + 1) * OPERATION_TIMEOUT, "the tests below would not tell the old behaviour apart"


def _config(pool, **settings):
    return ClientConfig(pool.master, pool_id=pool.pool_id, pool_key=pool.key, replicas=1, timeout=TIMEOUT,
                        operation_timeout=OPERATION_TIMEOUT, **settings)


def _timed(call):
    started = time.monotonic()
    result = call()
    return result, time.monotonic() - started


@pytest.fixture
def frozen_pool():
    """A pool whose master would count a silent storage node alive for 5 minutes."""
    import conftest
    p = start_pool(node_ttl="300s", memory="64MiB", pool_id="frozen")
    p.pool_id = "frozen"
    frozen: list = []
    p.freeze_storage = lambda: frozen.extend(freeze(n.pid) for n in p.storage_nodes())
    yield p
    for pid in frozen:
        if pid_alive(pid):
            os.kill(pid, signal.SIGCONT)
    p.stop()
    conftest._POOLS.remove(p)


def test_batches_over_frozen_storage_nodes_end_within_one_operation_timeout(frozen_pool):
    stored = {f"frozen/stored/{i}": os.urandom(SIZE) for i in range(KEYS)}
    with KvPoolClient(_config(frozen_pool)) as writer, KvPoolClient(_config(frozen_pool)) as reader:
        keys = list(stored)
        assert writer.put_batch(keys, [Regions.of_buffer(v) for v in stored.values()]) == [None] * KEYS
        frozen_pool.freeze_storage()
        assert reader.stats().alive_nodes == 3, "the master must still count the frozen nodes alive"

        new = [f"frozen/new/{i}" for i in range(KEYS)]
        results, took = _timed(lambda: writer.put_batch(new, [Regions.of_buffer(os.urandom(SIZE)) for _ in new]))
        assert took < BOUND, f"put_batch took {took:.1f} s: {results}"
        assert all(isinstance(r, KvPoolError) for r in results), results

        dsts = [bytearray(SIZE) for _ in keys]
        results, took = _timed(lambda: reader.get_batch_regions(keys, [Regions.of_buffer(d, writable=True)
                                                                       for d in dsts]))
        assert took < BOUND, f"get_batch_regions took {took:.1f} s: {results}"
        assert all(isinstance(r, KvPoolError) for r in results), results

        for name, call in (("put", lambda: writer.put("frozen/single", os.urandom(SIZE))),
                           ("get", lambda: reader.get(keys[0]))):
            started = time.monotonic()
            with pytest.raises(KvPoolError):
                call()
            took = time.monotonic() - started
            assert took < BOUND, f"{name} took {took:.1f} s"


@pytest.fixture
def headless_pool():
    """A pool whose master the test kills."""
    import conftest
    p = start_pool(memory="64MiB", pool_id="headless")
    p.pool_id = "headless"
    yield p
    p.stop()
    conftest._POOLS.remove(p)


def test_every_batch_against_a_killed_master_ends_within_one_operation_timeout(headless_pool):
    client = KvPoolClient(_config(headless_pool))
    store = KvPoolStore()
    assert store.setup("localhost", "P2PHANDSHAKE", 0, 0, "tcp", "", headless_pool.master, pool_id="headless",
                       pool_key=headless_pool.key, timeout=TIMEOUT, operation_timeout=OPERATION_TIMEOUT) == 0
    try:
        headless_pool.kill9(headless_pool.master_process().pid)
        keys = [f"headless/{i}" for i in range(KEYS)]
        values = [os.urandom(SIZE) for _ in keys]
        buffers = [(ctypes.c_ubyte * SIZE).from_buffer_copy(v) for v in values]
        addresses = [ctypes.addressof(b) for b in buffers]
        calls = {
            "KvPoolClient.put_batch": lambda: client.put_batch(keys, [Regions.of_buffer(v) for v in values]),
            "KvPoolClient.get_batch_regions": lambda: client.get_batch_regions(
                keys, [Regions.of_buffer(bytearray(SIZE), writable=True) for _ in keys]),
            "store.put_batch": lambda: store.put_batch(keys, values),
            "store.batch_put_from": lambda: store.batch_put_from(keys, addresses, [SIZE] * KEYS),
            "store.batch_put_from_multi_buffers": lambda: store.batch_put_from_multi_buffers(
                keys, [[a] for a in addresses], [[SIZE]] * KEYS),
            "store.get_batch": lambda: store.get_batch(keys),
            "store.batch_get_into": lambda: store.batch_get_into(keys, addresses, [SIZE] * KEYS),
            "store.batch_is_exist": lambda: store.batch_is_exist(keys),
            "store.batch_remove": lambda: store.batch_remove(keys),
        }
        for name, call in calls.items():
            results, took = _timed(call)
            assert took < BOUND, f"{name} took {took:.1f} s against a killed master: {results}"
            if name.startswith("KvPoolClient"):
                assert all(isinstance(r, KvPoolError) for r in results), f"{name}: {results}"
            elif name == "store.put_batch":
                assert results in UNREACHABLE, f"{name}: {results}"
            elif name == "store.get_batch":
                assert results == [b""] * KEYS, f"{name}: {results}"
            else:
                assert len(results) == KEYS and all(r in UNREACHABLE for r in results), f"{name}: {results}"
    finally:
        client.close()
        store.close()
