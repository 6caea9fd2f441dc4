"""kvpool's vLLM KV connector (``kvpool.integrations.vllm``) driven the way vLLM drives a V1 connector
(``vllm_engine.py``: the restated vLLM types and call sequence) against real local pools: a producer saves layer by
layer and a consumer loads byte-exact, a prefix shared by two requests is stored once. The pool-down case is in
``test_engines_pool_down.py``."""

import importlib
import logging
import random
from types import SimpleNamespace

import numpy as np
import pytest

from pool import wait_for
from vllm_engine import (BLOCK_SIZE, LAYERS, EngineInstance, KVCacheBlocks, NewRequestData, Request,
                         SchedulerOutput, expected_block, kv_cache_config, vllm_config)

from kvpool import ClientConfig, KvPoolClient
from kvpool.errors import KvPoolError
from kvpool.integrations.failure_log import FailureLog
from kvpool.integrations.vllm import BlockKeys, KvPoolConnector, block_hashes, content_seed
from kvpool.integrations.vllm.interface import KVConnectorRole
from kvpool.integrations.vllm.settings import ConnectorSettings
from kvpool.integrations.vllm.worker import PagedLayer

def _extra(pool, **more):
    """``kv_connector_extra_config`` as a deployment writes it, with generous timeouts (a busy machine must not fail a
    test); each test gets its own key namespace."""
    settings = {"masters": pool.master, "pool_key": pool.key, "replicas": 1, "timeout": 20.0, "operation_timeout": 60.0}
    return {"kvpool": settings, "cache_prefix": f"test{random.getrandbits(32):08x}", "lookup_timeout": 60.0, **more}


def _prompt(blocks: int, tail: int = 5, seed: int = 0) -> list:
    rng = random.Random(seed)
    return [rng.randrange(32000) for _ in range(blocks * BLOCK_SIZE + tail)]


def _keys(extra) -> BlockKeys:
    return BlockKeys("test-model", BLOCK_SIZE, 1, extra["cache_prefix"], "float16-auto")


def _assert_blocks(instance, tokens, block_ids, blocks):
    for layer in LAYERS:
        for b in blocks:
            got, want = instance.block(layer, block_ids[b]), expected_block(layer, tokens, b)
            assert got.tobytes() == want.tobytes(), f"layer {layer} block {b} differs"


def test_selected_by_module_path():
    """vLLM's KVConnectorFactory: ``importlib.import_module(kv_connector_module_path)`` then the class by name."""
    module = importlib.import_module("kvpool.integrations.vllm")
    assert getattr(module, "KvPoolConnector") is KvPoolConnector


def test_block_hashes_chain_over_the_prefix():
    a, b = _prompt(4, seed=1), _prompt(4, seed=2)
    shared = a[:2 * BLOCK_SIZE] + b[2 * BLOCK_SIZE:]
    ha, hs = block_hashes(a, BLOCK_SIZE), block_hashes(shared, BLOCK_SIZE)
    assert len(ha) == 4 and ha[:2] == hs[:2] and ha[2] != hs[2]
    assert block_hashes(shared[:3 * BLOCK_SIZE], BLOCK_SIZE) == hs[:3]  # a block's hash names its whole prefix
    assert block_hashes(a, BLOCK_SIZE, salt="other") != ha


def test_keys_name_the_model_its_data_types_block_size_and_rank():
    settings = ConnectorSettings.of(vllm_config("kv_both", {"cache_prefix": "prod"}), kv_cache_config())
    assert settings.block_keys().key(0, "L0", b"\xab") == "prod@test-model@float16-auto@bs16@tp0of1@L0@ab"
    fp8 = ConnectorSettings.of(vllm_config("kv_both", {"cache_prefix": "prod"}, cache_dtype="fp8"), kv_cache_config())
    assert fp8.block_keys().key(0, "L0", b"\xab") != settings.block_keys().key(0, "L0", b"\xab")


