"""A Mooncake-store-compatible API over kvpool: :class:`KvPoolStore` takes the calls of Mooncake's
``MooncakeDistributedStore`` (``mooncake.store``) with the same meaning and return conventions (0 or a byte count
for success, Mooncake's negative error codes for failures, empty bytes for a missing key), so code written for that
store (SGLang HiCache, LMCache, vLLM-Ascend's KV pool) runs on a kvpool pool. Differences are listed in
data-plane/python/README.md.
"""

from __future__ import annotations

import logging
import socket
from typing import Sequence

from .client import KvPoolClient
from .codec import key_problem
from .config import ClientConfig
from .errors import (BufferTooSmall, ChecksumMismatch, ConnectionFailed, ErrorCode, KvPoolError, KvPoolTimeout,
                     ProtocolError, VersionMismatch)
from .memory import Regions, address_view, byte_view

LOG = logging.getLogger("kvpool.store")


class MooncakeError:
    """Mooncake's error codes (``mooncake::ErrorCode``) that this API returns."""
    OK = 0
    INTERNAL_ERROR = -1
    NO_AVAILABLE_HANDLE = -200
    INVALID_VERSION = -300
    INVALID_KEY = -400
    INVALID_PARAMS = -600
    ILLEGAL_CLIENT = -601
    OBJECT_NOT_FOUND = -704
    OBJECT_ALREADY_EXISTS = -705
    OBJECT_HAS_LEASE = -706
    TRANSFER_FAIL = -800
    CHECKSUM_MISMATCH = -801
    RPC_FAIL = -900
    RPC_TIMEOUT = -901
    UNAVAILABLE_IN_CURRENT_STATUS = -1010


_BY_KVPOOL_CODE = {
    ErrorCode.NOT_FOUND: MooncakeError.OBJECT_NOT_FOUND,
    ErrorCode.ALREADY_EXISTS: MooncakeError.OBJECT_ALREADY_EXISTS,
    ErrorCode.OBJECT_LEASED: MooncakeError.OBJECT_HAS_LEASE,
    ErrorCode.PUT_IN_PROGRESS: MooncakeError.OBJECT_HAS_LEASE,
    ErrorCode.NO_SPACE: MooncakeError.NO_AVAILABLE_HANDLE,
    ErrorCode.NOT_ENOUGH_NODES: MooncakeError.NO_AVAILABLE_HANDLE,
    ErrorCode.CHECKSUM_MISMATCH: MooncakeError.CHECKSUM_MISMATCH,
    ErrorCode.LIMIT_EXCEEDED: MooncakeError.INVALID_PARAMS,
    ErrorCode.VERSION_MISMATCH: MooncakeError.INVALID_VERSION,
    ErrorCode.RECOVERING: MooncakeError.UNAVAILABLE_IN_CURRENT_STATUS,
    ErrorCode.NOT_LEADER: MooncakeError.RPC_FAIL,
    ErrorCode.AUTH_REQUIRED: MooncakeError.ILLEGAL_CLIENT,
    ErrorCode.AUTH_FAILED: MooncakeError.ILLEGAL_CLIENT,
}


def mooncake_code(error: BaseException) -> int:
    """The Mooncake error code closest to a kvpool failure."""
    if isinstance(error, VersionMismatch):
        return MooncakeError.INVALID_VERSION
    if isinstance(error, (BufferTooSmall, ValueError, TypeError)):
        return MooncakeError.INVALID_PARAMS
    if isinstance(error, ChecksumMismatch):
        return MooncakeError.CHECKSUM_MISMATCH
    if isinstance(error, KvPoolError) and error.code in _BY_KVPOOL_CODE:
        return _BY_KVPOOL_CODE[error.code]
    if isinstance(error, KvPoolTimeout):
        return MooncakeError.RPC_TIMEOUT
    if isinstance(error, (ConnectionFailed, ProtocolError)):
        return MooncakeError.RPC_FAIL
    return MooncakeError.INTERNAL_ERROR


