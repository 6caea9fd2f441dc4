"""Crashes of pool processes in the middle of the client's work, on a pool of its own: a storage node killed
(kill -9) with 2 replicas per value, then the master killed and restarted (lease recovery); and a node killed between
the WRITE replies that acknowledged its puts and the COMMITs that would have told the master."""

import random

import pytest

from conftest import start_pool
from pool import pid_alive, wait_for

from kvpool import ClientConfig, KvPoolClient, Regions
from kvpool.store import KvPoolStore


@pytest.fixture(scope="module")
def crash_pool():
    p = start_pool(node_ttl="3s", memory="128MiB", pool_id="crash")
    yield p
    p.stop()
    import conftest
    conftest._POOLS.remove(p)


@pytest.fixture(scope="module")
def crash_client(crash_pool):
    c = KvPoolClient(ClientConfig(crash_pool.master, pool_id="crash", pool_key=crash_pool.key, replicas=2,
                                      timeout=10, operation_timeout=90))
    yield c
    c.close()


def _values(prefix, count):
    rnd = random.Random(prefix)
    return {f"{prefix}/{i}": rnd.randbytes(rnd.choice([1, 100, 4096, 65536, 300_000, 1 << 20])) for i in range(count)}


def _read_all(client, values):
    keys = list(values)
    got = client.get_batch(keys)
    for key, value in zip(keys, got):
        assert value is not None, f"{key} is missing"
        assert bytes(value) == values[key], f"{key} differs"
    for key in random.Random(1).sample(keys, 10):
        assert bytes(client.get(key)) == values[key]


def _await_replicas(client, keys, want: int):
    """Waits until the master lists ``want`` replicas of every key, printing which keys it does not yet. A put returns
    once its replicas are written and their nodes' COMMITs are on their way; a lookup waits for every COMMIT of a put
    up to 250 ms once the first is in (PoolMetadata.REST_COMMIT_WAIT), and lists the committed replicas alone after
    that. Before that wait existed (2026-11-27), right after the batch below returned, the 40 of its 60 keys with a
    replica on one node were listed with one replica, and a get that lost that node in between failed (.ci/run once).
    This wait keeps the kill below after every COMMIT even on a machine too busy to send one within 250 ms; the first
    poll normally finds every key listed twice."""
    def listed():
        lists = client._lookups(keys)
        short = {k: (r if isinstance(r, Exception) else [x.node_id for x in r.replicas])
                 for k, r in zip(keys, lists) if isinstance(r, Exception) or len(r.replicas) != want}
        if short:
            print(f"{len(short)} keys not listed with {want} replicas yet, e.g. {list(short.items())[:3]}")
        return not short
    wait_for(listed, 60, f"{want} replicas of every value", interval=0.2)


def test_values_survive_a_storage_node_killed_mid_test(crash_pool, crash_client):
    before = _values("node-kill/before", 60)
    keys = list(before)
    assert crash_client.put_batch(keys, [Regions.of_buffer(before[k]) for k in keys]) == [None] * len(keys)
    _await_replicas(crash_client, keys, 2)
    victim = crash_pool.storage_nodes()[0]
    crash_pool.kill9(victim.pid)
    # every value has a replica elsewhere: readable at once, before the master even notices the death
    _read_all(crash_client, before)
    # puts keep working at once, single and batched: a replica granted on the dead node fails, the other one's
    # receipt completes the put (the master places nothing on the node once its TTL has run out)
    after = _values("node-kill/after", 30)
    keys = list(after)
    for key in keys[:15]:
        crash_client.put(key, after[key])
    assert crash_client.put_batch(keys[15:], [Regions.of_buffer(after[k]) for k in keys[15:]]) == [None] * 15
    _read_all(crash_client, after)
    wait_for(lambda: crash_client.stats().alive_nodes == 2, 60, "the master to declare the killed node dead")
    _read_all(crash_client, before)