def test_producer_saves_layer_by_layer_and_consumer_loads_byte_exact(pool):
    extra = _extra(pool)
    keys = _keys(extra)
    tokens = _prompt(10)
    hashes = block_hashes(tokens, BLOCK_SIZE, content_seed(Request("req-a", tokens)))
    with KvPoolClient(ClientConfig(pool.master, pool_key=pool.key)) as watcher:
        def layer_left(layer, block_ids):
            """Right after save_kv_layer(layer), before the next layer computes: this layer's blocks reach the pool
            while the later layers have none stored yet; the last layer, whose keys mark blocks complete, waits for
            wait_for_save."""
            if layer == LAYERS[-1]:
                return not any(watcher.exists_batch([keys.key(0, layer, h) for h in hashes]))
            wait_for(lambda: all(watcher.exists_batch([keys.key(0, layer, h) for h in hashes])), 60,
                     f"the blocks of {layer} in the pool")
            later = LAYERS[LAYERS.index(layer) + 1:]
            return not any(watcher.exists_batch([keys.key(0, lay, h) for lay in later for h in hashes]))

        producer = EngineInstance("kv_producer", extra, after_save_kv_layer=layer_left)
        consumer = EngineInstance("kv_consumer", extra)
        try:
            stats_before = watcher.stats().objects
            first = producer.prefill("req-a", tokens)
            assert first.external_tokens == 0 and first.load_errors == set()
            assert first.layer_saved == [True] * len(LAYERS)
            assert all(watcher.exists_batch([keys.key(0, LAYERS[-1], h) for h in hashes]))
            assert watcher.stats().objects - stats_before == 10 * len(LAYERS)  # the 10 full blocks, each layer

            second = consumer.prefill("req-b", tokens)
            assert second.external_tokens == 10 * BLOCK_SIZE and second.load_errors == set()
            _assert_blocks(consumer, tokens, second.block_ids, range(11))  # 10 loaded, the tail computed
            assert watcher.stats().objects - stats_before == 10 * len(LAYERS)  # a consumer saves nothing

            # a prompt of exactly 10 blocks: vLLM computes its last token itself, so 9 blocks come from the pool
            exact = consumer.prefill("req-c", tokens[:10 * BLOCK_SIZE])
            assert exact.external_tokens == 9 * BLOCK_SIZE
            _assert_blocks(consumer, tokens, exact.block_ids, range(10))
            # the local prefix cache holds 4 blocks: only the 6 beyond them are loaded
            assert consumer.scheduler.get_num_new_matched_tokens(
                type("R", (), {"request_id": "req-d", "prompt_token_ids": tokens})(), 4 * BLOCK_SIZE) \
                == (6 * BLOCK_SIZE, False)
        finally:
            producer.close()
            consumer.close()


def test_shared_prefix_is_stored_once_across_instances(pool):
    extra = _extra(pool)
    prefix = _prompt(6, tail=0, seed=3)
    first_tokens = prefix + _prompt(3, seed=4)
    second_tokens = prefix + _prompt(3, seed=5)
    one, two = EngineInstance("kv_both", extra), EngineInstance("kv_both", extra)
    try:
        with KvPoolClient(ClientConfig(pool.master, pool_key=pool.key)) as watcher:
            before = watcher.stats().objects
            first = one.prefill("req-1", first_tokens)
            assert first.external_tokens == 0
            assert watcher.stats().objects - before == 9 * len(LAYERS)
            second = two.prefill("req-2", second_tokens)
            assert second.external_tokens == 6 * BLOCK_SIZE and second.load_errors == set()
            _assert_blocks(two, second_tokens, second.block_ids, range(10))
            # only the second request's own 3 blocks were added
            assert watcher.stats().objects - before == 12 * len(LAYERS)
            again = one.prefill("req-3", second_tokens)  # the first instance now finds the second's blocks too
            assert again.external_tokens == 9 * BLOCK_SIZE
            _assert_blocks(one, second_tokens, again.block_ids, range(10))
            assert watcher.stats().objects - before == 12 * len(LAYERS)
            # another user's cache_salt (vLLM's per-user isolation) shares nothing, and stores its own blocks
            salted = two.prefill("req-4", second_tokens, cache_salt="user-7")
            assert salted.external_tokens == 0
            assert watcher.stats().objects - before == 21 * len(LAYERS)
            # nor another LoRA adapter (its KV differs for the same tokens)
            adapted = two.prefill("req-5", second_tokens, lora_request=SimpleNamespace(lora_name="sql-adapter"))
            assert adapted.external_tokens == 0
            assert watcher.stats().objects - before == 30 * len(LAYERS)
            # multimodal requests are neither looked up nor saved: their tokens do not decide their KV
            image = two.prefill("req-6", second_tokens, mm_features=[SimpleNamespace(identifier="img-1")])
            assert image.external_tokens == 0
            assert watcher.stats().objects - before == 30 * len(LAYERS)
    finally:
        one.close()
        two.close()


def test_chunked_prefill_saves_each_step_s_full_blocks(pool):
    extra = _extra(pool)
    tokens = _prompt(10)
    producer, consumer = EngineInstance("kv_producer", extra), EngineInstance("kv_consumer", extra)
    try:
        block_ids, saved = producer.prefill_chunked("req-1", tokens, chunk_tokens=3 * BLOCK_SIZE)
        assert saved == [3, 3, 3, 1]  # the last step completes block 9; the 5-token tail is never saved
        _assert_blocks(producer, tokens, block_ids, range(11))
        loaded = consumer.prefill("req-2", tokens)
        assert loaded.external_tokens == 10 * BLOCK_SIZE
        _assert_blocks(consumer, tokens, loaded.block_ids, range(11))
        # a chunked prefill that starts from a pool hit saves only what it computes
        _, saved = consumer.prefill_chunked("req-3", tokens, chunk_tokens=2 * BLOCK_SIZE)
        assert saved == [0]  # a consumer never saves; the one step computes the tail
        extended = tokens[:10 * BLOCK_SIZE] + _prompt(4, seed=11)
        _, saved = producer.prefill_chunked("req-4", extended, chunk_tokens=2 * BLOCK_SIZE)
        assert saved == [2, 2, 0]  # 10 blocks loaded; 4 new ones computed and saved in two steps, then the tail
    finally:
        producer.close()
        consumer.close()