class ReplicateConfig:
    """Mooncake's ``ReplicateConfig``: ``replica_num`` and ``with_soft_pin`` are honoured; the placement hints
    (``preferred_segment``, ``prefer_alloc_in_same_node``) are accepted and ignored (kvpool places replicas)."""

    def __init__(self, replica_num: int = 0, with_soft_pin: bool = False, preferred_segment: str = "",
                 prefer_alloc_in_same_node: bool = False):
        self.replica_num = replica_num  # 0: the pool's default (KVPOOL_OBJECT_REPLICAS)
        self.with_soft_pin = with_soft_pin
        self.preferred_segment = preferred_segment
        self.prefer_alloc_in_same_node = prefer_alloc_in_same_node

    def __repr__(self) -> str:
        return (f"ReplicateConfig(replica_num={self.replica_num}, with_soft_pin={self.with_soft_pin},"
                f" preferred_segment={self.preferred_segment!r})")


def _as_regions(buffer, size: int, writable: bool) -> Regions:
    """A raw address (int) or any buffer-protocol object, limited to ``size`` bytes."""
    if isinstance(buffer, int):
        return Regions([address_view(buffer, size, writable)])
    view = byte_view(buffer, writable)
    if size > len(view):
        raise ValueError(f"size {size} exceeds the buffer's {len(view)} bytes")
    return Regions([view[:size]])


