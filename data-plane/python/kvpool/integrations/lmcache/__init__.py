"""An LMCache L2 adapter on kvpool, loaded by LMCache's ``plugin`` L2-adapter type::

    --l2-adapter '{"type": "plugin", "module_path": "kvpool.integrations.lmcache", "class_name": "KvPoolL2Adapter",
                   "adapter_params": {"key_prefix": "prod"}}'

Written against LMCache commit ``000e8777`` (``lmcache/v1/distributed/l2_adapters/base.py``; the ``plugin`` type of
``plugin_l2_adapter.py``); see :mod:`.interface`.
"""

from .adapter import KvPoolL2Adapter
from .interface import LMCACHE_INSTALLED, Bitmap, L2StoreResult, ObjectKey, wire_key

__all__ = ["KvPoolL2Adapter", "Bitmap", "L2StoreResult", "ObjectKey", "wire_key", "LMCACHE_INSTALLED"]
