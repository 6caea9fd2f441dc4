"""``KvPoolConnector``: vLLM's V1 KV connector on a kvpool pool (interface: :mod:`.interface`)."""

from __future__ import annotations

from typing import Any

from .interface import KVConnectorBase_V1, SupportsHMA, is_scheduler
from .scheduler import KvPoolScheduler
from .settings import ConnectorSettings
from .worker import KvPoolWorker


def _tp_rank(vllm_config) -> int:
    """This worker's tensor-parallel rank: vLLM's process group when it is up, else the ``tp_rank`` extra setting."""
    try:  # pragma: no cover - only inside a vLLM worker
        from vllm.distributed.parallel_state import get_tensor_model_parallel_rank
        return int(get_tensor_model_parallel_rank())
    except Exception:  # noqa: BLE001 - no vLLM, or its groups are not initialised (scheduler, tests)
        extra = vllm_config.kv_transfer_config.kv_connector_extra_config or {}
        return int(extra.get("tp_rank", 0))


class KvPoolConnector(KVConnectorBase_V1, SupportsHMA):
    """Selected with ``--kv-transfer-config '{"kv_connector": "KvPoolConnector", "kv_connector_module_path":
    "kvpool.integrations.vllm", "kv_role": "kv_both", "kv_load_failure_policy": "recompute"}'``. The scheduler-side
    instance looks blocks up and plans each step's loads and saves; each worker's instance moves its own rank's
    blocks, layer by layer. Hybrid models (several KV-cache groups: full attention, sliding window, Mamba) are served
    with vLLM's hybrid allocator (``SupportsHMA``): each group's blocks under their own keys; KV caches in device
    memory move through a pinned host staging buffer."""

    def __init__(self, vllm_config, role, kv_cache_config=None):
        super().__init__(vllm_config=vllm_config, role=role, kv_cache_config=kv_cache_config)
        settings = ConnectorSettings.of(vllm_config, kv_cache_config)
        self.kv_role = settings.role
        self.connector_scheduler = KvPoolScheduler(settings) if is_scheduler(role) else None
        self.connector_worker = None if is_scheduler(role) else KvPoolWorker(settings, _tp_rank(vllm_config))

    # ---- scheduler side ----

    def get_num_new_matched_tokens(self, request, num_computed_tokens: int):
        return self.connector_scheduler.get_num_new_matched_tokens(request, num_computed_tokens)

    def update_state_after_alloc(self, request, blocks, num_external_tokens: int) -> None:
        self.connector_scheduler.update_state_after_alloc(request, blocks, num_external_tokens)

    def build_connector_meta(self, scheduler_output):
        return self.connector_scheduler.build_connector_meta(scheduler_output)

    def request_finished(self, request, block_ids):
        return self.connector_scheduler.request_finished(request, block_ids)

    def request_finished_all_groups(self, request, block_ids: tuple):
        return self.connector_scheduler.request_finished(request, block_ids)

    # ---- worker side ----

    def register_kv_caches(self, kv_caches: dict) -> None:
        self.connector_worker.register_kv_caches(kv_caches)

    def start_load_kv(self, forward_context, **kwargs: Any) -> None:
        self.connector_worker.start_load_kv(self._get_connector_metadata())

    def wait_for_layer_load(self, layer_name: str) -> None:
        self.connector_worker.wait_for_layer_load(layer_name)

    def save_kv_layer(self, layer_name: str, kv_layer, attn_metadata, **kwargs: Any) -> None:
        self.connector_worker.save_kv_layer(layer_name, self._get_connector_metadata())

    def wait_for_save(self) -> None:
        self.connector_worker.wait_for_save()

    def get_finished(self, finished_req_ids: set):
        """Loads and saves end within their step, so no request is finished asynchronously."""
        return None, None

    def get_block_ids_with_load_errors(self) -> set:
        return self.connector_worker.block_ids_with_load_errors()

    @classmethod
    def requires_piecewise_for_cudagraph(cls, extra_config: dict) -> bool:
        return True  # layer-wise loads and saves run between the layers

    def shutdown(self) -> None:
        part = self.connector_scheduler or self.connector_worker
        if part is not None:
            part.close()
