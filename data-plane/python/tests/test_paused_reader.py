"""A reader that looked a value up and paused while puts that needed the room moved the (leased) value to its node's
disk tier and gave its memory range to another value (PROTOCOL.md, "Disk tiers"): the READ of its old replica list is
refused, never answered with the other value's bytes, and a get through a stale cached location, or a fresh one, reads
the disk copy byte-exact. One storage node with a tier, read leases longer than the test (the old token stays valid)."""

import random

import pytest

from conftest import start_pool

from kvpool import ClientConfig, ErrorCode, KvPoolClient, Regions
from kvpool.transfers import ReadPlan, read_replicas

MiB = 1 << 20


@pytest.fixture
def tiered_pool():
    p = start_pool(storage_nodes="1", memory="16MiB", disk="128MiB", lease_ttl="60s", pool_id="paused")
    yield p
    p.stop()
    import conftest
    conftest._POOLS.remove(p)


def _overlaps(a, b) -> bool:
    return a.segment == b.segment and a.offset < b.offset + b.length and b.offset < a.offset + a.length


def test_a_paused_read_after_its_value_moved_to_disk_is_refused_and_gets_read_the_disk_copy(tiered_pool):
    config = dict(pool_id="paused", pool_key=tiered_pool.key, replicas=1, timeout=20, operation_timeout=60)
    rnd = random.Random(28)
    victim = rnd.randbytes(MiB)
    with KvPoolClient(ClientConfig(tiered_pool.master, **config)) as writer, \
            KvPoolClient(ClientConfig(tiered_pool.master, **config)) as reader, \
            KvPoolClient(ClientConfig(tiered_pool.master, **config)) as batch_reader:
        writer.put("victim", victim)
        assert bytes(reader.get("victim")) == victim  # the reader caches the location
        assert [bytes(v) for v in batch_reader.get_batch(["victim"])] == [victim]
        looked_up = reader._lookup("victim")  # the lookup; then the reader pauses
        (replica,) = looked_up.replicas
        (old,) = replica.slices

        fills, reused_by = [], None
        while reused_by is None:
            assert len(fills) < 64, f"the victim's range {old} was not reused after {len(fills)} puts"
            fills.append(f"fill/{len(fills)}")
            writer.put(fills[-1], rnd.randbytes(MiB))
            reused_by = next((k for k in fills
                              if any(_overlaps(s, old) for r in writer._lookup(k).replicas for s in r.slices)), None)
        assert all(r.is_disk for r in writer._lookup("victim").replicas), "the victim moved to disk"

        # the paused reader resumes: the READ of its old list, token still valid
        dst = bytearray(MiB)
        (failure,) = read_replicas(reader._storage, 20, [ReadPlan("victim", looked_up, replica,
                                                                   Regions.of_buffer(dst, writable=True))])
        assert failure is not None, f"the READ of a range {reused_by} holds now was served"
        assert failure.code == ErrorCode.NOT_FOUND, failure
        assert dst == bytearray(MiB), f"bytes of {reused_by} arrived"

        assert bytes(reader.get("victim")) == victim, "a get through the stale cached location"
        assert [bytes(v) for v in batch_reader.get_batch(["victim"])] == [victim], "a batch through it"
    with KvPoolClient(ClientConfig(tiered_pool.master, **config)) as fresh:
        assert bytes(fresh.get("victim")) == victim
