"""A kvpool backend for vLLM-Ascend's KV pool (``AscendStoreConnector``).

vLLM-Ascend picks its KV-pool backend by name from ``backend_map`` in
``vllm_ascend.distributed.kv_transfer.kv_pool.ascend_store.backend``; this package's vLLM plugin (entry point
``vllm.general_plugins`` → :func:`register`, run by vLLM in every process) adds ``"kvpool"`` to it, so a deployment
selects kvpool with ``"kv_connector_extra_config": {"backend": "kvpool"}``. The pool's address comes from the
environment of the pool's client ConfigMap (``envFrom: <pool>-client``: KVPOOL_MASTER_ADDRESS, KVPOOL_POOL_ID,
KVPOOL_OBJECT_REPLICAS, ...).

The connector hands the backend one key per KV block and, per key, the addresses and sizes of that block in each
layer's KV cache: a value is gathered from (scattered into) those regions. On Ascend NPUs those addresses are device
memory, which a TCP client cannot read directly: with ``KVPOOL_BUFFER_MEMORY=ascend`` (the default when
``torch_npu`` is loaded) the backend stages each block through host memory with AscendCL's ``aclrtMemcpy``; with
``host`` it reads and writes the addresses directly (host KV caches, tests).

Importable without vLLM: the class derives from vLLM-Ascend's ``Backend`` when that is installed, else from object.
"""

from __future__ import annotations

import ctypes
import logging
import os
import sys
from typing import Sequence

from ..errors import KvPoolError
from ..store import KvPoolStore, ReplicateConfig

LOG = logging.getLogger("kvpool.vllm_ascend")

BACKEND_NAME = "kvpool"
BACKEND_MODULE = "vllm_ascend.distributed.kv_transfer.kv_pool.ascend_store.backend"

try:  # pragma: no cover - only where vLLM-Ascend is installed
    from vllm_ascend.distributed.kv_transfer.kv_pool.ascend_store.backend.base import Backend as _Base
except Exception:  # noqa: BLE001 - vLLM missing, or vLLM-Ascend failing to import without an NPU
    _Base = object


def register() -> None:
    """vLLM plugin hook: makes ``"backend": "kvpool"`` selectable in vLLM-Ascend's KV-pool connector."""
    try:
        import importlib
        backends = importlib.import_module(BACKEND_MODULE)
    except Exception:  # noqa: BLE001 - no vLLM-Ascend in this process: nothing to register with
        return
    backends.backend_map.setdefault(BACKEND_NAME, {"name": "KvPoolBackend", "path": __name__})


class AscendDeviceMemory:
    """Copies between NPU device memory and host memory with AscendCL's synchronous ``aclrtMemcpy``, on the calling
    thread's current context (vLLM-Ascend's transfer threads set their device first: :meth:`KvPoolBackend.set_device`)."""

    HOST_TO_DEVICE = 1
    DEVICE_TO_HOST = 2

    def __init__(self, library: str | None = None):
        path = library or os.environ.get("KVPOOL_ASCEND_LIB") or "libascendcl.so"
        try:
            lib = ctypes.CDLL(path)
        except OSError as e:
            raise KvPoolError(f"cannot load the Ascend runtime {path} ({e}); set KVPOOL_ASCEND_LIB or use"
                              " KVPOOL_BUFFER_MEMORY=host for host KV caches") from None
        self._memcpy = lib.aclrtMemcpy
        self._memcpy.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int)
        self._memcpy.restype = ctypes.c_int

    def _copy(self, dst: int, src: int, size: int, kind: int) -> None:
        rc = self._memcpy(dst, size, src, size, kind)
        if rc != 0:
            direction = "device to host" if kind == self.DEVICE_TO_HOST else "host to device"
            raise KvPoolError(f"aclrtMemcpy of {size} bytes {direction} failed with aclError {rc}")

    def to_host(self, host: int, device: int, size: int) -> None:
        self._copy(host, device, size, self.DEVICE_TO_HOST)

    def to_device(self, device: int, host: int, size: int) -> None:
        self._copy(device, host, size, self.HOST_TO_DEVICE)


def _buffer_memory(explicit: str | None) -> str:
    mode = (explicit or os.environ.get("KVPOOL_BUFFER_MEMORY") or "auto").lower()
    if mode == "auto":
        mode = "ascend" if "torch_npu" in sys.modules else "host"
    if mode not in ("host", "ascend"):
        raise ValueError(f"KVPOOL_BUFFER_MEMORY must be host, ascend or auto, got {mode!r}")
    return mode


def _staging(size: int):
    buffer = (ctypes.c_ubyte * size)()
    return buffer, ctypes.addressof(buffer)


