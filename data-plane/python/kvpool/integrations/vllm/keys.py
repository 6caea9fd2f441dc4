"""Content-derived keys of KV blocks: a hash chain over each full block's token ids, so two instances (or two requests)
that share a prefix name its blocks alike and store them once."""

from __future__ import annotations

import hashlib
import struct
from typing import Sequence


def block_hashes(token_ids: Sequence[int], block_size: int, salt: str = "") -> list:
    """One 32-byte hash per full block of ``token_ids``: SHA-256 of the previous block's hash (or of ``salt``, the
    request's cache salt and LoRA adapter, for the first block) and the block's token ids as little-endian int64. A
    block's hash thus names it and its whole prefix. vLLM's own ``request.block_hashes`` are not used: their chain
    starts from 32 random bytes per process unless ``PYTHONHASHSEED`` is set, and their hash function is a
    per-deployment choice (``--prefix-caching-hash-algo``), while instances sharing a pool must agree."""
    out = []
    parent = hashlib.sha256(b"kvpool-vllm\0" + salt.encode()).digest()
    packer = struct.Struct(f"<{block_size}q")
    for start in range(0, len(token_ids) - block_size + 1, block_size):
        parent = hashlib.sha256(parent + packer.pack(*token_ids[start:start + block_size])).digest()
        out.append(parent)
    return out


class BlockKeys:
    """Names a block's KV in one layer of one tensor-parallel rank:
    ``[PREFIX@]MODEL[@FORMAT]@bs<B>@tp<R>of<N>@<LAYER>@<HASH>``, FORMAT being the model's and the KV cache's data types
    (instances that would store other bytes for the same tokens never share keys; a pool key is at most 4096 UTF-8
    bytes). Blocks are stored per layer so that a layer's blocks can leave while
    the next layer computes; a block's last layer is stored after its other layers, so its key marks the block
    complete."""

    def __init__(self, model: str, block_size: int, tp_size: int, prefix: str = "", kv_format: str = ""):
        self.block_size = block_size
        self.tp_size = tp_size
        self._base = f"{prefix}@" if prefix else ""
        self._base += f"{model}@{kv_format}@bs{block_size}" if kv_format else f"{model}@bs{block_size}"

    def key(self, tp_rank: int, layer: str, block_hash: bytes) -> str:
        return f"{self._base}@tp{tp_rank}of{self.tp_size}@{layer}@{block_hash.hex()}"

    def markers(self, last_layer: str, hashes: Sequence[bytes]) -> list:
        """The keys whose presence says a block is stored whole: its last layer on every rank, block after block."""
        return [self.key(rank, last_layer, h) for h in hashes for rank in range(self.tp_size)]
