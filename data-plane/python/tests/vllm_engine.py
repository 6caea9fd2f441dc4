"""What vLLM does around a KV connector, restated from vLLM commit 003df2961dd8830c317a61f9745ccd557da9fa06 for tests
that run without torch and vLLM: the types the connector reads (the config parts of ``VllmConfig``, ``KVCacheConfig``,
``Request``, ``KVCacheBlocks``, ``SchedulerOutput`` with ``NewRequestData`` / ``CachedRequestData``) and one
engine instance stepping a prefill the way vLLM's scheduler (``vllm/v1/core/sched/scheduler.py``) and GPU model runner
(``vllm/v1/worker/kv_connector_model_runner_mixin.py``; the attention layers' ``wait_for_kv_layer_from_connector`` /
``maybe_save_kv_layer_to_connector``) call the connector, and the recovery from failed loads
(``Scheduler._handle_invalid_blocks``). KV caches are
numpy arrays in vLLM's FlashAttention layout ``(2, num_blocks, block_size, kv_heads, head_size)``; a layer's "model"
writes K and V values derived from the layer and the token prefix, so any block's expected bytes are known."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from types import SimpleNamespace

import numpy as np

from kvpool.integrations.vllm import KvPoolConnector
from kvpool.integrations.vllm.interface import KVConnectorRole

BLOCK_SIZE = 16
KV_HEADS = 2
HEAD_SIZE = 32
NUM_BLOCKS = 64
LAYERS = [f"model.layers.{i}.self_attn.attn" for i in range(4)]


def vllm_config(role: str, extra: dict, model: str = "test-model", tensor_parallel_size: int = 1,
                cache_dtype: str = "auto"):
    """The parts of ``vllm.config.VllmConfig`` a KV connector reads."""
    return SimpleNamespace(
        kv_transfer_config=SimpleNamespace(kv_connector="KvPoolConnector",
                                           kv_connector_module_path="kvpool.integrations.vllm", kv_role=role,
                                           kv_connector_extra_config=extra),
        model_config=SimpleNamespace(model=model, dtype="torch.float16"),
        cache_config=SimpleNamespace(block_size=BLOCK_SIZE, cache_dtype=cache_dtype),
        parallel_config=SimpleNamespace(tensor_parallel_size=tensor_parallel_size))


def kv_cache_config():
    """``vllm.v1.kv_cache_interface.KVCacheConfig``: one full-attention group over every layer."""
    return SimpleNamespace(num_blocks=NUM_BLOCKS, kv_cache_groups=[SimpleNamespace(layer_names=list(LAYERS))])


@dataclass
class Request:
    """``vllm.v1.request.Request``: what the connector reads."""
    request_id: str
    prompt_token_ids: list
    cache_salt: str | None = None
    lora_request: object = None     # vllm.lora.request.LoRARequest: lora_name, ...
    mm_features: list | None = None  # multimodal inputs (their placeholder tokens stand for any image)

    @property
    def num_tokens(self) -> int:
        return len(self.prompt_token_ids)


class KVCacheBlocks:
    """``vllm.v1.core.kv_cache_manager.KVCacheBlocks``: one list of block ids per KV-cache group."""

    def __init__(self, block_ids: list):
        self._ids = block_ids

    def get_block_ids(self):
        return (list(self._ids),)


@dataclass
class NewRequestData:
    req_id: str
    prompt_token_ids: list
    block_ids: tuple
    num_computed_tokens: int


@dataclass
class CachedRequestData:
    req_ids: list = field(default_factory=list)
    resumed_req_ids: set = field(default_factory=set)
    new_block_ids: list = field(default_factory=list)
    num_computed_tokens: list = field(default_factory=list)


@dataclass
class SchedulerOutput:
    scheduled_new_reqs: list = field(default_factory=list)
    scheduled_cached_reqs: CachedRequestData = field(default_factory=CachedRequestData)
    num_scheduled_tokens: dict = field(default_factory=dict)
    finished_req_ids: set = field(default_factory=set)
    preempted_req_ids: set = field(default_factory=set)


def _like(cache, block: np.ndarray):
    """``block`` in the cache's kind: a numpy array, or a torch tensor for a torch cache."""
    if isinstance(cache, np.ndarray):
        return block
    import torch
    return torch.from_numpy(block)


def expected_block(layer: str, tokens: list, block: int) -> np.ndarray:
    """K and V of one block as the "model" computes them: a function of the layer and the tokens up to the block's
    end (attention's KV depends on the whole prefix)."""
    seed = hashlib.sha256(layer.encode() + np.asarray(tokens[:(block + 1) * BLOCK_SIZE], np.int64).tobytes()).digest()
    rng = np.random.default_rng(int.from_bytes(seed[:8], "little"))
    return rng.standard_normal((2, BLOCK_SIZE, KV_HEADS, HEAD_SIZE)).astype(np.float16)


@dataclass
class Prefill:
    """One prefill as the engine ran it."""
    block_ids: list
    external_tokens: int            # what get_num_new_matched_tokens answered
    load_errors: set                # what get_block_ids_with_load_errors answered
    recomputed_blocks: list         # blocks vLLM recomputed because their load failed
    layer_saved: list = field(default_factory=list)  # per layer: what the hook saw right after save_kv_layer


