"""The connector's settings, read from vLLM's ``--kv-transfer-config`` and the pool's client environment."""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass

from ...client import KvPoolClient
from ...config import ClientConfig
from ..lazy_client import LazyClient
from .keys import BlockKeys

LOG = logging.getLogger("kvpool.vllm")

ROLES = ("kv_producer", "kv_consumer", "kv_both")


@dataclass
class KvGroup:
    """One KV-cache group of vLLM's ``KVCacheConfig`` (hybrid models have several: full attention, sliding window,
    Mamba), with its own block table. ``window_blocks``: how many trailing blocks of a prefix the group needs to go
    on from it (a sliding window's, a chunked-local attention's, 1 for Mamba's state); None: every block (full
    attention, and any kind this connector does not know)."""

    layer_names: list
    window_blocks: int | None = None

    @classmethod
    def of(cls, group, block_size: int) -> "KvGroup":
        spec = getattr(group, "kv_cache_spec", None)
        kind = type(spec).__name__
        window = None
        if "SlidingWindow" in kind and getattr(spec, "sliding_window", None):
            window = math.ceil((int(spec.sliding_window) - 1) / block_size) + 1
        elif "ChunkedLocal" in kind and getattr(spec, "attention_chunk_size", None):
            window = math.ceil(int(spec.attention_chunk_size) / block_size) + 1
        elif "Mamba" in kind:
            window = 1
        return cls(list(group.layer_names), window)


def _block_size(groups: list, default: int) -> int:
    """The groups' one block size (vLLM's hybrid allocator gives every group the same); several are refused."""
    sizes = {int(g.kv_cache_spec.block_size) for g in groups if getattr(g, "kv_cache_spec", None) is not None
             and getattr(g.kv_cache_spec, "block_size", None)}
    if len(sizes) > 1:
        raise ValueError(f"the KV-cache groups have different block sizes {sorted(sizes)}; the kvpool connector names"
                         " blocks by one hash chain and needs one block size")
    return sizes.pop() if sizes else default


def _flag(value) -> bool:
    return str(value).strip().lower() in ("1", "true", "yes", "on")


@dataclass
class ConnectorSettings:
    """``kv_role``: ``kv_producer`` saves and looks up, ``kv_consumer`` only looks up and loads, ``kv_both`` does
    both (as vLLM's MooncakeStoreConnector serves them). ``kv_connector_extra_config`` keys: ``kvpool`` (a dict of
    :class:`kvpool.ClientConfig` fields that win over the ``KVPOOL_*`` environment), ``cache_prefix`` (a namespace
    for the keys), ``enable_lookup`` (false: never load, e.g. a prefill instance that only produces),
    ``lookup_timeout`` (seconds one scheduler lookup may take; default 2), ``staging_blocks`` (blocks of the host
    staging buffer each layer in device memory moves through, default 64) and ``host_staging`` (true: stage host KV
    caches too, e.g. to check the device path without a device)."""

    role: str
    model: str
    kv_format: str
    block_size: int
    tp_size: int
    layer_names: list
    groups: list
    cache_prefix: str
    enable_lookup: bool
    lookup_timeout: float
    client_settings: dict
    staging_blocks: int = 64
    host_staging: bool = False

    @classmethod
    def of(cls, vllm_config, kv_cache_config=None) -> "ConnectorSettings":
        transfer = vllm_config.kv_transfer_config
        extra = dict(getattr(transfer, "kv_connector_extra_config", None) or {})
        role = transfer.kv_role or "kv_both"
        if role not in ROLES:
            raise ValueError(f"kv_role {role!r} is not one of {', '.join(ROLES)}")
        vllm_groups = list(getattr(kv_cache_config, "kv_cache_groups", None) or [])
        block_size = _block_size(vllm_groups, int(vllm_config.cache_config.block_size))
        groups = [KvGroup.of(g, block_size) for g in vllm_groups]
        layer_names = [name for g in groups for name in g.layer_names]
        # the data types of the model and of its KV cache: instances that differ in them store other bytes per block
        kv_format = "-".join(str(v).replace("torch.", "") for v in (
            getattr(vllm_config.model_config, "dtype", None), getattr(vllm_config.cache_config, "cache_dtype", None))
            if v is not None)
        return cls(role=role, model=str(vllm_config.model_config.model), kv_format=kv_format,
                   block_size=block_size,
                   tp_size=int(getattr(vllm_config.parallel_config, "tensor_parallel_size", 1) or 1),
                   layer_names=layer_names, groups=groups, cache_prefix=str(extra.get("cache_prefix", "")),
                   enable_lookup=_flag(extra.get("enable_lookup", True)),
                   lookup_timeout=float(extra.get("lookup_timeout", 2.0)),
                   client_settings=dict(extra.get("kvpool", {})),
                   staging_blocks=int(extra.get("staging_blocks", 64)),
                   host_staging=_flag(extra.get("host_staging", False)))

    def block_keys(self) -> BlockKeys:
        return BlockKeys(self.model, self.block_size, self.tp_size, self.cache_prefix, self.kv_format)

    @property
    def saves(self) -> bool:
        return self.role != "kv_consumer"

    def client(self, **overrides) -> LazyClient:
        """A client of the pool (connected on first use): ``kvpool`` settings win over the environment, ``overrides``
        over both."""
        settings = {**self.client_settings, **overrides}
        return LazyClient(lambda: KvPoolClient(ClientConfig.from_env(**settings)))