def test_committed_values_survive_a_master_kill_and_restart(crash_pool, crash_client):
    values = _values("master-kill", 80)
    keys = list(values)
    half = len(keys) // 2
    assert crash_client.put_batch(keys[:half], [Regions.of_buffer(values[k]) for k in keys[:half]]) == [None] * half
    crash_pool.restart_master()
    # the same client: its pooled connection to the old master is dead; it reconnects, waits out RECOVERING
    for key in keys[half:]:
        crash_client.put(key, values[key])
    _read_all(crash_client, values)
    wait_for(lambda: crash_client.stats().state.name == "SERVING", 60, "the new master to finish recovering")
    _read_all(crash_client, values)
    for key in keys[:5]:
        assert crash_client.exists(key)


def test_puts_acknowledged_by_their_nodes_read_back_at_once_after_the_kill_of_a_node_whose_commits_never_left():
    """Issue 28: node-1 promises its COMMITs and never sends them (the test fault KVPOOL_FAULT_HOLD_COMMITS), which
    holds each of its puts where a node killed between its reply and its COMMIT leaves it; killed -9, every value the
    client was told is stored reads back at once."""
    import conftest
    p = start_pool(env={"KVPOOL_FAULT_HOLD_COMMITS": "node-1"}, memory="128MiB", pool_id="held-commits")
    try:
        with KvPoolClient(ClientConfig(p.master, pool_id="held-commits", pool_key=p.key, replicas=2, timeout=10,
                                       operation_timeout=60)) as c:
            values = _values("held-commits", 40)
            keys = list(values)
            for key in keys[:20]:
                assert c.put(key, values[key]) is True
            assert c.put_batch(keys[20:], [Regions.of_buffer(values[k]) for k in keys[20:]]) == [None] * 20
            assert c.put_commit_stats() == (40, 0), "every put acknowledged from its nodes' replies alone"
            victim = next(n for n in p.storage_nodes() if n.node_id == "node-1")
            p.kill9(victim.pid)
            _read_all(c, values)
    finally:
        p.stop()
        conftest._POOLS.remove(p)


def test_exists_answers_no_for_the_keys_of_a_dead_node_as_soon_as_the_master_declares_it_dead(crash_pool):
    """Issue 31: a value whose only replica was on a node the master declared dead is gone for exists, is_exist and
    batch_is_exist at once (not after some later expiry); values on live nodes still exist. Also remove_all(force):
    it removes what a plain remove_all leaves because a reader holds it."""
    store = KvPoolStore()
    assert store.setup(None, master_server_addr=crash_pool.master, pool_id="crash", pool_key=crash_pool.key,
                       replicas=1, timeout=10, operation_timeout=60) == 0
    try:
        client = store.client
        alive = [n for n in crash_pool.storage_nodes() if pid_alive(n.pid)]
        assert len(alive) >= 2, "the tests before kill one node of three"
        keys = [f"dead-node/{i}" for i in range(40)]
        assert store.put_batch(keys, [b"v%d" % i for i in range(len(keys))]) == 0
        holder = {k: client._lookup(k).replicas[0].node_id for k in keys}
        victim = next(n for n in alive if n.node_id in holder.values())
        lost = [k for k in keys if holder[k] == victim.node_id]
        kept = [k for k in keys if holder[k] != victim.node_id]
        assert lost and kept, holder
        nodes_before = client.stats().alive_nodes
        crash_pool.kill9(victim.pid)
        wait_for(lambda: client.stats().alive_nodes == nodes_before - 1, 60,
                 f"the master to declare {victim.node_id} dead")
        # no waiting from here: the master knows
        assert store.batch_is_exist(lost + kept) == [0] * len(lost) + [1] * len(kept)
        assert store.is_exist(lost[0]) == 0 and not client.exists(lost[-1])
        assert client.exists_batch(kept) == [True] * len(kept)

        assert store.get(kept[0]) == b"v%d" % keys.index(kept[0])  # a reader now holds its lease
        store.remove_all()
        assert store.is_exist(kept[0]) == 1, "kept by a plain remove_all: it is being read"
        assert store.remove_all(force=True) >= 1
        assert client.stats().objects == 0 and store.is_exist(kept[0]) == 0
    finally:
        store.close()
