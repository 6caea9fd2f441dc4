"""KV caches in device memory (GPU, NPU): their blocks travel through a host staging buffer. A save gathers a layer's
blocks from the device into the buffer and puts them from there; a load gets the values into the buffer and scatters
the ones that arrived whole into their device slots. The pool's client reads and writes only host memory (its
put_batch / get_batch_regions over the buffer's regions); the device copies are the tensor library's, behind
:class:`BlockCopies`: torch for device tensors (the buffer pinned, so the copies are DMA), numpy for host arrays."""

from __future__ import annotations

import threading

import numpy as np

from ...errors import KvPoolError


def block_dim(shape: tuple) -> int:
    """vLLM's FlashAttention layout ``(2, num_blocks, ...)`` has the blocks in dimension 1, others in dimension 0."""
    return 1 if len(shape) == 5 and shape[0] == 2 else 0


class BlockCopies:
    """Copies of whole blocks between a KV cache and a host buffer of the same layout (``blocks`` in the block
    dimension). ``of(tensor)``: torch's for a torch tensor (any device), numpy's for an array."""

    @staticmethod
    def of(tensor) -> "BlockCopies":
        return TorchCopies() if hasattr(tensor, "data_ptr") else NumpyCopies()

    def host_buffer(self, cache, dim: int, blocks: int):
        raise NotImplementedError

    def gather(self, cache, dim: int, slots: list, host) -> None:
        """``host``'s first ``len(slots)`` blocks = the cache's blocks ``slots``, complete when this returns."""
        raise NotImplementedError

    def scatter(self, host, cache, dim: int, slots: list) -> None:
        """The cache's blocks ``slots`` = ``host``'s first ``len(slots)`` blocks, complete when this returns."""
        raise NotImplementedError


class TorchCopies(BlockCopies):
    def host_buffer(self, cache, dim: int, blocks: int):
        import torch
        shape = list(cache.shape)
        shape[dim] = blocks
        pin = cache.device.type != "cpu"
        try:
            return torch.empty(shape, dtype=cache.dtype, device="cpu", pin_memory=pin)
        except RuntimeError:  # no accelerator runtime to pin with: pageable memory still works, more slowly
            return torch.empty(shape, dtype=cache.dtype, device="cpu")

    def gather(self, cache, dim: int, slots: list, host) -> None:
        import torch
        index = torch.as_tensor(slots, dtype=torch.long, device=cache.device)
        host.narrow(dim, 0, len(slots)).copy_(cache.index_select(dim, index))  # device → host: synchronous
        self._synchronize(cache)

    def scatter(self, host, cache, dim: int, slots: list) -> None:
        import torch
        index = torch.as_tensor(slots, dtype=torch.long, device=cache.device)
        cache.index_copy_(dim, index, host.narrow(dim, 0, len(slots)).to(cache.device))
        self._synchronize(cache)

    @staticmethod
    def _synchronize(cache) -> None:
        """The copies are queued on the device's stream: wait for them (the caller hands the slots to the model)."""
        import torch
        if cache.device.type == "cpu":
            return
        accelerator = getattr(torch, "accelerator", None)
        if accelerator is not None and hasattr(accelerator, "synchronize"):
            accelerator.synchronize(cache.device)
        else:
            getattr(torch, cache.device.type).synchronize(cache.device)


class NumpyCopies(BlockCopies):
    def host_buffer(self, cache, dim: int, blocks: int):
        shape = list(cache.shape)
        shape[dim] = blocks
        return np.empty(shape, dtype=cache.dtype)

    def gather(self, cache, dim: int, slots: list, host) -> None:
        lead = (slice(None),) * dim
        host[lead + (slice(0, len(slots)),)] = cache[lead + (np.asarray(slots),)]

    def scatter(self, host, cache, dim: int, slots: list) -> None:
        lead = (slice(None),) * dim
        cache[lead + (np.asarray(slots),)] = host[lead + (slice(0, len(slots)),)]


class StagedLayer:
    """A layer whose blocks move through a host staging buffer of ``capacity`` blocks (reused chunk after chunk,
    one transfer at a time). ``host_layer`` makes the buffer's regions (a :class:`worker.PagedLayer`)."""

    def __init__(self, name: str, cache, capacity: int, host_layer):
        if capacity <= 0:
            raise KvPoolError(f"layer {name}: host staging needs at least one block, got {capacity}")
        self.name = name
        self._cache = cache
        self._dim = block_dim(tuple(cache.shape))
        self.num_blocks = int(cache.shape[self._dim])
        self._copies = BlockCopies.of(cache)
        self._capacity = min(capacity, self.num_blocks)
        self._host = host_layer(name, self._copies.host_buffer(cache, self._dim, self._capacity))
        self.value_bytes = self._host.value_bytes
        self._lock = threading.Lock()

    def _check(self, slots: list) -> None:
        for slot in slots:
            if not 0 <= slot < self.num_blocks:
                raise IndexError(f"block {slot} is outside layer {self.name}'s {self.num_blocks} blocks")

    def save(self, client, keys: list, slots: list) -> list:
        """``put_batch``'s result per key (None: stored), chunk by chunk through the buffer."""
        self._check(slots)
        out = []
        with self._lock:
            for start in range(0, len(keys), self._capacity):
                chunk = slots[start:start + self._capacity]
                self._copies.gather(self._cache, self._dim, chunk, self._host.buffer)
                out += client.put_batch(keys[start:start + self._capacity],
                                        [self._host.regions(i, writable=False) for i in range(len(chunk))])
        return out

    def load(self, client, keys: list, slots: list) -> list:
        """``get_batch_regions``' result per key; only values that arrived whole reach their device slots."""
        self._check(slots)
        out = []
        with self._lock:
            for start in range(0, len(keys), self._capacity):
                chunk = slots[start:start + self._capacity]
                results = client.get_batch_regions(keys[start:start + self._capacity],
                                                   [self._host.regions(i, writable=True) for i in range(len(chunk))])
                whole = [i for i, r in enumerate(results) if r == self.value_bytes]
                if len(whole) == len(chunk):
                    self._copies.scatter(self._host.buffer, self._cache, self._dim, chunk)
                else:
                    for i in whole:  # the buffer's block i goes to its own slot
                        self._scatter_one(i, chunk[i])
                out += results
        return out

    def _scatter_one(self, index: int, slot: int) -> None:
        lead = (slice(None),) * self._dim
        one = self._host.buffer[lead + (slice(index, index + 1),)]
        self._copies.scatter(one, self._cache, self._dim, [slot])
