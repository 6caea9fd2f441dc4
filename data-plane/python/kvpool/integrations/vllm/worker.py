"""The worker side of the kvpool connector: the paged KV caches as memory regions per block, layer-wise loads and
saves on background threads, and the blocks that failed to load."""

from __future__ import annotations

import math
import threading
from concurrent.futures import Future, ThreadPoolExecutor

from ...errors import KvPoolError
from ...memory import Regions, address_view
from ..failure_log import FailureLog
from .metadata import KvPoolConnectorMetadata
from .settings import LOG, ConnectorSettings
from .staging import StagedLayer, block_dim


class PagedLayer:
    """One layer's paged KV cache in host memory: per block, the contiguous regions that hold it. vLLM's
    FlashAttention layout ``(2, num_blocks, block_size, heads, head_size)`` gives two regions per block (K and V);
    layouts whose first dimension is the block (``(num_blocks, ...)``: FlashInfer's ``(num_blocks, 2, ...)``, MLA's
    ``(num_blocks, block_size, head_size)``) give one. Accepts a torch tensor on the CPU or any array exposing numpy's
    ``ctypes.data`` / ``strides``; a KV cache in device memory goes through a :class:`StagedLayer`."""

    def __init__(self, name: str, tensor):
        self.name = name
        self.buffer = tensor  # keeps the memory the regions point into alive
        if hasattr(tensor, "data_ptr"):
            if tensor.device.type != "cpu":
                raise KvPoolError(f"layer {name}: its KV cache is in {tensor.device} memory: stage it through host"
                                  " memory (StagedLayer)")
            base, shape, itemsize = tensor.data_ptr(), tuple(tensor.shape), tensor.element_size()
            strides = tuple(s * itemsize for s in tensor.stride())
        else:
            base, shape, strides, itemsize = tensor.ctypes.data, tuple(tensor.shape), tuple(tensor.strides), \
                tensor.itemsize
        dim = block_dim(shape)
        split = dim == 1
        self.num_blocks = shape[dim]
        self.block_bytes = itemsize * math.prod(shape[dim + 1:])
        self.stride = strides[dim]
        if self.stride != self.block_bytes:
            raise KvPoolError(f"layer {name}: a block is not contiguous (shape {shape}, strides {strides})")
        self._starts = [base, base + strides[0]] if split else [base]
        self.value_bytes = self.block_bytes * len(self._starts)  # a block of this layer as one pool value

    def regions(self, block_id: int, writable: bool) -> Regions:
        if not 0 <= block_id < self.num_blocks:
            raise IndexError(f"block {block_id} is outside layer {self.name}'s {self.num_blocks} blocks")
        return Regions([address_view(start + block_id * self.stride, self.block_bytes, writable)
                        for start in self._starts])

    def save(self, client, keys: list, slots: list) -> list:
        """``put_batch``'s result per key (None: stored), straight from the cache's memory."""
        return client.put_batch(keys, [self.regions(slot, writable=False) for slot in slots])

    def load(self, client, keys: list, slots: list) -> list:
        """``get_batch_regions``' result per key, straight into the cache's memory."""
        return client.get_batch_regions(keys, [self.regions(slot, writable=True) for slot in slots])


def layer_of(name: str, tensor, staging_blocks: int, force_staging: bool):
    """A host KV cache is read and written in place; one in device memory (or any, with ``force_staging``) through a
    host buffer of ``staging_blocks`` blocks."""
    on_device = hasattr(tensor, "device") and getattr(tensor.device, "type", "cpu") != "cpu"
    if on_device or force_staging:
        return StagedLayer(name, tensor, staging_blocks, PagedLayer)
    return PagedLayer(name, tensor)


