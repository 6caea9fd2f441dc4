"""What the scheduler-side connector tells the workers for one step: which blocks to load from the pool and which to
save to it, each block named by its content hash."""

from __future__ import annotations

from dataclasses import dataclass, field

from .interface import KVConnectorMetadata


@dataclass
class BlockTransfer:
    """Blocks of one request in one KV-cache group: ``hashes[i]`` is the content hash of the block held in the paged
    cache's slot ``block_ids[i]`` of that group's layers."""

    request_id: str
    hashes: list
    block_ids: list
    group: int = 0


@dataclass
class KvPoolConnectorMetadata(KVConnectorMetadata):
    loads: list = field(default_factory=list)
    saves: list = field(default_factory=list)