class EngineInstance:
    """One vLLM instance with one worker: a scheduler-side and a worker-side connector, a paged KV cache per layer,
    a free-block list. ``after_save_kv_layer(layer, block_ids)`` is called between a layer's save and the next
    layer's compute (tests watch the layer's blocks leave there)."""

    def __init__(self, role: str, extra: dict, after_save_kv_layer=None, cache_factory=None):
        config, cache_config = vllm_config(role, extra), kv_cache_config()
        self.scheduler = KvPoolConnector(config, KVConnectorRole.SCHEDULER, cache_config)
        self.worker = KvPoolConnector(config, KVConnectorRole.WORKER, cache_config)
        make = cache_factory or (lambda shape: np.zeros(shape, np.float16))  # e.g. torch tensors
        self.caches = {name: make((2, NUM_BLOCKS, BLOCK_SIZE, KV_HEADS, HEAD_SIZE)) for name in LAYERS}
        self.worker.register_kv_caches(self.caches)
        self._free = list(range(NUM_BLOCKS))
        self._after_save = after_save_kv_layer

    def close(self) -> None:
        self.scheduler.shutdown()
        self.worker.shutdown()

    def block(self, layer: str, block_id: int) -> np.ndarray:
        return self.caches[layer][:, block_id]

    def _compute(self, layer: str, tokens: list, block_ids: list, blocks) -> None:
        for b in blocks:
            block = expected_block(layer, tokens, b)
            cache = self.caches[layer]
            cache[:, block_ids[b]] = _like(cache, block)

    def _forward(self, meta, tokens: list, block_ids: list, compute_blocks, layer_saved: list | None = None) -> set:
        """The model runner's forward pass with the connector bound; answers the slots whose load failed."""
        self.worker.bind_connector_metadata(meta)
        self.worker.start_load_kv(forward_context=None)
        for layer in LAYERS:  # each attention layer: wait for its load, compute, save
            self.worker.wait_for_layer_load(layer)
            self._compute(layer, tokens, block_ids, compute_blocks)
            self.worker.save_kv_layer(layer, self.caches[layer], attn_metadata=None)
            if self._after_save is not None and layer_saved is not None:
                layer_saved.append(self._after_save(layer, block_ids))
        self.worker.wait_for_save()
        errors = self.worker.get_block_ids_with_load_errors()
        self.worker.clear_connector_metadata()
        return errors

    def prefill_chunked(self, request_id: str, tokens: list, chunk_tokens: int):
        """Chunked prefill (vLLM V1's default): the prompt computed ``chunk_tokens`` (a multiple of the block size)
        per step, the request scheduled as new in the first step and as a cached request, with the blocks allocated
        for the step, in the next ones. Answers the slots and how many blocks each step's metadata saved."""
        assert chunk_tokens % BLOCK_SIZE == 0
        request = Request(request_id, tokens)
        external, _ = self.scheduler.get_num_new_matched_tokens(request, 0)
        computed, saved = external, []
        block_ids: list = []
        while computed < len(tokens):
            end = min(len(tokens), computed + chunk_tokens)
            new = [self._free.pop() for _ in range(-(-end // BLOCK_SIZE) - len(block_ids))]
            block_ids += new
            if computed == external:  # the first step
                self.scheduler.update_state_after_alloc(request, KVCacheBlocks(block_ids), external)
                output = SchedulerOutput(scheduled_new_reqs=[NewRequestData(request_id, tokens, (list(block_ids),),
                                                                            computed)],
                                         num_scheduled_tokens={request_id: end - computed})
            else:
                output = SchedulerOutput(
                    scheduled_cached_reqs=CachedRequestData([request_id], set(), [(new,) if new else None], [computed]),
                    num_scheduled_tokens={request_id: end - computed})
            meta = self.scheduler.build_connector_meta(output)
            saved.append(sum(len(t.hashes) for t in meta.saves))
            assert not self._forward(meta, tokens, block_ids, range(computed // BLOCK_SIZE, -(-end // BLOCK_SIZE)))
            computed = end
        self.scheduler.request_finished(request, block_ids)
        self.scheduler.build_connector_meta(SchedulerOutput(finished_req_ids={request_id}))
        return block_ids, saved

    def prefill(self, request_id: str, tokens: list, num_computed_tokens: int = 0, before_forward=None,
                **request_fields) -> Prefill:
        """Schedules the whole prompt in one step (``num_computed_tokens``: a local prefix-cache hit) and runs it;
        ``before_forward()`` runs between the scheduler's step and the worker's."""
        request = Request(request_id, tokens, **request_fields)
        # scheduler: Scheduler.schedule() for a waiting request
        external, load_async = self.scheduler.get_num_new_matched_tokens(request, num_computed_tokens)
        assert load_async is False and external is not None
        block_ids = [self._free.pop() for _ in range(-(-len(tokens) // BLOCK_SIZE))]
        self.scheduler.update_state_after_alloc(request, KVCacheBlocks(block_ids), external)
        computed = num_computed_tokens + external
        output = SchedulerOutput(
            scheduled_new_reqs=[NewRequestData(request_id, tokens, (block_ids,), computed)],
            num_scheduled_tokens={request_id: len(tokens) - computed})
        meta = self.scheduler.build_connector_meta(output)
        if before_forward is not None:
            before_forward()
        result = Prefill(block_ids, external, set(), [])
        first_computed = computed // BLOCK_SIZE
        result.load_errors = self._forward(meta, tokens, block_ids, range(first_computed, len(block_ids)),
                                           result.layer_saved)
        if result.load_errors:
            # vLLM's recovery with kv_load_failure_policy "recompute" (Scheduler._handle_invalid_blocks): the
            # request's computed tokens are cut back to the first failed block, and the next step computes from there
            first_failed = min(block_ids.index(b) for b in result.load_errors)
            result.recomputed_blocks = list(range(first_failed, first_computed))
            for layer in LAYERS:
                self._compute(layer, tokens, block_ids, result.recomputed_blocks)
        done = SchedulerOutput(finished_req_ids={request_id})
        self.scheduler.request_finished(request, block_ids)
        self.scheduler.build_connector_meta(done)
        return result
