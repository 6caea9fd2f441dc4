"""Protocol 2.2's commits by storage nodes from the Python client (PROTOCOL.md, "Commits by storage nodes"): a put
whose replicas were all written is committed by their nodes, so the client sends no PUT_END, and another client reads
it at once; so it is for a client one minor older (2.3; a 2.2 client is two minors from a 2.4 pool, refused)."""

import os
import random

from kvpool import PROTOCOL_MINOR, ClientConfig, KvPoolClient, Regions


def _client(pool, **settings):
    return KvPoolClient(ClientConfig(pool.master, pool_key=pool.key, timeout=20, operation_timeout=60, **settings))


def _reader(pool):
    """A client that asks the master for every get: the put must be visible there, not only in a held list."""
    return _client(pool, location_cache_entries=0)


def test_puts_are_committed_by_their_storage_nodes_and_readable_at_once(pool):
    rnd = random.Random(22)
    with _client(pool, replicas=2) as writer, _reader(pool) as reader:
        for i in range(100):
            key = f"commits/single/{i}"
            value = rnd.randbytes(rnd.choice([1, 100, 4096, 70_000, 300_000]))
            assert writer.put(key, value) is True
            assert bytes(reader.get(key)) == value
        keys = [f"commits/batch/{i}" for i in range(20)]
        values = [rnd.randbytes(rnd.choice([1, 5000, 70_000])) for _ in keys]
        assert writer.put_batch(keys, [Regions.of_buffer(v) for v in values]) == [None] * len(keys)
        assert [bytes(v) for v in reader.get_batch(keys)] == values
        assert writer.put_commit_stats() == (120, 0)
        assert writer.put("commits/single/0", b"another value") is False  # kept: committed by nobody
        assert writer.put_commit_stats() == (120, 0)


def test_pipelined_writes_are_committed_by_their_storage_nodes_too(pool):
    """Without WRITE_BATCH each replica goes to its node as a WRITE of its own, whose reply carries the flag."""
    with _client(pool, replicas=2, batch_requests=False) as writer, _reader(pool) as reader:
        keys = [f"commits/pipelined/{i}" for i in range(16)]
        values = [os.urandom(10_000 + i) for i in range(16)]
        assert writer.put_batch(keys, [Regions.of_buffer(v) for v in values]) == [None] * len(keys)
        assert [bytes(v) for v in reader.get_batch(keys)] == values
        assert writer.put_commit_stats() == (16, 0)


def test_a_client_one_minor_older_puts_and_its_nodes_commit_only_from_protocol_2_2(pool):
    """A client one minor older than the master still puts; its storage nodes commit for it from protocol 2.2 on, and
    a client of 2.1 (which a master of 2.2 still serves) ends its puts itself."""
    older = PROTOCOL_MINOR - 1
    by_nodes = older >= 2
    with _client(pool, protocol=(2, older), replicas=2) as old, _reader(pool) as reader:
        assert old.server_protocol == (2, PROTOCOL_MINOR)
        value = os.urandom(100_000)
        assert old.put("commits/old/one", value) is True
        assert old.put_commit_stats() == ((1, 0) if by_nodes else (0, 1))
        assert bytes(reader.get("commits/old/one")) == value
        keys = [f"commits/old/batch/{i}" for i in range(5)]
        values = [os.urandom(5000 + i) for i in range(5)]
        assert old.put_batch(keys, [Regions.of_buffer(v) for v in values]) == [None] * len(keys)
        assert old.put_commit_stats() == ((6, 0) if by_nodes else (0, 6))
        assert [bytes(v) for v in reader.get_batch(keys)] == values
