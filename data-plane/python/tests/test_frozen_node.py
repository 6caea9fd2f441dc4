"""A get whose read from a node failed reads the key's other replicas first (as the Java client does): with one of
three storage nodes frozen (SIGSTOP) while the master, with a long node TTL, still lists it, a batch at R=2 comes back
whole, and the frozen node is tried in one exchange only. Before, each failed key was read again from a replica
chosen at random, one key after another, meeting the frozen node once per key. The client remembers the node after
the operation too (``FailedNodes``): single gets one after another meet the frozen node once, not each time one picks
it, and single puts one after another are placed elsewhere once one met it, not each time the master places one
there."""

import os
import signal

import pytest

from conftest import start_pool
from pool import freeze

import kvpool.gets
from kvpool import ClientConfig, KvPoolClient, Regions
from kvpool.messages import Opcode

KEYS = 60
SIZE = 64 << 10
EXCHANGE_TIMEOUT = 5.0  # what one exchange with the frozen node costs; no live node's exchange runs that long


@pytest.fixture
def reads_pool():
    import conftest
    p = start_pool(node_ttl="300s", memory="64MiB", pool_id="frozen-reads")
    p.pool_id = "frozen-reads"
    yield p
    p.stop()
    conftest._POOLS.remove(p)


def _config(pool, replicas: int) -> ClientConfig:
    # the client remembers the frozen node for the whole test, however slow the machine
    return ClientConfig(pool.master, pool_id="frozen-reads", pool_key=pool.key, replicas=replicas,
                        timeout=EXCHANGE_TIMEOUT, operation_timeout=120, failed_node_memory=600)


def _record_exchanges(monkeypatch) -> list:
    """Every read exchange from here on, through the real function: which endpoints, how many reads each."""
    exchanges: list = []
    real = kvpool.gets.read_replicas

    def recorded(storage, timeout, reads, deadline=None):
        exchanges.append([plan.replica.endpoint for plan in reads])
        return real(storage, timeout, reads, deadline)

    monkeypatch.setattr(kvpool.gets, "read_replicas", recorded)
    return exchanges


def _read_with_one_node_frozen(pool, monkeypatch, prefix: str, read) -> None:
    """Puts KEYS values at R=2 and reads them once (replica lists held, connections open); then, with the second node
    frozen and every read exchange recorded, calls ``read(reader, keys, values, exchanges, frozen)``; then reads the
    values again once the node resumed."""
    values = {f"{prefix}{i}": os.urandom(SIZE) for i in range(KEYS)}
    keys = list(values)
    config = _config(pool, replicas=2)
    with KvPoolClient(config) as writer, KvPoolClient(config) as reader:
        assert writer.put_batch(keys, [Regions.of_buffer(v) for v in values.values()]) == [None] * KEYS
        assert [bytes(v) for v in reader.get_batch(keys)] == list(values.values())
        exchanges = _record_exchanges(monkeypatch)
        frozen = pool.storage_nodes()[1]
        freeze(frozen.pid)
        try:
            read(reader, keys, values, exchanges, frozen)
        finally:
            os.kill(frozen.pid, signal.SIGCONT)
        monkeypatch.undo()
        assert [bytes(v) for v in reader.get_batch(keys)] == list(values.values())


def test_a_batch_with_one_node_frozen_comes_back_whole_trying_that_node_once(reads_pool, monkeypatch):
    def read(reader, keys, values, exchanges, frozen):
        assert [bytes(v) for v in reader.get_batch(keys)] == list(values.values())
        with_frozen = [e for e in exchanges if frozen.rpc in e]
        assert len(with_frozen) == 1, f"exchanges that included the frozen node {frozen.rpc}: {with_frozen}"
        assert reader._storage.failed.failures == {frozen.node_id: 1}

    _read_with_one_node_frozen(reads_pool, monkeypatch, "frozen-reads/", read)


def test_after_one_get_met_the_frozen_node_the_clients_later_gets_read_the_other_replicas(reads_pool, monkeypatch):
    def read(reader, keys, values, exchanges, frozen):
        assert [bytes(reader.get(key)) for key in keys] == list(values.values())
        # two thirds of the keys have a replica on the frozen node and each get picks one of two at random: without
        # the client's memory of the failed node, about a third of the gets would each wait out the frozen node
        with_frozen = [e for e in exchanges if frozen.rpc in e]
        assert len(with_frozen) <= 1, f"exchanges that included the frozen node {frozen.rpc}: {with_frozen}"
        assert len(exchanges) <= KEYS + 1, f"{len(exchanges)} read exchanges for {KEYS} single gets"
        assert reader._storage.failed.failures == {frozen.node_id: 1}

    _read_with_one_node_frozen(reads_pool, monkeypatch, "frozen-singles/", read)