class KvPoolWorker:
    """Loads run on one thread, layer after layer, while the model computes: ``wait_for_layer_load`` waits only for
    its own layer. Saves run on another thread: ``save_kv_layer`` queues a layer's blocks and returns, so they leave
    while the next layer computes; ``wait_for_save`` waits for them all before the step ends (vLLM may then reuse the
    blocks). A block that fails in one layer is left out of the later layers: a failed load is reported once through
    :meth:`block_ids_with_load_errors` (vLLM then recomputes it) and costs one operation timeout in all, not one per
    layer. The layer whose key marks a block complete (the scheduler looks it up; each KV-cache group's last layer) is
    saved last, by ``wait_for_save`` once the other layers' saves ended, and without the blocks that failed in them:
    no lookup finds a block half stored. A layer moves only its own group's blocks (hybrid models: each group has its
    own block table)."""

    def __init__(self, settings: ConnectorSettings, tp_rank: int = 0):
        self._settings = settings
        self._tp_rank = tp_rank
        self._keys = settings.block_keys()
        self._client = settings.client()
        self._layers: dict = {}
        self._loader = ThreadPoolExecutor(1, thread_name_prefix="kvpool-load")
        self._saver = ThreadPoolExecutor(1, thread_name_prefix="kvpool-save")
        self._lock = threading.Lock()
        self._layer_loads: dict = {}       # layer name -> Future of the slots that failed in it
        self._failed_loads: set = set()    # slots of this step's loads that failed (in the loader thread)
        self._load_errors: set = set()     # failed slots not yet reported to vLLM
        self._saves: list = []             # this step's save futures
        self._failed_saves: set = set()    # (request id, block hash) that failed in an earlier layer of this step
        self._markers: set = set()         # the layers saved last (each group's: its key marks a block complete)
        self._marker_saves: dict = {}      # marker layer -> this step's saves, for wait_for_save
        self._group_of: dict = {name: g for g, group in enumerate(settings.groups) for name in group.layer_names}
        self._failures = FailureLog(LOG)

    def register_kv_caches(self, kv_caches: dict) -> None:
        self._layers = {name: layer_of(name, tensor, self._settings.staging_blocks, self._settings.host_staging)
                        for name, tensor in kv_caches.items()}
        # the layers whose keys the scheduler looks up: each KV-cache group's last layer
        self._markers = {group.layer_names[-1] for group in self._settings.groups if group.layer_names} or \
            {list(self._layers)[-1]}
        missing = sorted(self._markers - set(self._layers))
        if missing:
            raise KvPoolError(f"the KV-cache config's last layers {missing} have no KV cache among"
                              f" {len(self._layers)} registered layers")

    def _key(self, layer: str, block_hash: bytes) -> str:
        return self._keys.key(self._tp_rank, layer, block_hash)

    # ---- loads ----

    def start_load_kv(self, meta: KvPoolConnectorMetadata) -> None:
        with self._lock:
            self._failed_loads = set()
        if not meta.loads:
            return
        self._layer_loads = {name: self._loader.submit(self._load_layer, name, meta.loads) for name in self._layers}

    def _load_layer(self, name: str, loads: list) -> set:
        layer, group = self._layers[name], self._group_of.get(name, 0)
        keys, slots = [], []
        with self._lock:
            skip = set(self._failed_loads)
        for transfer in loads:
            if transfer.group != group:
                continue
            for block_hash, slot in zip(transfer.hashes, transfer.block_ids):
                if slot not in skip:
                    keys.append(self._key(name, block_hash))
                    slots.append(slot)
        if not keys:
            return set()
        try:
            results = layer.load(self._client.get(), keys, slots)
        except (KvPoolError, OSError, IndexError) as e:
            results = [e] * len(keys)
        failed = {slot for slot, r in zip(slots, results) if r != layer.value_bytes}
        if failed:
            why = next((r for r in results if r != layer.value_bytes), None)
            self._failures.warning("kvpool load of layer %s failed for %d of %d blocks (%r); vLLM recomputes them",
                                   name, len(failed), len(keys), why)
            with self._lock:
                self._failed_loads |= failed
        return failed

    def wait_for_layer_load(self, layer_name: str) -> None:
        future: Future | None = self._layer_loads.pop(layer_name, None)
        if future is not None:
            failed = future.result()
            with self._lock:
                self._load_errors |= failed

    def block_ids_with_load_errors(self) -> set:
        """Slots whose load failed since the last call (each step's loads are all waited for by then)."""
        for name in list(self._layer_loads):
            self.wait_for_layer_load(name)
        with self._lock:
            errors, self._load_errors = self._load_errors, set()
        return errors

    # ---- saves ----

    def save_kv_layer(self, layer_name: str, meta: KvPoolConnectorMetadata) -> None:
        if not meta.saves or layer_name not in self._layers:
            return
        if layer_name in self._markers:  # stored last, in wait_for_save, whatever order vLLM runs the layers in
            self._marker_saves[layer_name] = meta.saves
        else:
            self._saves.append(self._saver.submit(self._save_layer, layer_name, meta.saves))

    def _save_layer(self, name: str, saves: list) -> int:
        layer, group = self._layers[name], self._group_of.get(name, 0)
        keys, owners, slots = [], [], []
        for transfer in saves:
            if transfer.group != group:
                continue
            for block_hash, slot in zip(transfer.hashes, transfer.block_ids):
                owner = (group, transfer.request_id, block_hash)
                if owner not in self._failed_saves:
                    keys.append(self._key(name, block_hash))
                    owners.append(owner)
                    slots.append(slot)
        if not keys:
            return 0
        try:
            results = layer.save(self._client.get(), keys, slots)
        except (KvPoolError, OSError, IndexError) as e:
            results = [e] * len(keys)
        failed = [(owner, r) for owner, r in zip(owners, results) if r is not None]
        if failed:
            self._failures.warning("kvpool save of layer %s failed for %d of %d blocks (%s); they stay unsaved",
                                   name, len(failed), len(keys), failed[0][1])
            self._failed_saves.update(owner for owner, _ in failed)
        return len(keys) - len(failed)

    def wait_for_save(self) -> None:
        saves, self._saves = self._saves, []
        for future in saves:
            future.result()
        marker_saves, self._marker_saves = self._marker_saves, {}
        for layer_name, saves in marker_saves.items():
            self._save_layer(layer_name, saves)
        self._failed_saves = set()

    def close(self) -> None:
        self._loader.shutdown(wait=True)
        self._saver.shutdown(wait=True)
        self._client.close()