def test_a_prefix_counts_once_every_tensor_parallel_rank_stored_it(pool):
    """With tensor parallelism each worker stores its own rank's slice of a block; the scheduler matches a block
    only when every rank's slice is in the pool."""
    extra = _extra(pool)
    tokens = _prompt(4)
    cache_config = kv_cache_config()

    def connector(role, rank=0):
        config = vllm_config("kv_both", {**extra, "tp_rank": rank}, tensor_parallel_size=2)
        return KvPoolConnector(config, role, cache_config)
    scheduler = connector(KVConnectorRole.SCHEDULER)
    workers = [connector(KVConnectorRole.WORKER, rank) for rank in (0, 1)]
    caches = [{name: np.full((2, 8, BLOCK_SIZE, 1, 32), rank + 1, np.float16) for name in LAYERS} for rank in (0, 1)]
    try:
        for worker, cache in zip(workers, caches):
            worker.register_kv_caches(cache)
        request = SimpleNamespace(request_id="req-1", prompt_token_ids=tokens, cache_salt=None)
        assert scheduler.get_num_new_matched_tokens(request, 0) == (0, False)
        scheduler.update_state_after_alloc(request, KVCacheBlocks(list(range(5))), 0)
        meta = scheduler.build_connector_meta(SchedulerOutput(
            scheduled_new_reqs=[NewRequestData("req-1", tokens, (list(range(5)),), 0)],
            num_scheduled_tokens={"req-1": len(tokens)}))

        def forward(worker, cache):
            worker.bind_connector_metadata(meta)
            worker.start_load_kv(forward_context=None)
            for layer in LAYERS:
                worker.wait_for_layer_load(layer)
                worker.save_kv_layer(layer, cache[layer], attn_metadata=None)
            worker.wait_for_save()
            worker.clear_connector_metadata()
        forward(workers[0], caches[0])
        again = SimpleNamespace(request_id="req-2", prompt_token_ids=tokens, cache_salt=None)
        assert scheduler.get_num_new_matched_tokens(again, 0) == (0, False), "rank 1's slices are missing"
        forward(workers[1], caches[1])
        assert scheduler.get_num_new_matched_tokens(again, 0) == (4 * BLOCK_SIZE, False)
    finally:
        scheduler.shutdown()
        for worker in workers:
            worker.shutdown()


def test_lookup_disabled_never_loads(pool):
    extra = _extra(pool)
    tokens = _prompt(3)
    producer = EngineInstance("kv_producer", extra)
    prefill_only = EngineInstance("kv_producer", {**extra, "enable_lookup": "false"})
    try:
        producer.prefill("req-1", tokens)
        assert prefill_only.prefill("req-2", tokens).external_tokens == 0
        _assert_blocks(prefill_only, tokens, prefill_only.prefill("req-3", tokens).block_ids, range(4))
    finally:
        producer.close()
        prefill_only.close()


def test_kv_cache_layouts_and_device_memory():
    """Block regions of vLLM's layouts, and a KV cache this connector cannot read refused with a reason."""
    flash = np.zeros((2, 8, 16, 2, 32), np.float16)   # FlashAttention: K and V apart
    layer = PagedLayer("l0", flash)
    assert layer.value_bytes == 2 * 16 * 2 * 32 * 2
    regions = layer.regions(3, writable=True)
    regions.views[0][:] = b"\x01" * len(regions.views[0])
    regions.views[1][:] = b"\x02" * len(regions.views[1])
    assert (flash[0, 3] != 0).all() and (flash[1, 3] != 0).all() and not flash[:, 2].any() and not flash[:, 4].any()
    mla = PagedLayer("l1", np.zeros((8, 16, 576), np.float16))   # MLA: one latent vector per token
    assert mla.value_bytes == 16 * 576 * 2 and len(mla.regions(0, writable=False).views) == 1
    with pytest.raises(IndexError):
        layer.regions(8, writable=False)
    with pytest.raises(KvPoolError, match="not contiguous"):
        PagedLayer("l2", np.zeros((8, 16, 64), np.float16)[:, :, :32])
    cuda = SimpleNamespace(data_ptr=lambda: 0, device=SimpleNamespace(type="cuda"))  # what a torch tensor tells
    with pytest.raises(KvPoolError, match="host memory"):
        PagedLayer("l3", cuda)


def test_pool_failures_are_logged_once_per_interval():
    records = []

    class Collect(logging.Handler):
        def emit(self, record):
            records.append(record.getMessage())
    logger = logging.getLogger("kvpool.test.failures")
    logger.addHandler(Collect())
    logger.propagate = False
    held = FailureLog(logger, interval=3600)
    for i in range(5):
        held.warning("lookup %d failed", i)
    assert records == ["lookup 0 failed"]
    every = FailureLog(logger, interval=0)
    every.warning("a")
    every.warning("b")
    assert records[1:] == ["a", "b"]