def test_after_one_put_met_the_frozen_node_the_clients_later_puts_are_placed_elsewhere(reads_pool, monkeypatch):
    values = {f"frozen-puts/{i}": os.urandom(SIZE) for i in range(KEYS)}
    with KvPoolClient(_config(reads_pool, replicas=1)) as writer:
        # one put on every node first: the writer's connections open
        for n in range(6):
            assert writer.put(f"frozen-puts-warm/{n}", os.urandom(SIZE))
        starts: list = []
        real = writer._master.call

        def counted(opcode, *args, **kwargs):
            starts.append(opcode)
            return real(opcode, *args, **kwargs)

        monkeypatch.setattr(writer._master, "call", counted)
        frozen = reads_pool.storage_nodes()[1]
        freeze(frozen.pid)
        try:
            for key, value in values.items():
                assert writer.put(key, value)
        finally:
            os.kill(frozen.pid, signal.SIGCONT)
        # the master places about a third of the puts on the frozen node while it lists it: without the client's
        # memory of the failed node, each of those would wait out an exchange with it
        assert writer._storage.failed.failures == {frozen.node_id: 1}
        put_starts = starts.count(Opcode.PUT_START)
        assert put_starts == KEYS + 1, f"{put_starts} PUT_STARTs for {KEYS} puts"
        monkeypatch.undo()
        got = writer.get_batch(list(values))
        assert [bytes(v) for v in got] == list(values.values())


def test_the_nodes_whose_replies_are_taken_in_after_a_frozen_nodes_get_their_own_timeout(monkeypatch):
    """A batch's reads go out to every node before any reply is taken in, so a node answers while the client waits on
    the nodes before it. Taking in a node's replies then gets the exchange timeout from when its turn comes: with the
    frozen node's reads first, only they fail (after one timeout), and every other node's arrive byte-exact."""
    import conftest
    from kvpool.errors import KvPoolTimeout
    from kvpool.transfers import ReadPlan, read_replicas

    pool = start_pool(node_ttl="300s", memory="64MiB", lease_ttl="120s", pool_id="frozen-first")
    try:
        values = {f"frozen-first/{i}": os.urandom(SIZE) for i in range(KEYS)}
        keys = list(values)
        config = ClientConfig(pool.master, pool_id="frozen-first", pool_key=pool.key, replicas=1, timeout=30,
                              operation_timeout=120)
        with KvPoolClient(config) as client:
            assert client.put_batch(keys, [Regions.of_buffer(v) for v in values.values()]) == [None] * KEYS
            assert [bytes(v) for v in client.get_batch(keys)] == list(values.values())  # connections open
            frozen = pool.storage_nodes()[1]
            plans = []
            for key in keys:
                looked_up = client._lookup(key)
                (replica,) = looked_up.replicas
                plans.append(ReadPlan(key, looked_up, replica, Regions.of_buffer(bytearray(SIZE), writable=True)))
            plans.sort(key=lambda plan: plan.replica.endpoint != frozen.rpc)  # the frozen node's reads first
            on_frozen = [plan.replica.endpoint == frozen.rpc for plan in plans]
            assert any(on_frozen) and not all(on_frozen), f"every node should hold some of {KEYS} values"
            freeze(frozen.pid)
            try:
                failures = read_replicas(client._storage, EXCHANGE_TIMEOUT, plans)
            finally:
                os.kill(frozen.pid, signal.SIGCONT)
        for plan, failure, frozen_read in zip(plans, failures, on_frozen):
            if frozen_read:
                assert isinstance(failure, KvPoolTimeout), f"{plan.key} on the frozen node: {failure!r}"
            else:
                assert failure is None, f"{plan.key} on {plan.replica.endpoint}: {failure!r}"
                assert bytes(plan.dst.slice(0, SIZE)[0]) == values[plan.key]
    finally:
        pool.stop()
        conftest._POOLS.remove(pool)
