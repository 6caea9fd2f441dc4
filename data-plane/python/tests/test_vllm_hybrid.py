"""kvpool's vLLM connector with hybrid models and device KV caches, against a real local pool.

Hybrid models (vLLM's hybrid memory allocator, ``SupportsHMA``): several KV-cache groups, each with its own block
table: full attention (every block of a prefix), sliding window (the blocks in its window; the ones behind it are
vLLM's null block) and Mamba (one state block). The spec classes are restated by name from vLLM commit
``003df2961dd8830c317a61f9745ccd557da9fa06`` (``vllm/v1/kv_cache_interface.py``: ``FullAttentionSpec``,
``SlidingWindowSpec.sliding_window``, ``MambaSpec``; ``KVCacheGroupSpec.layer_names`` / ``kv_cache_spec``).

Device KV caches move through a host staging buffer: ``host_staging`` stages host caches the same way (numpy's
block copies); with torch installed, CPU tensors go through torch's (``index_select`` / ``index_copy_``), the calls a
GPU's caches take."""

import random
from dataclasses import dataclass
from types import SimpleNamespace

import numpy as np
import pytest

from vllm_engine import (BLOCK_SIZE, LAYERS, EngineInstance, KVCacheBlocks, NewRequestData, Request,
                         SchedulerOutput, expected_block, vllm_config)

from kvpool import ClientConfig, KvPoolClient
from kvpool.integrations.vllm import BlockKeys, KvPoolConnector, block_hashes, content_seed
from kvpool.integrations.vllm.interface import KVConnectorRole, SupportsHMA
from kvpool.integrations.vllm.settings import KvGroup

NUM_BLOCKS = 32
STATE = 64  # a Mamba layer's state per block, float32


@dataclass
class FullAttentionSpec:
    block_size: int


@dataclass
class SlidingWindowSpec:
    block_size: int
    sliding_window: int


@dataclass
class MambaSpec:
    block_size: int


@dataclass
class ChunkedLocalAttentionSpec:
    block_size: int
    attention_chunk_size: int


FULL = ["model.layers.0.attn", "model.layers.2.attn"]
WINDOW = ["model.layers.1.attn", "model.layers.3.attn"]
MAMBA = ["model.layers.4.mixer"]


def hybrid_config():
    """Three groups; the window covers 2 blocks of tokens: a prefix needs its last 3 blocks (a window may start
    inside a block)."""
    return SimpleNamespace(num_blocks=NUM_BLOCKS, kv_cache_groups=[
        SimpleNamespace(layer_names=FULL, kv_cache_spec=FullAttentionSpec(BLOCK_SIZE)),
        SimpleNamespace(layer_names=WINDOW, kv_cache_spec=SlidingWindowSpec(BLOCK_SIZE, 2 * BLOCK_SIZE)),
        SimpleNamespace(layer_names=MAMBA, kv_cache_spec=MambaSpec(BLOCK_SIZE))])


def _extra(pool, **more):
    settings = {"masters": pool.master, "pool_key": pool.key, "replicas": 1, "timeout": 20.0, "operation_timeout": 60.0}
    return {"kvpool": settings, "cache_prefix": f"hyb{random.getrandbits(32):08x}", "lookup_timeout": 60.0, **more}


def _state(layer: str, tokens: list, block: int) -> np.ndarray:
    return expected_block(layer, tokens, block).reshape(-1)[:STATE].astype(np.float32)


