"""vLLM's V1 KV-connector interface, imported from vLLM where it is installed, else restated.

Restated from vLLM commit ``003df2961dd8830c317a61f9745ccd557da9fa06``,
``vllm/distributed/kv_transfer/kv_connector/v1/base.py`` (``KVConnectorBase_V1``, ``KVConnectorMetadata``,
``KVConnectorRole``, and ``SupportsHMA``: a connector vLLM's hybrid memory allocator may drive, one block list per
KV-cache group): only what the kvpool connector uses, so that it imports (and its tests run) without torch and
vLLM. With vLLM installed the connector derives from vLLM's own classes.
"""

from __future__ import annotations

import abc
import enum

try:  # pragma: no cover - only where vLLM is installed
    from vllm.distributed.kv_transfer.kv_connector.v1.base import (KVConnectorBase_V1, KVConnectorMetadata,
                                                                   KVConnectorRole, SupportsHMA)
    VLLM_INSTALLED = True
except Exception:  # noqa: BLE001 - no vLLM (or one without a usable torch): use the restated interface
    VLLM_INSTALLED = False

    class KVConnectorRole(enum.Enum):
        SCHEDULER = 0
        WORKER = 1

    class KVConnectorMetadata:
        """Scheduler-side connector → worker-side connector, once per step."""

    class SupportsHMA(abc.ABC):
        """A connector that serves vLLM's hybrid memory allocator: told once when a request finished in every group."""

        @abc.abstractmethod
        def request_finished_all_groups(self, request, block_ids: tuple): ...

    class KVConnectorBase_V1(abc.ABC):
        """The part of vLLM's base class the kvpool connector relies on: the role, the transfer config, the metadata
        bound by the model runner before each forward pass, and the methods vLLM declares abstract."""

        def __init__(self, vllm_config, role, kv_cache_config=None):
            if vllm_config.kv_transfer_config is None:
                raise ValueError("kv_transfer_config must be set for KVConnectorBase_V1")
            self._connector_metadata = None
            self._vllm_config = vllm_config
            self._kv_transfer_config = vllm_config.kv_transfer_config
            self._kv_cache_config = kv_cache_config
            self._role = role

        @property
        def role(self):
            return self._role

        def bind_connector_metadata(self, connector_metadata) -> None:
            self._connector_metadata = connector_metadata

        def clear_connector_metadata(self) -> None:
            self._connector_metadata = None

        def _get_connector_metadata(self):
            assert self._connector_metadata is not None
            return self._connector_metadata

        def has_connector_metadata(self) -> bool:
            return self._connector_metadata is not None

        @abc.abstractmethod
        def start_load_kv(self, forward_context, **kwargs) -> None: ...

        @abc.abstractmethod
        def wait_for_layer_load(self, layer_name: str) -> None: ...

        @abc.abstractmethod
        def save_kv_layer(self, layer_name: str, kv_layer, attn_metadata, **kwargs) -> None: ...

        @abc.abstractmethod
        def wait_for_save(self) -> None: ...

        @abc.abstractmethod
        def get_num_new_matched_tokens(self, request, num_computed_tokens: int): ...

        @abc.abstractmethod
        def update_state_after_alloc(self, request, blocks, num_external_tokens: int) -> None: ...

        @abc.abstractmethod
        def build_connector_meta(self, scheduler_output): ...


def is_scheduler(role) -> bool:
    return getattr(role, "name", str(role)) == "SCHEDULER"
