"""kvpool's LMCache L2 adapter (``kvpool.integrations.lmcache``) created the way LMCache's ``plugin`` L2-adapter type
creates it and driven the way LMCache's store and prefetch controllers drive an L2 adapter (submit a task, wait on its
event fd, collect the result), against real local pools: byte-exact round trips, a second LMCache instance finding
the first's chunks, concurrent tasks from two controller threads, bad arguments.

LMCache does not install without torch, so its types are restated (``kvpool/integrations/lmcache/interface.py``
names the commit and files; ``lmcache_controller.py`` restates the caller's side). The pool-down case is in
``test_engines_pool_down.py``."""

import os
import random
import threading
import time

import pytest

from lmcache_controller import WAIT, MemoryObj, create_from_config, load, lookup, store, wait_result

from kvpool.errors import ErrorCode
from kvpool.integrations.lmcache import ObjectKey, wire_key
from pool import wait_for

CHUNK = 64 << 10


def _config(pool, **params):
    settings = {"masters": pool.master, "pool_key": pool.key, "replicas": 1, "timeout": 20.0, "operation_timeout": 60.0,
                "key_prefix": f"lmc{random.getrandbits(32):08x}"}
    settings.update(params)
    return {"type": "plugin", "module_path": "kvpool.integrations.lmcache", "class_name": "KvPoolL2Adapter",
            "adapter_params": settings}


def _keys(n: int, rank: int = 0, salt: str = ""):
    return [ObjectKey(os.urandom(32), "meta-llama/Llama-3.1-8B", rank, 0, salt) for _ in range(n)]


@pytest.fixture
def adapters(pool):
    made = []

    def make(**params):
        config = _config(pool, **params)
        if made:  # every instance of one deployment shares the namespace
            config["adapter_params"]["key_prefix"] = made[0][1]
        adapter = create_from_config(config)
        made.append((adapter, config["adapter_params"]["key_prefix"]))
        return adapter
    yield make
    for adapter, _ in made:
        adapter.close()


def test_wire_key_has_lmcache_s3_shape():
    key = ObjectKey(bytes.fromhex("ab01"), "m", 0x01000100, 2, "user7")
    assert wire_key(key) == "m@01000100@2@ab01@user7"
    assert wire_key(ObjectKey(b"\x01", "m", 1), prefix="p") == "p@m@00000001@0@01"


