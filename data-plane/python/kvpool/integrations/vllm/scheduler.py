"""The scheduler side of the kvpool connector: how many prompt tokens the pool holds beyond the local cache, which
blocks each step loads and saves."""

from __future__ import annotations

from dataclasses import dataclass, field

from ...errors import KvPoolError
from ..failure_log import FailureLog
from .keys import block_hashes
from .metadata import BlockTransfer, KvPoolConnectorMetadata
from .settings import LOG, ConnectorSettings


@dataclass
class RequestState:
    """A running request: its prompt's block hashes, the cache slots allocated to it, and how many of its leading
    blocks need no save (loaded from the pool, or saved in an earlier step)."""

    hashes: list
    block_ids: list
    saved_blocks: int = 0


@dataclass
class PendingLoad:
    """A pool hit found by ``get_num_new_matched_tokens``: blocks ``first`` to ``end`` (exclusive) are to be loaded."""

    first: int
    end: int
    hashes: list
    block_ids: list = field(default_factory=list)


def content_seed(request) -> str | None:
    """What, besides its tokens, decides a request's KV, as the seed of its hash chain: its ``cache_salt`` (vLLM's
    per-user isolation) and its LoRA adapter. None for a request whose KV its token ids do not decide (multimodal
    inputs, whose placeholder tokens are alike for any image; prompt embeddings): it is neither looked up nor saved."""
    if getattr(request, "mm_features", None) or getattr(request, "prompt_embeds", None) is not None:
        return None
    lora = getattr(request, "lora_request", None)
    return f"{getattr(request, 'cache_salt', None) or ''}\0lora:{getattr(lora, 'lora_name', '') if lora else ''}"


def _block_ids(blocks) -> list:
    """The slots of the first (only) KV-cache group: ``KVCacheBlocks.get_block_ids()`` answers one list per group."""
    ids = blocks.get_block_ids() if hasattr(blocks, "get_block_ids") else blocks
    if isinstance(ids, tuple):
        ids = ids[0] if ids else []
    return list(ids)


class KvPoolScheduler:
    def __init__(self, settings: ConnectorSettings):
        if not settings.layer_names:
            raise ValueError("the kvpool connector needs the KV-cache groups' layer names (kv_cache_config)")
        self._settings = settings
        self._keys = settings.block_keys()
        self._client = settings.client(operation_timeout=settings.lookup_timeout)
        self._pending: dict = {}   # request id -> PendingLoad, until its blocks are allocated
        self._loads: dict = {}     # request id -> PendingLoad with slots, until the next step's metadata
        self._requests: dict = {}  # request id -> RequestState
        self._seeds: dict = {}     # request id -> content_seed(request), from allocation on
        self._failures = FailureLog(LOG)

    def _hashes(self, token_ids, seed: str) -> list:
        return block_hashes(list(token_ids), self._settings.block_size, seed)

    def _stored_prefix(self, hashes: list) -> int:
        """How many leading blocks the pool holds whole (on every rank); 0 when it cannot say within the lookup
        timeout."""
        if not hashes:
            return 0
        markers = self._keys.markers(self._settings.layer_names[-1], hashes)
        try:
            found = self._client.get().exists_batch(markers)
        except (KvPoolError, OSError) as e:
            self._failures.warning("kvpool lookup of %d blocks failed, computing them: %s", len(hashes), e)
            return 0
        ranks = self._settings.tp_size
        for block in range(len(hashes)):
            if not all(found[block * ranks:(block + 1) * ranks]):
                return block
        return len(hashes)

    def get_num_new_matched_tokens(self, request, num_computed_tokens: int):
        if not self._settings.enable_lookup:
            return 0, False
        size = self._settings.block_size
        prompt = request.prompt_token_ids
        seed = content_seed(request)
        # vLLM computes at least the last prompt token itself: only blocks before it can come from the pool
        usable = (len(prompt) - 1) // size
        if seed is None or usable * size <= num_computed_tokens:
            return 0, False
        hashes = self._hashes(prompt[:usable * size], seed)
        hit_blocks = self._stored_prefix(hashes)
        first = num_computed_tokens // size
        if hit_blocks <= first:
            return 0, False
        self._pending[request.request_id] = PendingLoad(first, hit_blocks, hashes[first:hit_blocks])
        return hit_blocks * size - num_computed_tokens, False

    def update_state_after_alloc(self, request, blocks, num_external_tokens: int) -> None:
        self._seeds[request.request_id] = content_seed(request)
        pending = self._pending.pop(request.request_id, None)
        if pending is None or num_external_tokens == 0:
            return
        slots = _block_ids(blocks)
        pending.block_ids = slots[pending.first:pending.end]
        self._loads[request.request_id] = pending

    def build_connector_meta(self, scheduler_output) -> KvPoolConnectorMetadata:
        meta = KvPoolConnectorMetadata()
        for request_id in scheduler_output.finished_req_ids:
            self._forget(request_id)
        for request_id in getattr(scheduler_output, "preempted_req_ids", None) or ():
            self._forget(request_id)
        scheduled = scheduler_output.num_scheduled_tokens
        for new in scheduler_output.scheduled_new_reqs:
            load = self._loads.pop(new.req_id, None)
            seed = self._seeds.get(new.req_id)
            if seed is None:  # not cacheable (or never allocated through this connector)
                continue
            state = RequestState(self._hashes(new.prompt_token_ids, seed), _block_ids(new.block_ids),
                                 saved_blocks=load.end if load else 0)
            self._requests[new.req_id] = state
            if load is not None:
                meta.loads.append(BlockTransfer(new.req_id, load.hashes, load.block_ids))
            self._plan_save(meta, new.req_id, state, new.num_computed_tokens + scheduled.get(new.req_id, 0))
        cached = scheduler_output.scheduled_cached_reqs
        resumed = getattr(cached, "resumed_req_ids", None) or set()
        for i, request_id in enumerate(cached.req_ids):
            state = self._requests.get(request_id)
            if state is None:
                continue
            new_ids = cached.new_block_ids[i]
            if new_ids is not None:
                new_ids = _block_ids(new_ids)
                state.block_ids = new_ids if request_id in resumed else state.block_ids + new_ids
            self._plan_save(meta, request_id, state, cached.num_computed_tokens[i] + scheduled.get(request_id, 0))
        return meta

    def _plan_save(self, meta: KvPoolConnectorMetadata, request_id: str, state: RequestState, computed: int) -> None:
        """Saves the prompt's full blocks that this step completes (decode tokens are not saved)."""
        if not self._settings.saves:
            return
        end = min(computed // self._settings.block_size, len(state.hashes), len(state.block_ids))
        if end > state.saved_blocks:
            meta.saves.append(BlockTransfer(request_id, state.hashes[state.saved_blocks:end],
                                            state.block_ids[state.saved_blocks:end]))
            state.saved_blocks = end

    def _forget(self, request_id: str) -> None:
        self._pending.pop(request_id, None)
        self._loads.pop(request_id, None)
        self._requests.pop(request_id, None)
        self._seeds.pop(request_id, None)

    def request_finished(self, request, block_ids):
        """Saves end within the step that computed the blocks (``wait_for_save``), so the blocks can be freed now."""
        self._forget(request.request_id)
        return False, None

    def close(self) -> None:
        self._client.close()
