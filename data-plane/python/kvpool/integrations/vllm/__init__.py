"""A vLLM V1 KV connector on kvpool: host KV caches are read and written in place, device (GPU, NPU) KV caches through
a pinned host staging buffer (:mod:`.staging`); hybrid models' KV-cache groups each with their own blocks.

Selected with vLLM's documented ``kv_connector_module_path``::

    --kv-transfer-config '{"kv_connector": "KvPoolConnector", "kv_connector_module_path": "kvpool.integrations.vllm",
                           "kv_role": "kv_both", "kv_load_failure_policy": "recompute"}'

(with vLLM's default ``kv_load_failure_policy``, ``"fail"``, a request whose blocks failed to load ends in an error).

The pool's address and key come from the pool's client ConfigMap (``envFrom: <pool>-client``: KVPOOL_MASTER_ADDRESS,
...) or from ``kv_connector_extra_config.kvpool``. Written against vLLM commit ``003df296``
(``vllm/distributed/kv_transfer/kv_connector/v1/base.py``, and the roles and key layout of its
``mooncake/store/`` connector); see :mod:`.interface`.
"""

from .connector import KvPoolConnector
from .interface import VLLM_INSTALLED
from .keys import BlockKeys, block_hashes
from .metadata import BlockTransfer, KvPoolConnectorMetadata
from .scheduler import content_seed

__all__ = ["KvPoolConnector", "KvPoolConnectorMetadata", "BlockTransfer", "BlockKeys", "block_hashes",
           "content_seed", "VLLM_INSTALLED"]