def test_store_lookup_lock_load_byte_exact_across_instances(adapters):
    first, second = adapters(), adapters()
    fds = {first.get_store_event_fd(), first.get_lookup_and_lock_event_fd(), first.get_load_event_fd(),
           second.get_store_event_fd(), second.get_lookup_and_lock_event_fd(), second.get_load_event_fd()}
    assert len(fds) == 6, "every event fd distinct, within and across adapters"
    keys = _keys(16)
    objects = [MemoryObj(os.urandom(CHUNK)) for _ in keys]
    result = store(first, keys, objects)
    assert result.is_successful() and result.bytes_transferred() == 16 * CHUNK

    missing = _keys(2)
    found = lookup(second, keys + missing)  # another LMCache instance of the deployment
    assert found.get_indices_list() == list(range(16)) and found.popcount() == 16
    assert second.locked_keys() == 16
    targets = [MemoryObj(size=CHUNK) for _ in keys]
    loaded = load(second, keys, targets)
    assert loaded.get_indices_list() == list(range(16))
    assert [t.bytes() for t in targets] == [o.bytes() for o in objects]
    second.submit_unlock(keys)
    assert second.locked_keys() == 0

    # a missing key and a buffer of another size are misses; the others of the task load
    mixed = [keys[0], missing[0], keys[1]]
    targets = [MemoryObj(size=CHUNK), MemoryObj(size=CHUNK), MemoryObj(size=CHUNK // 2)]
    assert load(second, mixed, targets).get_indices_list() == [0]
    assert targets[0].bytes() == objects[0].bytes()
    # storing chunks present already (same content, any instance) succeeds and keeps them
    again = store(second, keys[:4], [MemoryObj(o.bytes()) for o in objects[:4]])
    assert again.is_successful()
    assert second.report_status()["is_healthy"]
    # empty tasks complete too
    assert store(first, [], []).is_successful()
    assert lookup(first, []).popcount() == 0


def test_salted_and_ranked_keys_are_distinct(adapters):
    adapter = adapters()
    chunk = os.urandom(32)
    base = ObjectKey(chunk, "m", 0)
    others = [ObjectKey(chunk, "m", 1), ObjectKey(chunk, "m", 0, 1), ObjectKey(chunk, "m", 0, 0, "user")]
    assert store(adapter, [base], [MemoryObj(b"x" * 100)]).is_successful()
    assert lookup(adapter, [base] + others).get_indices_list() == [0]


def test_concurrent_tasks_from_two_controller_threads(adapters):
    adapter = adapters(num_workers=3)
    batches = [(_keys(8), [MemoryObj(os.urandom(CHUNK)) for _ in range(8)]) for _ in range(6)]
    failures: list = []
    stored = threading.Event()

    def store_controller():
        try:
            tasks = [adapter.submit_store_task(keys, objects) for keys, objects in batches]
            done: dict = {}

            def all_done():
                done.update(adapter.pop_completed_store_tasks())
                return done if set(tasks) <= set(done) else None
            results = wait_result(adapter.get_store_event_fd(), all_done, "6 store tasks")
            assert len(set(tasks)) == 6 and all(results[t].is_successful() for t in tasks)
        except BaseException as e:  # noqa: BLE001 - reported by the test thread
            failures.append(e)
        finally:
            stored.set()

    def prefetch_controller():
        try:
            # lookups race the stores: each key is found or not, never an error
            for keys, _ in batches:
                assert lookup(adapter, keys).popcount() in range(9)
                adapter.submit_unlock(keys)
            assert stored.wait(WAIT)
            lookups = [adapter.submit_lookup_and_lock_task(keys) for keys, _ in batches]
            targets = [[MemoryObj(size=CHUNK) for _ in keys] for keys, _ in batches]
            loads = [adapter.submit_load_task(keys, t) for (keys, _), t in zip(batches, targets)]
            for task in lookups:
                bitmap = wait_result(adapter.get_lookup_and_lock_event_fd(),
                                     lambda task=task: adapter.query_lookup_and_lock_result(task), "lookup")
                assert bitmap.popcount() == 8
            for task, t, (_, objects) in zip(loads, targets, batches):
                bitmap = wait_result(adapter.get_load_event_fd(), lambda task=task: adapter.query_load_result(task),
                                     "load")
                assert bitmap.popcount() == 8
                assert [x.bytes() for x in t] == [o.bytes() for o in objects]
            for keys, _ in batches:
                adapter.submit_unlock(keys)
        except BaseException as e:  # noqa: BLE001
            failures.append(e)

    threads = [threading.Thread(target=store_controller), threading.Thread(target=prefetch_controller)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(2 * WAIT)
    assert not any(t.is_alive() for t in threads)
    assert not failures, failures
    assert adapter.locked_keys() == 0


def test_bad_arguments_refused(adapters, pool):
    adapter = adapters()
    with pytest.raises(ValueError):
        adapter.submit_store_task(_keys(2), [MemoryObj(b"x")])
    with pytest.raises(ValueError):
        adapter.submit_load_task(_keys(1), [])
    with pytest.raises(ValueError):
        create_from_config(_config(pool, num_workers=0))
    with pytest.raises(TypeError):
        create_from_config(_config(pool, no_such_setting=1))  # a typo fails at configuration, not in a task


class _Listener:
    """An L2AdapterListener (``lmcache/v1/distributed/internal_api.py``): what the adapter tells LMCache's eviction."""

    def __init__(self):
        self.stored, self.accessed, self.deleted = [], [], []

    def on_l2_keys_stored(self, keys, sizes):
        self.stored += keys

    def on_l2_keys_accessed(self, keys):
        self.accessed += keys

    def on_l2_keys_deleted(self, keys):
        self.deleted += keys


def test_a_lookup_locks_its_keys_with_the_pools_read_lease(adapters, pool):
    """Locked keys stay through a remove until the lease ends (no eviction either); unlocking drops the local count."""
    from kvpool import ClientConfig, KvPoolClient
    adapter = adapters()
    keys = _keys(3)
    assert store(adapter, keys, [MemoryObj(os.urandom(1024)) for _ in keys]).is_successful()
    assert lookup(adapter, keys).popcount() == 3
    prefix = adapter._prefix
    with KvPoolClient(ClientConfig(pool.master, pool_key=pool.key)) as other:
        statuses = other.remove_batch([wire_key(k, prefix) for k in keys])
        assert [s.name for s in statuses] == ["OBJECT_LEASED"] * 3, "a lookup's lock keeps the keys"
    adapter.submit_unlock(keys)
    assert adapter.locked_keys() == 0


def test_delete_removes_keys_and_tells_the_listeners(adapters):
    adapter = adapters()
    listener = _Listener()
    adapter.register_listener(listener)
    keys = _keys(4)
    objects = [MemoryObj(os.urandom(2048)) for _ in keys]
    assert store(adapter, keys, objects).is_successful()
    assert set(listener.stored) == set(keys)
    adapter.delete(keys[:2] + _keys(1))  # a key never stored is no error
    assert set(listener.deleted) == set(keys[:2])
    found = lookup(adapter, keys)
    assert found.get_indices_list() == [2, 3]
    loaded = [MemoryObj(size=2048) for _ in keys]
    assert load(adapter, keys, loaded).get_indices_list() == [2, 3]
    assert loaded[2].bytes() == objects[2].bytes()


def test_list_l2_keys_pages_through_what_the_pool_still_holds(adapters, pool):
    adapter = adapters()
    keys = _keys(7)
    other_model = [ObjectKey(os.urandom(32), "other-model", 0) for _ in range(2)]
    assert store(adapter, keys + other_model, [MemoryObj(os.urandom(512)) for _ in range(9)]).is_successful()
    adapter.delete([keys[3]])
    listed, cursor, pages = [], None, 0
    while True:
        page = adapter.list_l2_keys(model_name="meta-llama/Llama-3.1-8B", page_size=2, cursor=cursor)
        listed += page.entries
        pages += 1
        cursor = page.next_page_token
        if cursor is None:
            break
        assert pages < 10
    assert [e.key.chunk_hash_hex for e in listed] == [k.chunk_hash.hex() for k in keys if k != keys[3]]
    assert {e.size_bytes for e in listed} == {512}
    assert len(adapter.list_l2_keys(page_size=100).entries) == 8
    with pytest.raises(ValueError):
        adapter.list_l2_keys(page_size=0)
    with pytest.raises(ValueError):
        adapter.list_l2_keys(cursor="not-a-cursor")


LOCK_LEASE = 2.0  # the short-lease pool's lease TTL, seconds


@pytest.fixture(scope="module")
def short_lease_pool():
    import conftest
    p = conftest.start_pool(storage_nodes="1", memory="32MiB", lease_ttl=f"{LOCK_LEASE:g}s")
    yield p
    p.stop()
    conftest._POOLS.remove(p)


def _leased(pool, wire: str) -> bool:
    """Whether another client's remove of ``wire`` is refused because a reader holds it leased."""
    from kvpool import ClientConfig, KvPoolClient
    from kvpool.errors import RemoteError
    with KvPoolClient(ClientConfig(pool.master, pool_key=pool.key, timeout=20, operation_timeout=60)) as other:
        try:
            other.remove(wire)
            return False
        except RemoteError as e:
            if e.code != ErrorCode.OBJECT_LEASED:
                raise
            return True


def test_a_lock_keeps_the_key_leased_past_the_lease_ttl_until_it_is_unlocked(short_lease_pool):
    """LMCache may load long after its lookup locked a key: the adapter renews the key's read lease while it is
    locked, so the pool neither evicts nor removes it; once unlocked, the lease ends within the TTL."""
    config = _config(short_lease_pool, lease_ttl=LOCK_LEASE)
    adapter = create_from_config(config)
    try:
        keys = _keys(3)
        objects = [MemoryObj(os.urandom(4096)) for _ in keys]
        assert store(adapter, keys, objects).is_successful()
        assert lookup(adapter, keys[:1]).get_indices_list() == [0]
        wire = wire_key(keys[0], config["adapter_params"]["key_prefix"])
        time.sleep(3 * LOCK_LEASE)  # three leases long: without renewal the lease would have ended
        assert _leased(short_lease_pool, wire), "a locked key stays leased"
        targets = [MemoryObj(size=4096)]
        assert load(adapter, keys[:1], targets).get_indices_list() == [0]
        assert targets[0].bytes() == objects[0].bytes()
        adapter.submit_unlock(keys[:1])
        assert adapter.locked_keys() == 0
        wait_for(lambda: not _leased(short_lease_pool, wire), 60, "the lease ends once the key is unlocked")
    finally:
        adapter.close()


def test_a_lock_never_released_stops_pinning_after_max_lock_seconds(short_lease_pool):
    config = _config(short_lease_pool, lease_ttl=LOCK_LEASE, max_lock_seconds=0)
    adapter = create_from_config(config)
    try:
        keys = _keys(1)
        assert store(adapter, keys, [MemoryObj(os.urandom(4096))]).is_successful()
        assert lookup(adapter, keys).get_indices_list() == [0]
        wire = wire_key(keys[0], config["adapter_params"]["key_prefix"])
        wait_for(lambda: not _leased(short_lease_pool, wire), 60, "the lease of a lock held too long ends")
        assert adapter.locked_keys() == 1, "LMCache's lock count is kept; only the lease stops"
    finally:
        adapter.close()
