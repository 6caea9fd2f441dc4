"""``from mooncake.store import MooncakeDistributedStore, ReplicateConfig`` answered by kvpool's Mooncake-compatible
store, so an engine written for Mooncake's store (vLLM's MooncakeStoreConnector, SGLang's HiCache Mooncake backend,
LMCache's mooncakestore connector) uses a kvpool pool unchanged. Put this folder on PYTHONPATH instead of installing
Mooncake (the two cannot be installed side by side: both are ``mooncake``)."""

from kvpool.store import (BufferDescriptor, BufferHandle, KvPoolStore, MemoryDescriptor, MooncakeDistributedStore,
                          MooncakeError, ReplicaDescriptor, ReplicaStatus, ReplicateConfig)

__all__ = ["MooncakeDistributedStore", "ReplicateConfig", "BufferHandle", "ReplicaDescriptor", "MemoryDescriptor",
           "BufferDescriptor", "ReplicaStatus", "MooncakeError", "KvPoolStore"]