class KvPoolBackend(_Base):
    """vLLM-Ascend ``Backend`` on kvpool: ``register_buffer``, ``exists``, ``put`` and ``get`` with the Mooncake
    backend's conventions (exists: 1/0/negative per key; get: 0 per key read, negative per failure, None when the
    whole call failed; put: failures are logged, as the connector expects)."""

    store = None

    def __init__(self, parallel_config=None, lazy_init: bool = False, memory: str | None = None,
                 store: KvPoolStore | None = None, device_memory: AscendDeviceMemory | None = None, **_options):
        self.parallel_config = parallel_config
        self.memory = _buffer_memory(memory)
        self.device = device_memory if device_memory is not None or self.memory == "host" else AscendDeviceMemory()
        if store is None:
            store = KvPoolStore()
            rc = store.setup(None, master_server_addr=os.environ.get("KVPOOL_MASTER_ADDRESS") or None)
            if rc != 0:
                raise RuntimeError(f"kvpool: cannot connect to the pool (error {rc}); check KVPOOL_MASTER_ADDRESS"
                                   " (the pool's client ConfigMap) and that the masters are reachable")
        self.store = store
        self.buffers: list = []

    @classmethod
    def create_scheduler_client(cls, parallel_config=None):
        """The scheduler only asks which keys exist: no buffers, no device."""
        return cls(parallel_config, memory="host")

    def set_device(self) -> None:
        """Binds the calling (transfer) thread to this rank's NPU, so AscendCL copies run in its context."""
        if self.memory != "ascend":
            return
        import torch
        import torch_npu  # noqa: F401 - registers torch.npu
        try:
            from vllm.distributed.parallel_state import get_world_group
            local_rank = get_world_group().local_rank
        except Exception:  # noqa: BLE001 - outside a vLLM worker
            local_rank = int(os.environ.get("LOCAL_RANK", "0"))
        torch.npu.set_device(torch.device(f"npu:{local_rank}"))

    def register_buffer(self, ptrs: Sequence[int], lengths: Sequence[int]) -> None:
        """Records the KV cache regions (kvpool moves bytes over TCP: no registration with a NIC is needed)."""
        for ptr, length in zip(ptrs, lengths):
            self.store.register_buffer(ptr, length)
            self.buffers.append((ptr, length))

    def exists(self, keys: list) -> list:
        return self.store.batch_is_exist(keys)

    def batch_is_exist(self, keys: list) -> list:
        return self.exists(keys)

    def put(self, keys: list, addrs: list, sizes: list) -> None:
        try:
            if self.memory == "host":
                results = self.store.batch_put_from_multi_buffers(keys, addrs, sizes, ReplicateConfig())
            else:
                staged = [self._gather_to_host(a, s) for a, s in zip(addrs, sizes)]
                results = self.store.batch_put_from(keys, [b for b, _ in staged], [sum(s) for s in sizes])
        except Exception as e:  # noqa: BLE001 - the connector's send thread must survive a failed put
            LOG.error("kvpool: failed to put %d keys: %s: %s", len(keys), type(e).__name__, e)
            return
        failed = sorted({r for r in results if r < 0})
        if failed:
            LOG.error("kvpool: failed to put %d of %d keys, error codes %s", sum(r < 0 for r in results), len(keys),
                      failed)

    def get(self, keys: list, addrs: list, sizes: list):
        try:
            if self.memory == "host":
                results = self.store.batch_get_into_multi_buffers(keys, addrs, sizes)
            else:
                staged = [_staging(sum(s)) for s in sizes]
                results = self.store.batch_get_into(keys, [b for b, _ in staged], [sum(s) for s in sizes])
                for i, n in enumerate(results):
                    if n > 0:
                        self._scatter_to_device(staged[i][1], addrs[i], sizes[i])
        except Exception as e:  # noqa: BLE001 - the connector treats None as "every key failed"
            LOG.error("kvpool: failed to get %d keys: %s: %s", len(keys), type(e).__name__, e)
            return None
        failed = [r for r in results if r < 0]
        if failed:
            LOG.error("kvpool: failed to get %d of %d keys, error codes %s", len(failed), len(keys), sorted(set(failed)))
        return [0 if r > 0 else (r if r < 0 else -1) for r in results]

    def _gather_to_host(self, addrs: Sequence[int], sizes: Sequence[int]):
        buffer, base = _staging(sum(sizes))
        offset = 0
        for addr, size in zip(addrs, sizes):
            self.device.to_host(base + offset, addr, size)
            offset += size
        return buffer, base

    def _scatter_to_device(self, base: int, addrs: Sequence[int], sizes: Sequence[int]) -> None:
        offset = 0
        for addr, size in zip(addrs, sizes):
            self.device.to_device(addr, base + offset, size)
            offset += size
