"""A Mooncake-store-compatible API over kvpool: :class:`KvPoolStore` takes the calls of Mooncake's
``MooncakeDistributedStore`` (``mooncake.store``) with the same meaning and return conventions (0 or a byte count
for success, Mooncake's negative error codes for failures, empty bytes for a missing key), so code written for that
store (SGLang HiCache, LMCache, vLLM-Ascend's KV pool) runs on a kvpool pool. Differences are listed in
data-plane/python/README.md.
"""

from __future__ import annotations

import dataclasses
import logging
import socket
import threading
from typing import Sequence

from .client import KvPoolClient
from .config import ClientConfig
from .errors import (BufferTooSmall, ChecksumMismatch, ConnectionFailed, ErrorCode, InvalidKey, KvPoolError,
                     KvPoolTimeout, ProtocolError, VersionMismatch)
from .gets import IntoRegions
from .memory import Regions, address_view, byte_view
from .messages import Opcode
from .puts import PutResult

LOG = logging.getLogger("kvpool.store")

# the ClientConfig settings setup() passes on; the version announced is for compatibility tests only
_CLIENT_SETTINGS = frozenset(f.name for f in dataclasses.fields(ClientConfig)) - {"masters", "release", "protocol"}
# Mooncake's settings of a client that contributes memory or picks a transport: meaningless for a kvpool client
_MOONCAKE_IGNORED = frozenset({"local_hostname", "metadata_server", "global_segment_size", "local_buffer_size",
                               "protocol", "rdma_devices", "engine", "master_server_addr", "master_server_address"})
_reported: set = set()
_reported_lock = threading.Lock()