class KvPoolStore:
    """``MooncakeDistributedStore``'s interface on a kvpool pool. Call :meth:`setup` first."""

    def __init__(self) -> None:
        self.client: KvPoolClient | None = None
        self._registered: dict = {}
        self._hostname = socket.gethostname()

    # ---- life cycle ----

    def setup(self, local_hostname=None, metadata_server: str = "", global_segment_size: int = 0,
              local_buffer_size: int = 0, protocol: str = "tcp", rdma_devices: str = "",
              master_server_addr: str | None = None, engine=None, **options) -> int:
        """Connects to the pool. ``master_server_addr``: the pool's masters (``HOST:PORT[,HOST:PORT...]``), default
        KVPOOL_MASTER_ADDRESS. Like Mooncake, a dict of these settings may be passed instead. kvpool clients do not
        contribute memory: ``global_segment_size``, ``local_buffer_size``, ``metadata_server``, ``protocol``,
        ``rdma_devices`` and ``engine`` are accepted and ignored. Extra keyword settings: ``pool_id``,
        ``replicas``, ``timeout``, ``operation_timeout``, ``client_id``, ``pool_key`` (default KVPOOL_CLIENT_KEY), ``tls_ca`` (default KVPOOL_TLS_CA). Returns 0, or a negative error code."""
        if isinstance(local_hostname, dict):
            settings = dict(local_hostname)
            master_server_addr = settings.pop("master_server_addr", None) or settings.pop("master_server_address", None)
            local_hostname = settings.pop("local_hostname", None)
            options = {k: v for k, v in settings.items() if k in ("pool_id", "replicas", "timeout",
                                                                  "operation_timeout", "client_id", "pool_key", "tls_ca")}
        if local_hostname:
            self._hostname = str(local_hostname)
        try:
            config = ClientConfig.from_env(masters=master_server_addr or None, **options)
            self.client = KvPoolClient(config)
            return 0
        except (KvPoolError, ValueError) as e:
            LOG.error("kvpool setup failed: %s", e)
            return mooncake_code(e)

    def setup_client(self, client: KvPoolClient) -> int:
        """Uses an existing client instead of :meth:`setup`."""
        self.client = client
        return 0

    def close(self) -> int:
        if self.client is not None:
            self.client.close()
            self.client = None
        return 0

    def health_check(self) -> int:
        """0 healthy, 1 not set up, 2 master unreachable (as Mooncake)."""
        if self.client is None:
            return 1
        try:
            self.client.stats()
            return 0
        except KvPoolError:
            return 2

    def get_hostname(self) -> str:
        return self._hostname

    def register_buffer(self, buffer_ptr: int, size: int) -> int:
        """Records a buffer. kvpool moves bytes over TCP from any host memory, so registration is not required
        (it is kept for API compatibility and to describe the caller's buffers)."""
        if not isinstance(buffer_ptr, int) or buffer_ptr <= 0 or size < 0:
            return MooncakeError.INVALID_PARAMS
        self._registered[buffer_ptr] = size
        return 0

    def unregister_buffer(self, buffer_ptr: int) -> int:
        return 0 if self._registered.pop(buffer_ptr, None) is not None else MooncakeError.INVALID_PARAMS

    # ---- helpers ----

    def _require(self) -> KvPoolClient:
        if self.client is None:
            raise ValueError("the store is not set up: call setup() first")
        return self.client

    @staticmethod
    def _replicas(config: ReplicateConfig | None):
        return config.replica_num if config is not None and config.replica_num else None

    def _after_put(self, keys: Sequence[str], results: list, config: ReplicateConfig | None) -> None:
        if config is not None and config.with_soft_pin:
            for key, r in zip(keys, results):
                if r == 0:
                    try:
                        self.client.pin(key, True)
                    except KvPoolError as e:
                        LOG.warning("kvpool: cannot soft-pin key %s: %s", key, e)

    def _failed(self, what: str, error: BaseException) -> int:
        code = mooncake_code(error)
        if code == MooncakeError.OBJECT_NOT_FOUND:
            LOG.debug("kvpool %s: %s", what, error)
        else:
            LOG.error("kvpool %s failed: %s", what, error)
        return code

    # ---- put ----

    def put(self, key: str, value, config: ReplicateConfig | None = None) -> int:
        """Stores a bytes-like value. 0 on success (also when the key already exists: the stored value is kept)."""
        return self._put_regions("put", [key], lambda: [Regions.of_buffer(value)], config)[0]

    def put_from(self, key: str, buffer_ptr, size: int, config: ReplicateConfig | None = None) -> int:
        """Stores ``size`` bytes from a raw address or a buffer-protocol object, without copying them."""
        return self._put_regions("put_from", [key], lambda: [_as_regions(buffer_ptr, size, False)], config)[0]

    def put_batch(self, keys: Sequence[str], values: Sequence, config: ReplicateConfig | None = None) -> int:
        """Stores many values; 0 when all succeeded, else the first error code."""
        if len(keys) != len(values):
            return MooncakeError.INVALID_PARAMS
        results = self._put_regions("put_batch", keys, lambda: [Regions.of_buffer(v) for v in values], config)
        return next((r for r in results if r != 0), 0)

    def batch_put_from(self, keys: Sequence[str], buffer_ptrs: Sequence, sizes: Sequence[int],
                       config: ReplicateConfig | None = None) -> list:
        if not len(keys) == len(buffer_ptrs) == len(sizes):
            return [MooncakeError.INVALID_PARAMS] * len(keys)
        return self._put_regions("batch_put_from", keys,
                                 lambda: [_as_regions(b, s, False) for b, s in zip(buffer_ptrs, sizes)], config)

    def batch_put_from_multi_buffers(self, keys: Sequence[str], all_buffer_ptrs: Sequence[Sequence[int]],
                                     all_sizes: Sequence[Sequence[int]], config: ReplicateConfig | None = None) -> list:
        """Each key's value is gathered from several regions (raw addresses and sizes), in order."""
        if not len(keys) == len(all_buffer_ptrs) == len(all_sizes):
            return [MooncakeError.INVALID_PARAMS] * len(keys)
        return self._put_regions("batch_put_from_multi_buffers", keys,
                                 lambda: [Regions.of_addresses(p, s) for p, s in zip(all_buffer_ptrs, all_sizes)],
                                 config)

    def _put_regions(self, what: str, keys: Sequence[str], regions, config: ReplicateConfig | None) -> list:
        try:
            client = self._require()
            values = regions()
        except (ValueError, TypeError) as e:
            return [self._failed(what, e)] * len(keys)
        results = []
        valid_keys, valid_values, where = [], [], []
        for i, (k, v) in enumerate(zip(keys, values)):
            problem = key_problem(k)
            if problem is not None or v.size == 0:
                LOG.error("kvpool %s of key %r refused: %s", what, k, problem or "empty value")
                results.append(MooncakeError.INVALID_KEY if problem else MooncakeError.INVALID_PARAMS)
            else:
                results.append(0)
                valid_keys.append(k)
                valid_values.append(v)
                where.append(i)
        if valid_keys:
            try:
                if len(valid_keys) == 1:
                    client.put_regions(valid_keys[0], valid_values[0], self._replicas(config))
                    outcomes = [None]
                else:
                    outcomes = client.put_batch(valid_keys, valid_values, self._replicas(config))
            except (KvPoolError, ValueError) as e:
                outcomes = [e] * len(valid_keys)
            for i, outcome in zip(where, outcomes):
                if outcome is not None:
                    results[i] = self._failed(f"{what} of key {keys[i]!r}", outcome)
        self._after_put(keys, results, config)
        return results

    # ---- get ----

    def get(self, key: str) -> bytes:
        """The value, or empty bytes when the key is not stored (or on error, as Mooncake)."""
        try:
            return bytes(self._require().get(key))
        except (KvPoolError, ValueError) as e:
            self._failed(f"get of key {key!r}", e)
            return b""

    def get_batch(self, keys: Sequence[str]) -> list:
        """One bytes per key; empty for a key that is not stored or could not be read."""
        try:
            values = self._require().get_batch(list(keys))
            return [bytes(v) if v is not None else b"" for v in values]
        except (KvPoolError, ValueError) as e:
            self._failed("get_batch", e)
            return [self.get(k) for k in keys] if self.client is not None else [b""] * len(keys)

    def get_into(self, key: str, buffer_ptr, size: int) -> int:
        """Reads the value into a raw address or a writable buffer of ``size`` bytes; the byte count, or a
        negative error code (INVALID_PARAMS when it does not fit)."""
        return self._get_regions("get_into", [key], lambda: [_as_regions(buffer_ptr, size, True)])[0]

    def batch_get_into(self, keys: Sequence[str], buffer_ptrs: Sequence, sizes: Sequence[int]) -> list:
        if not len(keys) == len(buffer_ptrs) == len(sizes):
            return [MooncakeError.INVALID_PARAMS] * len(keys)
        return self._get_regions("batch_get_into", keys,
                                 lambda: [_as_regions(b, s, True) for b, s in zip(buffer_ptrs, sizes)])

    def batch_get_into_multi_buffers(self, keys: Sequence[str], all_buffer_ptrs: Sequence[Sequence[int]],
                                     all_sizes: Sequence[Sequence[int]], prefer_alloc_in_same_node: bool = False) -> list:
        """Each key's value is scattered into several regions, in order. Per key: bytes read, or a negative code."""
        if not len(keys) == len(all_buffer_ptrs) == len(all_sizes):
            return [MooncakeError.INVALID_PARAMS] * len(keys)
        return self._get_regions("batch_get_into_multi_buffers", keys,
                                 lambda: [Regions.of_addresses(p, s, True) for p, s in zip(all_buffer_ptrs, all_sizes)])

    def _get_regions(self, what: str, keys: Sequence[str], regions) -> list:
        try:
            client = self._require()
            dsts = regions()
            for k in keys:
                problem = key_problem(k)
                if problem is not None:
                    raise ValueError(problem)
            if len(keys) == 1:
                try:
                    outcomes = [client.get_regions(keys[0], dsts[0])]
                except KvPoolError as e:
                    outcomes = [e]
            else:
                outcomes = client.get_batch_regions(list(keys), dsts)
        except (KvPoolError, ValueError, TypeError) as e:
            return [self._failed(what, e)] * len(keys)
        return [n if isinstance(n, int) else self._failed(f"{what} of key {k!r}", n) for k, n in zip(keys, outcomes)]

    def get_size(self, key: str) -> int:
        """The value's size in bytes, or a negative error code."""
        try:
            return self._require()._lookup(key).size
        except (KvPoolError, ValueError) as e:
            return self._failed(f"get_size of key {key!r}", e)

    # ---- metadata ----

    def is_exist(self, key: str) -> int:
        """1 exists, 0 does not, negative on error."""
        return self.batch_is_exist([key])[0]

    def batch_is_exist(self, keys: Sequence[str]) -> list:
        try:
            return [1 if e else 0 for e in self._require().exists_batch(list(keys))]
        except (KvPoolError, ValueError) as e:
            return [self._failed("batch_is_exist", e)] * len(keys)

    def remove(self, key: str, force: bool = False) -> int:
        """0 removed; OBJECT_NOT_FOUND; OBJECT_HAS_LEASE while it is being read. ``force`` is not supported by
        kvpool's master (leases always protect readers) and is ignored."""
        return self.batch_remove([key], force)[0]

    def batch_remove(self, keys: Sequence[str], force: bool = False) -> list:
        try:
            statuses = self._require().remove_batch(list(keys))
        except (KvPoolError, ValueError) as e:
            return [self._failed("batch_remove", e)] * len(keys)
        return [0 if s == ErrorCode.OK else _BY_KVPOOL_CODE.get(s, MooncakeError.INTERNAL_ERROR) for s in statuses]

    def remove_all(self, force: bool = False) -> int:
        """How many objects were removed (objects being read or written are kept), or -1 on error."""
        try:
            return self._require().remove_all()
        except (KvPoolError, ValueError) as e:
            self._failed("remove_all", e)
            return -1


# the name Mooncake users import
MooncakeDistributedStore = KvPoolStore