class HybridInstance:
    """One instance of a hybrid model: a scheduler-side and a worker-side connector, caches per group (attention in
    FlashAttention's layout, Mamba as ``(num_blocks, STATE)``)."""

    def __init__(self, role: str, extra: dict):
        config = vllm_config(role, extra)
        self.scheduler = KvPoolConnector(config, KVConnectorRole.SCHEDULER, hybrid_config())
        self.worker = KvPoolConnector(config, KVConnectorRole.WORKER, hybrid_config())
        self.caches = {name: np.zeros((2, NUM_BLOCKS, BLOCK_SIZE, 2, 32), np.float16) for name in FULL + WINDOW}
        self.caches.update({name: np.zeros((NUM_BLOCKS, STATE), np.float32) for name in MAMBA})
        self.worker.register_kv_caches(self.caches)

    def block(self, layer: str, slot: int) -> np.ndarray:
        return self.caches[layer][slot] if layer in MAMBA else self.caches[layer][:, slot]

    def compute(self, layer, tokens, slots, blocks):
        for b in blocks:
            if slots[b] == 0:
                continue  # the null block: this group holds nothing there
            if layer in MAMBA:
                self.caches[layer][slots[b]] = _state(layer, tokens, b)
            else:
                self.caches[layer][:, slots[b]] = expected_block(layer, tokens, b)

    def prefill(self, request_id: str, tokens: list, slots: tuple) -> int:
        """One step over the whole prompt with ``slots`` (one list per group); answers the tokens the pool gave."""
        request = Request(request_id, tokens)
        external, _ = self.scheduler.get_num_new_matched_tokens(request, 0)
        self.scheduler.update_state_after_alloc(request, KVCacheBlocksOfGroups(slots), external)
        meta = self.scheduler.build_connector_meta(SchedulerOutput(
            scheduled_new_reqs=[NewRequestData(request_id, tokens, slots, external)],
            num_scheduled_tokens={request_id: len(tokens) - external}))
        self.worker.bind_connector_metadata(meta)
        self.worker.start_load_kv(forward_context=None)
        for group, layers in zip(slots, (FULL, WINDOW, MAMBA)):
            for layer in layers:
                self.worker.wait_for_layer_load(layer)
                self.compute(layer, tokens, group, range(external // BLOCK_SIZE, len(group)))
                self.worker.save_kv_layer(layer, self.caches[layer], attn_metadata=None)
        self.worker.wait_for_save()
        assert self.worker.get_block_ids_with_load_errors() == set()
        self.worker.clear_connector_metadata()
        self.scheduler.request_finished_all_groups(request, slots)
        self.scheduler.build_connector_meta(SchedulerOutput(finished_req_ids={request_id}))
        return external

    def close(self):
        self.scheduler.shutdown()
        self.worker.shutdown()


class KVCacheBlocksOfGroups(KVCacheBlocks):
    def __init__(self, groups: tuple):
        self._groups = groups

    def get_block_ids(self):
        return tuple(list(g) for g in self._groups)


def test_hybrid_model_groups_load_what_each_needs_byte_exact(pool):
    extra = _extra(pool)
    tokens = [random.Random(7).randrange(32000) for _ in range(6 * BLOCK_SIZE + 5)]
    keys = BlockKeys("test-model", BLOCK_SIZE, 1, extra["cache_prefix"], "float16-auto")
    hashes = block_hashes(tokens, BLOCK_SIZE, content_seed(Request("r", tokens)))
    producer, consumer = HybridInstance("kv_producer", extra), HybridInstance("kv_consumer", extra)
    assert isinstance(producer.scheduler, SupportsHMA)
    try:
        # the producer computes every block in every group (a prefill holds the window's blocks while it computes)
        assert producer.prefill("req-p", tokens, ([1, 2, 3, 4, 5, 6, 7], [8, 9, 10, 11, 12, 13, 14],
                                                  [15, 16, 17, 18, 19, 20, 21])) == 0
        # the consumer's sliding window holds only the blocks of its window, its Mamba group one state block: the
        # others are vLLM's null block 0, never written
        slots = ([1, 2, 3, 4, 5, 6, 7], [0, 0, 0, 11, 12, 13, 14], [0, 0, 0, 0, 0, 20, 21])
        request = Request("req-c", tokens)
        assert consumer.scheduler.get_num_new_matched_tokens(request, 0) == (6 * BLOCK_SIZE, False)
        consumer.scheduler.update_state_after_alloc(request, KVCacheBlocksOfGroups(slots), 6 * BLOCK_SIZE)
        meta = consumer.scheduler.build_connector_meta(SchedulerOutput(
            scheduled_new_reqs=[NewRequestData("req-c", tokens, slots, 6 * BLOCK_SIZE)],
            num_scheduled_tokens={"req-c": 5}))
        loads = {t.group: (len(t.hashes), t.block_ids) for t in meta.loads}
        assert loads == {0: (6, [1, 2, 3, 4, 5, 6]), 1: (3, [11, 12, 13]), 2: (1, [20])}
        assert meta.saves == []  # a consumer saves nothing
        consumer.worker.bind_connector_metadata(meta)
        consumer.worker.start_load_kv(forward_context=None)
        for layer in FULL + WINDOW + MAMBA:
            consumer.worker.wait_for_layer_load(layer)
        consumer.worker.wait_for_save()
        assert consumer.worker.get_block_ids_with_load_errors() == set()
        for layer in FULL:
            for b in range(6):
                assert consumer.block(layer, slots[0][b]).tobytes() == expected_block(layer, tokens, b).tobytes()
        for layer in WINDOW:
            for b in (3, 4, 5):
                assert consumer.block(layer, slots[1][b]).tobytes() == expected_block(layer, tokens, b).tobytes()
            assert not consumer.block(layer, 0).any(), "the null block is never written"
        assert consumer.block(MAMBA[0], 20).tobytes() == _state(MAMBA[0], tokens, 5).tobytes()
        assert not consumer.block(MAMBA[0], 0).any()

        # a hit needs only a windowed group's trailing blocks: losing Mamba's state of block 0 costs nothing; losing
        # the window's block 4 cuts the hit to 4 blocks (whose window is blocks 1..3); full attention needs all
        with KvPoolClient(ClientConfig(pool.master, pool_key=pool.key)) as c:
            c.remove(keys.key(0, MAMBA[-1], hashes[0]), force=True)  # the consumer just read it: wait out its lease
            assert consumer.scheduler.get_num_new_matched_tokens(Request("req-2", tokens), 0)[0] == 6 * BLOCK_SIZE
            c.remove(keys.key(0, WINDOW[-1], hashes[4]), force=True)  # the consumer just read it: wait out its lease
            assert consumer.scheduler.get_num_new_matched_tokens(Request("req-3", tokens), 0)[0] == 4 * BLOCK_SIZE
            c.remove(keys.key(0, FULL[-1], hashes[2]), force=True)  # the consumer just read it: wait out its lease
            assert consumer.scheduler.get_num_new_matched_tokens(Request("req-4", tokens), 0)[0] == 2 * BLOCK_SIZE
    finally:
        producer.close()
        consumer.close()


def test_each_kind_of_group_needs_its_window():
    def window(spec):
        return KvGroup.of(SimpleNamespace(layer_names=["l"], kv_cache_spec=spec), 16).window_blocks
    assert window(FullAttentionSpec(16)) is None
    assert window(SlidingWindowSpec(16, 4096)) == 257  # a window of 4096 tokens may start inside a block
    assert window(SlidingWindowSpec(16, 17)) == 2
    assert window(ChunkedLocalAttentionSpec(16, 8192)) == 513
    assert window(MambaSpec(16)) == 1
    assert window(None) is None  # a kind this connector does not know: every block, as full attention


def test_groups_of_different_block_sizes_are_refused():
    config = hybrid_config()
    config.kv_cache_groups[1].kv_cache_spec = SlidingWindowSpec(2 * BLOCK_SIZE, 64)
    with pytest.raises(ValueError, match="block sizes"):
        KvPoolConnector(vllm_config("kv_both", {}), KVConnectorRole.SCHEDULER, config)


def _round_trip_through_staging(pool, make_cache):
    """A producer and a consumer whose caches go through a 3-block staging buffer (chunks of 3 over 10 blocks)."""
    extra = _extra(pool, host_staging=True, staging_blocks=3)
    tokens = [random.Random(11).randrange(32000) for _ in range(10 * BLOCK_SIZE + 3)]
    producer = EngineInstance("kv_producer", extra, cache_factory=make_cache)
    consumer = EngineInstance("kv_consumer", extra, cache_factory=make_cache)
    try:
        assert producer.prefill("req-a", tokens).external_tokens == 0
        second = consumer.prefill("req-b", tokens)
        assert second.external_tokens == 10 * BLOCK_SIZE and second.load_errors == set()
        for layer in LAYERS:
            for b in range(11):
                got = np.asarray(consumer.block(layer, second.block_ids[b]))
                assert got.tobytes() == expected_block(layer, tokens, b).tobytes(), f"{layer} block {b}"
    finally:
        producer.close()
        consumer.close()


def test_caches_staged_through_a_host_buffer_round_trip_byte_exact(pool):
    _round_trip_through_staging(pool, lambda shape: np.zeros(shape, np.float16))


def test_torch_caches_take_the_device_path_byte_exact(pool):
    torch = pytest.importorskip("torch")
    _round_trip_through_staging(pool, lambda shape: torch.zeros(shape, dtype=torch.float16))


def test_a_staged_load_that_partly_fails_reports_only_the_missing_blocks(pool):
    """One layer's block 5 is gone: its slot is reported (vLLM recomputes from there), the other blocks of its staging
    chunk (4..7) still reach their slots."""
    extra = _extra(pool, host_staging=True, staging_blocks=4)
    tokens = [random.Random(13).randrange(32000) for _ in range(8 * BLOCK_SIZE + 3)]
    keys = BlockKeys("test-model", BLOCK_SIZE, 1, extra["cache_prefix"], "float16-auto")
    hashes = block_hashes(tokens, BLOCK_SIZE, content_seed(Request("r", tokens)))
    producer, consumer = EngineInstance("kv_producer", extra), EngineInstance("kv_consumer", extra)
    try:
        producer.prefill("req-a", tokens)
        with KvPoolClient(ClientConfig(pool.master, pool_key=pool.key)) as c:
            assert c.remove(keys.key(0, LAYERS[1], hashes[5]), force=True)
        second = consumer.prefill("req-b", tokens)
        assert second.external_tokens == 8 * BLOCK_SIZE
        assert second.load_errors == {second.block_ids[5]}
        assert second.recomputed_blocks == [5, 6, 7]
        for layer in LAYERS:
            for b in range(9):
                got = consumer.block(layer, second.block_ids[b])
                assert got.tobytes() == expected_block(layer, tokens, b).tobytes(), f"{layer} block {b}"
        assert consumer.block(LAYERS[1], second.block_ids[4]).tobytes() == \
            expected_block(LAYERS[1], tokens, 4).tobytes()  # loaded, not recomputed: its chunk-mate failed
    finally:
        producer.close()
        consumer.close()