def _report_ignored(names) -> None:
    """Logs, once per process and name, the setup() settings kvpool does not support (Mooncake's SSD offload, tenant,
    client HTTP server, ... and any it does not know): accepted, so code written for a newer Mooncake still runs."""
    with _reported_lock:
        new = sorted(n for n in names if n not in _reported)
        _reported.update(new)
    if new:
        LOG.warning("kvpool setup: ignoring settings kvpool does not support: %s (accepted for Mooncake"
                    " compatibility; they have no effect)", ", ".join(new))


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
    if isinstance(error, InvalidKey):
        return MooncakeError.INVALID_KEY
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
        ``rdma_devices`` and ``engine`` are accepted and ignored. Extra keyword settings: those of
        :class:`ClientConfig` (``pool_id``, ``replicas``, ``timeout``, ``operation_timeout``, ``client_id``,
        ``pool_key`` (default KVPOOL_CLIENT_KEY), ``tls_ca`` (default KVPOOL_TLS_CA), ``fail_fast_connect``, ...).
        Any other keyword (Mooncake's ``enable_ssd_offload``, ``ssd_offload_path``, ``tenant_id``,
        ``enable_client_http_server``, ...) is accepted, logged once and ignored. Returns 0, or a negative error
        code."""
        if isinstance(local_hostname, dict):
            settings = dict(local_hostname)
            master_server_addr = settings.pop("master_server_addr", None) or settings.pop("master_server_address", None)
            local_hostname = settings.pop("local_hostname", None)
            options = {**settings, **options}
        unsupported = [k for k in options if k not in _CLIENT_SETTINGS and k not in _MOONCAKE_IGNORED]
        if unsupported:
            _report_ignored(unsupported)
        options = {k: v for k, v in options.items() if k in _CLIENT_SETTINGS}
        if local_hostname:
            self._hostname = str(local_hostname)
        try:
            config = ClientConfig.from_env(masters=master_server_addr or None, **options)
            self.client = KvPoolClient(config)
            return 0
        except (KvPoolError, ValueError, TypeError) as e:
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
        return self._put_regions("put", [key], self._per_key([key], Regions.of_buffer, [value]), config)[0]

    def put_from(self, key: str, buffer_ptr, size: int, config: ReplicateConfig | None = None) -> int:
        """Stores ``size`` bytes from a raw address or a buffer-protocol object, without copying them."""
        return self._put_regions("put_from", [key], self._per_key([key], _as_regions, [buffer_ptr], [size], [False]),
                                 config)[0]

    def put_batch(self, keys: Sequence[str], values: Sequence, config: ReplicateConfig | None = None) -> int:
        """Stores many values; 0 when all succeeded, else the first error code."""
        if len(keys) != len(values):
            return MooncakeError.INVALID_PARAMS
        results = self._put_regions("put_batch", keys, self._per_key(keys, Regions.of_buffer, values), config)
        return next((r for r in results if r != 0), 0)

    def batch_put_from(self, keys: Sequence[str], buffer_ptrs: Sequence, sizes: Sequence[int],
                       config: ReplicateConfig | None = None) -> list:
        if not len(keys) == len(buffer_ptrs) == len(sizes):
            return [MooncakeError.INVALID_PARAMS] * len(keys)
        return self._put_regions("batch_put_from", keys,
                                 self._per_key(keys, _as_regions, buffer_ptrs, sizes, [False] * len(keys)), config)

    def batch_put_from_multi_buffers(self, keys: Sequence[str], all_buffer_ptrs: Sequence[Sequence[int]],
                                     all_sizes: Sequence[Sequence[int]], config: ReplicateConfig | None = None) -> list:
        """Each key's value is gathered from several regions (raw addresses and sizes), in order."""
        if not len(keys) == len(all_buffer_ptrs) == len(all_sizes):
            return [MooncakeError.INVALID_PARAMS] * len(keys)
        return self._put_regions("batch_put_from_multi_buffers", keys,
                                 self._per_key(keys, Regions.of_addresses, all_buffer_ptrs, all_sizes), config)

    @staticmethod
    def _per_key(keys: Sequence[str], make, *args) -> list:
        """``make(*args_i)`` for each key, or the ValueError/TypeError it raised: a bad buffer fails only its key."""
        out = []
        for i in range(len(keys)):
            try:
                out.append(make(*(a[i] for a in args)))
            except (ValueError, TypeError) as e:
                out.append(e)
        return out

    def _put_regions(self, what: str, keys: Sequence[str], values: list, config: ReplicateConfig | None) -> list:
        """One put operation for every key with a usable value (one deadline); per key 0 or a negative code: an
        invalid key, value or buffer fails only its own entry."""
        try:
            client = self._require()
        except ValueError as e:
            return [self._failed(what, e)] * len(keys)
        results: list = [None] * len(keys)
        where = []
        for i, v in enumerate(values):
            if isinstance(v, BaseException):
                results[i] = self._failed(f"{what} of key {keys[i]!r}", v)
            else:
                where.append(i)
        if where:
            try:
                done = client._put_entries([keys[i] for i in where], [values[i] for i in where],
                                           self._replicas(config))
            except (KvPoolError, ValueError) as e:
                done = [e] * len(where)
            for i, entry in zip(where, done):
                failure = entry if isinstance(entry, BaseException) else \
                    entry.failure if entry.result == PutResult.FAILED else None
                results[i] = 0 if failure is None else self._failed(f"{what} of key {keys[i]!r}", failure)
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
        """One bytes per key, all read within one operation timeout; empty for a key that is not stored or could not
        be read (each logged)."""
        try:
            values = self._require()._get_values(list(keys))
        except (KvPoolError, ValueError) as e:
            self._failed("get_batch", e)
            return [b""] * len(keys)
        out = []
        for k, v in zip(keys, values):
            if isinstance(v, BaseException):
                self._failed(f"get_batch of key {k!r}", v)
                out.append(b"")
            else:
                out.append(bytes(v))
        return out

    def get_into(self, key: str, buffer_ptr, size: int) -> int:
        """Reads the value into a raw address or a writable buffer of ``size`` bytes; the byte count, or a
        negative error code (INVALID_PARAMS when it does not fit)."""
        return self._get_regions("get_into", [key], self._per_key([key], _as_regions, [buffer_ptr], [size], [True]))[0]

    def batch_get_into(self, keys: Sequence[str], buffer_ptrs: Sequence, sizes: Sequence[int]) -> list:
        if not len(keys) == len(buffer_ptrs) == len(sizes):
            return [MooncakeError.INVALID_PARAMS] * len(keys)
        return self._get_regions("batch_get_into", keys,
                                 self._per_key(keys, _as_regions, buffer_ptrs, sizes, [True] * len(keys)))

    def batch_get_into_multi_buffers(self, keys: Sequence[str], all_buffer_ptrs: Sequence[Sequence[int]],
                                     all_sizes: Sequence[Sequence[int]], prefer_alloc_in_same_node: bool = False) -> list:
        """Each key's value is scattered into several regions, in order. Per key: bytes read, or a negative code."""
        if not len(keys) == len(all_buffer_ptrs) == len(all_sizes):
            return [MooncakeError.INVALID_PARAMS] * len(keys)
        return self._get_regions("batch_get_into_multi_buffers", keys,
                                 self._per_key(keys, Regions.of_addresses, all_buffer_ptrs, all_sizes,
                                               [True] * len(keys)))

    def _get_regions(self, what: str, keys: Sequence[str], dsts: list) -> list:
        """One get operation for every key with a usable buffer (one deadline); per key the bytes read or a negative
        code: an invalid key or buffer fails only its own entry."""
        try:
            client = self._require()
        except ValueError as e:
            return [self._failed(what, e)] * len(keys)
        outcomes: list = list(dsts)
        where = [i for i, d in enumerate(dsts) if not isinstance(d, BaseException)]
        if where:
            wanted = [keys[i] for i in where]
            try:
                read = client._read(wanted, IntoRegions(wanted, [dsts[i] for i in where]))
            except (KvPoolError, ValueError) as e:
                read = [e] * len(where)
            for i, n in zip(where, read):
                outcomes[i] = n
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
        """Per key, within one operation timeout: 1 exists, 0 does not, or a negative code (``INVALID_KEY`` for an
        invalid key: only that entry)."""
        try:
            statuses = self._require()._key_statuses(Opcode.EXISTS, list(keys))
        except (KvPoolError, ValueError) as e:
            return [self._failed("batch_is_exist", e)] * len(keys)
        return [self._status_code(f"batch_is_exist of key {k!r}", s, exists=True) for k, s in zip(keys, statuses)]

    def _status_code(self, what: str, status, exists: bool = False) -> int:
        if isinstance(status, BaseException):
            return self._failed(what, status)
        if status == ErrorCode.OK:
            return 1 if exists else 0
        if exists and status in (ErrorCode.NOT_FOUND, ErrorCode.RECOVERING):
            return 0
        return _BY_KVPOOL_CODE.get(status, MooncakeError.INTERNAL_ERROR)

    def remove(self, key: str, force: bool = False) -> int:
        """0 removed; OBJECT_NOT_FOUND; OBJECT_HAS_LEASE while it is being read. ``force`` is not supported by
        kvpool's master (leases always protect readers) and is ignored."""
        return self.batch_remove([key], force)[0]

    def batch_remove(self, keys: Sequence[str], force: bool = False) -> list:
        """Per key, within one operation timeout: 0 removed, or a negative code (only that entry)."""
        try:
            statuses = self._require()._removed(list(keys))
        except (KvPoolError, ValueError) as e:
            return [self._failed("batch_remove", e)] * len(keys)
        return [self._status_code(f"batch_remove of key {k!r}", s) for k, s in zip(keys, statuses)]

    def remove_all(self, force: bool = False) -> int:
        """How many objects were removed (objects being read or written are kept), or -1 on error."""
        try:
            return self._require().remove_all()
        except (KvPoolError, ValueError) as e:
            self._failed("remove_all", e)
            return -1


# the name Mooncake users import
MooncakeDistributedStore = KvPoolStore
