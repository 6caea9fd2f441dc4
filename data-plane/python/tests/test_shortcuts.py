"""Protocol 2.1's shortcuts from the Python client, against a pool of its own with 1 s read leases: gets straight to a
storage node with a replica list the client holds (never returning what a stale list points at: after a remove, a new
object of the key, a master restart) and batches sent to each node as one READ_BATCH / WRITE_BATCH."""

import json
import os
import random
import time
import urllib.request

import pytest

from conftest import start_pool
from pool import wait_for

from kvpool import ClientConfig, KvPoolClient, ObjectNotFound, Regions

LEASE = 1.0


@pytest.fixture(scope="module")
def lease_pool():
    p = start_pool(lease_ttl="1s", memory="64MiB", pool_id="shortcuts")
    yield p
    p.stop()
    import conftest
    conftest._POOLS.remove(p)


def _client(pool, **settings):
    settings.setdefault("lease_ttl", LEASE)
    return KvPoolClient(ClientConfig(pool.master, pool_id="shortcuts", pool_key=pool.key, timeout=10,
                                      operation_timeout=60, **settings))


def _lookups(pool) -> int:
    with urllib.request.urlopen(f"http://{pool.admin}/status", timeout=10) as r:
        return json.load(r)["counters"]["gets"]


def _alive_nodes(pool) -> int:
    with urllib.request.urlopen(f"http://{pool.admin}/status", timeout=10) as r:
        return sum(1 for n in json.load(r)["nodes"] if n["state"] == "ALIVE")


def _outlive_the_lease():
    time.sleep(LEASE + 0.3)  # what happens after the pool's read lease ended is the point


def test_a_held_replica_list_skips_the_master(lease_pool):
    with _client(lease_pool) as writer, _client(lease_pool) as reader:
        value = os.urandom(300_000)
        writer.put("held/one", value, replicas=2)
        before = _lookups(lease_pool)
        for _ in range(5):
            assert bytes(reader.get("held/one")) == value
        assert _lookups(lease_pool) - before == 1
        assert reader.location_cache_stats() == (4, 1, 0)
        buf = bytearray(400_000)
        assert reader.get_into("held/one", buf) == len(value) and bytes(buf[:len(value)]) == value
    with _client(lease_pool, location_cache_entries=0) as off:
        before = _lookups(lease_pool)
        for _ in range(3):
            assert bytes(off.get("held/one")) == value
        assert _lookups(lease_pool) - before == 3


def test_a_removed_or_replaced_key_is_never_read_through_a_stale_list(lease_pool):
    # this reader keeps lists for 48 s, far beyond the pool's 1 s leases: only the nodes' checks protect it
    with _client(lease_pool) as writer, _client(lease_pool, lease_ttl=60.0) as reader:
        v1 = os.urandom(65536)
        writer.put("stale/gone", v1)
        assert bytes(reader.get("stale/gone")) == v1
        _outlive_the_lease()
        assert writer.remove("stale/gone")
        with pytest.raises(ObjectNotFound):
            reader.get("stale/gone")
        writer.put("stale/again", v1)
        assert bytes(reader.get("stale/again")) == v1
        _outlive_the_lease()
        assert writer.remove("stale/again")
        v2 = os.urandom(65536)
        writer.put("stale/again", v2)
        assert bytes(reader.get("stale/again")) == v2
        assert reader.location_cache_stats().stale == 2


def test_batches_read_held_lists_directly_and_recover_from_stale_ones(lease_pool):
    with _client(lease_pool, replicas=2) as writer, _client(lease_pool, lease_ttl=60.0) as reader:
        rnd = random.Random(5)
        keys = [f"batch/{i}" for i in range(40)]
        values = [rnd.randbytes(rnd.choice([1, 100, 5000, 70_000])) for _ in keys]
        assert writer.put_batch(keys, [Regions.of_buffer(v) for v in values]) == [None] * len(keys)
        dsts = [bytearray(70_000) for _ in keys]
        before = _lookups(lease_pool)
        assert reader.get_batch_regions(keys[:20], [Regions.of_buffer(d, writable=True) for d in dsts[:20]]) == \
            [len(v) for v in values[:20]]
        assert reader.get_batch_regions(keys, [Regions.of_buffer(d, writable=True) for d in dsts]) == \
            [len(v) for v in values]
        assert _lookups(lease_pool) - before == 40, "each key looked up once"
        assert [bytes(d[:len(v)]) for d, v in zip(dsts, values)] == values
        _outlive_the_lease()
        assert writer.remove("batch/0") and writer.remove("batch/1")
        got = reader.get_batch_regions(keys, [Regions.of_buffer(d, writable=True) for d in dsts])
        assert isinstance(got[0], ObjectNotFound) and isinstance(got[1], ObjectNotFound)
        assert got[2:] == [len(v) for v in values[2:]]
        assert reader.location_cache_stats().stale == 40


def test_a_held_list_is_refused_after_a_master_restart_and_the_get_still_works(lease_pool):
    with _client(lease_pool, lease_ttl=60.0, replicas=2) as reader:
        value = os.urandom(123_456)
        reader.put("restart/one", value)
        assert bytes(reader.get("restart/one")) == value
        lease_pool.restart_master()
        # every node must have re-registered (and so got its new node key) before the held list is tried: a node
        # that has not noticed the new master yet still rightly accepts the token the old one issued
        wait_for(lambda: _alive_nodes(lease_pool) == len(lease_pool.storage_nodes()), 60,
                 "every storage node re-registered with the restarted master")
        wait_for(lambda: reader.exists("restart/one"), 60, "the value back after the master restart")
        assert bytes(reader.get("restart/one")) == value
        assert reader.location_cache_stats().stale == 1


def test_batches_without_batch_requests_give_the_same_values(lease_pool):
    with _client(lease_pool, replicas=2, batch_requests=False) as c:
        keys = [f"pipelined/{i}" for i in range(16)]
        values = [os.urandom(10_000 + i) for i in range(16)]
        assert c.put_batch(keys, [Regions.of_buffer(v) for v in values]) == [None] * 16
        assert [bytes(v) for v in c.get_batch(keys)] == values
