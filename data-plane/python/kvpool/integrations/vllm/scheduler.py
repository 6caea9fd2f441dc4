"""The scheduler side of the kvpool connector: how many prompt tokens the pool holds beyond the local cache, which
blocks each step loads and saves."""

from __future__ import annotations

from dataclasses import dataclass, field

from ...errors import KvPoolError
from ..failure_log import FailureLog
from .keys import block_hashes
from .metadata import BlockTransfer, KvPoolConnectorMetadata
from .settings import LOG, ConnectorSettings


# vLLM's null block (BlockPool.null_block, the pool's first block): a slot a windowed group does not hold for a request
# (a sliding window's blocks behind the window, a Mamba group's blocks before its state); never loaded nor saved
NULL_BLOCK = 0


@dataclass
class RequestState:
    """A running request: its prompt's block hashes, the cache slots allocated to it in each KV-cache group, and how
    many of its leading blocks need no save (loaded from the pool, or saved in an earlier step)."""

    hashes: list
    block_ids: list  # per group: that group's slots
    saved_blocks: int = 0


@dataclass
class PendingLoad:
    """A pool hit found by ``get_num_new_matched_tokens``: blocks ``first`` to ``end`` (exclusive) are to be loaded
    (of a windowed group only the trailing ones it needs), ``hashes`` those blocks' hashes."""

    first: int
    end: int
    hashes: list
    transfers: list = field(default_factory=list)  # BlockTransfer per group, once the slots are known


def content_seed(request) -> str | None:
    """What, besides its tokens, decides a request's KV, as the seed of its hash chain: its ``cache_salt`` (vLLM's
    per-user isolation) and its LoRA adapter. None for a request whose KV its token ids do not decide (multimodal
    inputs, whose placeholder tokens are alike for any image; prompt embeddings): it is neither looked up nor saved."""
    if getattr(request, "mm_features", None) or getattr(request, "prompt_embeds", None) is not None:
        return None
    lora = getattr(request, "lora_request", None)
    return f"{getattr(request, 'cache_salt', None) or ''}\0lora:{getattr(lora, 'lora_name', '') if lora else ''}"


def _group_block_ids(blocks, groups: int) -> list:
    """One list of slots per KV-cache group: ``KVCacheBlocks.get_block_ids()`` and the scheduler output's
    ``block_ids`` answer a tuple with one list per group (a bare list: one group)."""
    ids = blocks.get_block_ids() if hasattr(blocks, "get_block_ids") else blocks
    if not isinstance(ids, tuple):
        ids = (ids,)
    if len(ids) != groups:
        raise ValueError(f"{len(ids)} block lists for {groups} KV-cache groups")
    return [list(group) for group in ids]


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
        """The longest prefix of blocks the pool can restore (0 when it cannot say within the lookup timeout): every
        block of it for a full-attention group, its trailing ``window_blocks`` for a windowed group, each stored whole
        (its group's last layer on every rank). One EXISTS for every group's markers."""
        if not hashes:
            return 0
        groups = self._settings.groups
        markers = [key for g in groups for key in self._keys.markers(g.layer_names[-1], hashes)]
        try:
            found = self._client.get().exists_batch(markers)
        except (KvPoolError, OSError) as e:
            self._failures.warning("kvpool lookup of %d blocks failed, computing them: %s", len(hashes), e)
            return 0
        ranks, n = self._settings.tp_size, len(hashes)
        whole = [[all(found[(g * n + b) * ranks:(g * n + b + 1) * ranks]) for b in range(n)] for g in range(len(groups))]
        end = n
        for g, group in enumerate(groups):
            if group.window_blocks is None:
                end = min(end, whole[g].index(False) if False in whole[g] else n)
        while end > 0 and not all(all(whole[g][max(0, end - group.window_blocks):end])
                                  for g, group in enumerate(groups) if group.window_blocks is not None):
            end -= 1
        return end

    @staticmethod
    def _null(group, slot: int) -> bool:
        """A windowed group's null slot (full-attention groups hold every block of a request)."""
        return group.window_blocks is not None and slot == NULL_BLOCK

    def _loaded_range(self, group, first: int, end: int) -> range:
        """The blocks of ``[first, end)`` a group loads: all of them, or a windowed group's trailing ones."""
        return range(first if group.window_blocks is None else max(first, end - group.window_blocks), end)

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
        slots = _group_block_ids(blocks, len(self._settings.groups))
        for g, group in enumerate(self._settings.groups):
            blocks_to_load = [b for b in self._loaded_range(group, pending.first, pending.end)
                              if b < len(slots[g]) and not self._null(group, slots[g][b])]
            if blocks_to_load:
                pending.transfers.append(BlockTransfer(request.request_id,
                                                       [pending.hashes[b - pending.first] for b in blocks_to_load],
                                                       [slots[g][b] for b in blocks_to_load], g))
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
            state = RequestState(self._hashes(new.prompt_token_ids, seed),
                                 _group_block_ids(new.block_ids, len(self._settings.groups)),
                                 saved_blocks=load.end if load else 0)
            self._requests[new.req_id] = state
            if load is not None:
                meta.loads.extend(load.transfers)
            self._plan_save(meta, new.req_id, state, new.num_computed_tokens + scheduled.get(new.req_id, 0))
        cached = scheduler_output.scheduled_cached_reqs
        resumed = getattr(cached, "resumed_req_ids", None) or set()
        for i, request_id in enumerate(cached.req_ids):
            state = self._requests.get(request_id)
            if state is None:
                continue
            new_ids = cached.new_block_ids[i]
            if new_ids is not None:
                new_ids = _group_block_ids(new_ids, len(self._settings.groups))
                state.block_ids = new_ids if request_id in resumed else \
                    [old + added for old, added in zip(state.block_ids, new_ids)]
            self._plan_save(meta, request_id, state, cached.num_computed_tokens[i] + scheduled.get(request_id, 0))
        return meta

    def _plan_save(self, meta: KvPoolConnectorMetadata, request_id: str, state: RequestState, computed: int) -> None:
        """Saves the prompt's full blocks that this step completes (decode tokens are not saved), in every group that
        holds them (a windowed group's null slots are skipped)."""
        if not self._settings.saves:
            return
        end = min(computed // self._settings.block_size, len(state.hashes))
        if end <= state.saved_blocks:
            return
        for g, (group, slots) in enumerate(zip(self._settings.groups, state.block_ids)):
            blocks = [b for b in range(state.saved_blocks, min(end, len(slots))) if not self._null(group, slots[b])]
            if blocks:
                meta.saves.append(BlockTransfer(request_id, [state.hashes[b] for b in blocks],
                                                [slots[b] for b in blocks], g))
        state.saved_blocks = end

    def _forget(self, request_id: str) -> None:
        self._pending.pop(request_id, None)
        self._loads.pop(request_id, None)
        self._requests.pop(request_id, None)
        self._seeds.pop(request_id, None)

    def request_finished(self, request, block_ids):
        """Saves end within the step that computed the blocks (``wait_for_save``), so the blocks can be freed now
        (``block_ids``: one group's, or every group's with vLLM's hybrid allocator)."""
        self._forget(request.request_id)
        return False, None

    def close(self) -> None:
        self._client.close()
