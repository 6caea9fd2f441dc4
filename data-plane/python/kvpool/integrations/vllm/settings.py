"""The connector's settings, read from vLLM's ``--kv-transfer-config`` and the pool's client environment."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from ...client import KvPoolClient
from ...config import ClientConfig
from ..lazy_client import LazyClient
from .keys import BlockKeys

LOG = logging.getLogger("kvpool.vllm")

ROLES = ("kv_producer", "kv_consumer", "kv_both")


def _flag(value) -> bool:
    return str(value).strip().lower() in ("1", "true", "yes", "on")


@dataclass
class ConnectorSettings:
    """``kv_role``: ``kv_producer`` saves and looks up, ``kv_consumer`` only looks up and loads, ``kv_both`` does
    both (as vLLM's MooncakeStoreConnector serves them). ``kv_connector_extra_config`` keys: ``kvpool`` (a dict of
    :class:`kvpool.ClientConfig` fields that win over the ``KVPOOL_*`` environment), ``cache_prefix`` (a namespace
    for the keys), ``enable_lookup`` (false: never load, e.g. a prefill instance that only produces),
    ``lookup_timeout`` (seconds one scheduler lookup may take; default 2)."""

    role: str
    model: str
    kv_format: str
    block_size: int
    tp_size: int
    layer_names: list
    cache_prefix: str
    enable_lookup: bool
    lookup_timeout: float
    client_settings: dict

    @classmethod
    def of(cls, vllm_config, kv_cache_config=None) -> "ConnectorSettings":
        transfer = vllm_config.kv_transfer_config
        extra = dict(getattr(transfer, "kv_connector_extra_config", None) or {})
        role = transfer.kv_role or "kv_both"
        if role not in ROLES:
            raise ValueError(f"kv_role {role!r} is not one of {', '.join(ROLES)}")
        layer_names = []
        for group in getattr(kv_cache_config, "kv_cache_groups", None) or []:
            layer_names.extend(group.layer_names)
        # the data types of the model and of its KV cache: instances that differ in them store other bytes per block
        kv_format = "-".join(str(v).replace("torch.", "") for v in (
            getattr(vllm_config.model_config, "dtype", None), getattr(vllm_config.cache_config, "cache_dtype", None))
            if v is not None)
        return cls(role=role, model=str(vllm_config.model_config.model), kv_format=kv_format,
                   block_size=int(vllm_config.cache_config.block_size),
                   tp_size=int(getattr(vllm_config.parallel_config, "tensor_parallel_size", 1) or 1),
                   layer_names=layer_names, cache_prefix=str(extra.get("cache_prefix", "")),
                   enable_lookup=_flag(extra.get("enable_lookup", True)),
                   lookup_timeout=float(extra.get("lookup_timeout", 2.0)),
                   client_settings=dict(extra.get("kvpool", {})))

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
