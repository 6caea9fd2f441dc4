"""The vLLM connector and the LMCache adapter when their pool dies (every pool process ``kill -9``ed), on one pool of
its own: vLLM gets the blocks it was loading back as load errors and recomputes them, LMCache gets failed tasks, all
within about one operation timeout; engines started while the pool is down serve without it."""

import os
import random
import time

import pytest

from conftest import start_pool
from lmcache_controller import MemoryObj, create_from_config, lookup, store, wait_result
from vllm_engine import BLOCK_SIZE, LAYERS, EngineInstance, expected_block

from kvpool.integrations.lmcache import ObjectKey

OPERATION_TIMEOUT = 2.0
BOUND = 3 * OPERATION_TIMEOUT  # one operation timeout, one exchange cut short, a busy machine
CHUNK = 64 << 10


@pytest.fixture
def doomed_pool():
    import conftest
    p = start_pool(storage_nodes="1", memory="64MiB")
    yield p
    p.stop()
    conftest._POOLS.remove(p)


def _client_settings(pool, down: bool) -> dict:
    """Generous timeouts while the pool serves (a busy machine must not fail a test), short ones where a test
    waits for the dead pool."""
    return {"masters": pool.master, "pool_key": pool.key, "replicas": 1, "timeout": 1.0 if down else 20.0,
            "operation_timeout": OPERATION_TIMEOUT if down else 60.0}


def _vllm_extra(pool, prefix: str, down: bool, lookup_timeout: float) -> dict:
    return {"kvpool": _client_settings(pool, down), "cache_prefix": prefix, "lookup_timeout": lookup_timeout}


def _lmcache_config(pool, prefix: str, down: bool) -> dict:
    return {"type": "plugin", "module_path": "kvpool.integrations.lmcache", "class_name": "KvPoolL2Adapter",
            "adapter_params": {**_client_settings(pool, down), "key_prefix": prefix}}


def _prompt(blocks: int) -> list:
    rng = random.Random(blocks)
    return [rng.randrange(32000) for _ in range(blocks * BLOCK_SIZE + 5)]


def _assert_blocks(instance, tokens, block_ids, blocks):
    for layer in LAYERS:
        for b in blocks:
            assert instance.block(layer, block_ids[b]).tobytes() == expected_block(layer, tokens, b).tobytes(), \
                f"layer {layer} block {b} differs"


def test_pool_down_vllm_recomputes_and_lmcache_tasks_fail(doomed_pool):
    prefix = f"down{random.getrandbits(32):08x}"
    tokens = _prompt(8)
    chunks = [ObjectKey(os.urandom(32), "m", 0) for _ in range(4)]
    producer = EngineInstance("kv_producer", _vllm_extra(doomed_pool, prefix, down=False, lookup_timeout=60.0))
    # the consumer's scheduler matches while the pool serves (a generous lookup timeout); its worker meets the dead
    # pool with a short operation timeout
    consumer = EngineInstance("kv_both", _vllm_extra(doomed_pool, prefix, down=True, lookup_timeout=60.0))
    writer = create_from_config(_lmcache_config(doomed_pool, prefix, down=False))
    reader = create_from_config(_lmcache_config(doomed_pool, prefix, down=True))
    late = late_reader = None
    try:
        producer.prefill("req-1", tokens)
        assert store(writer, chunks, [MemoryObj(os.urandom(CHUNK)) for _ in chunks]).is_successful()
        assert lookup(reader, chunks).popcount() == 4  # found and locked: LMCache will load them next
        died = []

        def pool_dies():
            """After the consumer's scheduler matched the blocks, before its worker loads them."""
            for process in doomed_pool.processes:
                doomed_pool.kill9(process.pid)
            died.append(time.monotonic())

        result = consumer.prefill("req-2", tokens, before_forward=pool_dies)
        took = time.monotonic() - died[0]
        assert result.external_tokens == 8 * BLOCK_SIZE
        assert result.load_errors == set(result.block_ids[:8]), "every block that was to be loaded is reported"
        assert result.recomputed_blocks == list(range(8))
        _assert_blocks(consumer, tokens, result.block_ids, range(9))  # recomputed: the right KV all the same
        # one operation timeout for the loads of every layer (a block that failed is not asked for again in later
        # layers), one for the saves of the block the consumer computed
        assert took < 2 * BOUND, f"vLLM's forward pass against a dead pool took {took:.1f} s"

        # LMCache's locked chunks cannot be loaded now; new stores and lookups fail; all three tasks at once
        started = time.monotonic()
        more = [ObjectKey(os.urandom(32), "m", 0) for _ in range(64)]
        tasks = (reader.submit_load_task(chunks, [MemoryObj(size=CHUNK) for _ in chunks]),
                 reader.submit_store_task(more, [MemoryObj(os.urandom(1024)) for _ in more]),
                 reader.submit_lookup_and_lock_task(more))
        assert wait_result(reader.get_load_event_fd(), lambda: reader.query_load_result(tasks[0]), "load",
                           BOUND).popcount() == 0
        done: dict = {}

        def stored():
            done.update(reader.pop_completed_store_tasks())
            return done.get(tasks[1])
        result = wait_result(reader.get_store_event_fd(), stored, "store", BOUND)
        assert not result.is_successful() and result.bytes_transferred() == 0
        assert wait_result(reader.get_lookup_and_lock_event_fd(),
                           lambda: reader.query_lookup_and_lock_result(tasks[2]), "lookup", BOUND).popcount() == 0
        took = time.monotonic() - started
        assert took < BOUND, f"three LMCache tasks against a dead pool took {took:.1f} s"
        assert not reader.report_status()["is_healthy"]
        reader.submit_unlock(chunks)
        assert reader.locked_keys() == 0

        # engines started while the pool is down serve without it: no match within the lookup timeout, saves and
        # tasks failing within one operation timeout, everything computed
        started = time.monotonic()
        late = EngineInstance("kv_both", _vllm_extra(doomed_pool, prefix, down=True,
                                                     lookup_timeout=OPERATION_TIMEOUT))
        fresh = late.prefill("req-3", tokens)
        assert fresh.external_tokens == 0 and fresh.load_errors == set()
        _assert_blocks(late, tokens, fresh.block_ids, range(9))
        late_reader = create_from_config(_lmcache_config(doomed_pool, prefix, down=True))
        assert lookup(late_reader, chunks, timeout=BOUND).popcount() == 0
        took = time.monotonic() - started
        assert took < 2 * BOUND, f"engines started against a dead pool took {took:.1f} s"
    finally:
        for instance in (producer, consumer, late):
            if instance is not None:
                instance.close()
        for adapter in (writer, reader, late_reader):
            if adapter is not None:
                adapter.close()
