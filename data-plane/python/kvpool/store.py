"""A Mooncake-store-compatible API over kvpool: :class:`KvPoolStore` takes the calls of Mooncake's
``MooncakeDistributedStore`` (``mooncake.store``) with the same meaning and return conventions (0 or a byte count
for success, Mooncake's negative error codes for failures, empty bytes for a missing key), so code written for that
store (vLLM's MooncakeStoreConnector, SGLang HiCache, LMCache, vLLM-Ascend's KV pool) runs on a kvpool pool. Differences are listed in
data-plane/python/README.md.
"""

from __future__ import annotations

import dataclasses
import logging
import socket
import threading
from typing import Sequence

from .backoff import Backoff
from .client import KvPoolClient
from .config import ClientConfig
from .errors import ErrorCode, KvPoolError
from .gets import IntoRegions
from .memory import Regions, address_view, byte_view
from .messages import Opcode
from .puts import PutResult
from .ranges import RangeReads, group_fragments
from .store_types import (BufferDescriptor, BufferHandle, MemoryDescriptor, MooncakeError, ReplicaDescriptor,
                          ReplicaStatus, ReplicateConfig, mooncake_code, mooncake_status, replica_descriptors)

__all__ = ["KvPoolStore", "MooncakeDistributedStore", "MooncakeError", "ReplicateConfig", "BufferHandle",
           "ReplicaStatus", "ReplicaDescriptor", "MemoryDescriptor", "BufferDescriptor", "mooncake_code"]

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


def _as_regions(buffer, size: int, writable: bool) -> Regions:
    """A raw address (int) or any buffer-protocol object, limited to ``size`` bytes."""
    if isinstance(buffer, int):
        return Regions([address_view(buffer, size, writable)])
    view = byte_view(buffer, writable)
    if size > len(view):
        raise ValueError(f"size {size} exceeds the buffer's {len(view)} bytes")
    return Regions([view[:size]])


def _parts(parts) -> Regions:
    """``put_parts``' parts, back to back: each must be 1-D bytes-like (as Mooncake requires)."""
    views = []
    for part in parts:
        view = memoryview(part)
        if view.ndim != 1 or view.itemsize != 1:
            raise ValueError("parts must be 1-D bytes-like")
        views.append(byte_view(view))
    return Regions(views)


def _with_metadata(buffer, metadata, size: int, metadata_size: int) -> Regions:
    """Mooncake's layout of ``put_from_with_metadata``: the metadata, then the data."""
    return Regions(_as_regions(metadata, metadata_size, False).views + _as_regions(buffer, size, False).views)


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

    def put_parts(self, key: str, *parts, config: ReplicateConfig | None = None) -> int:
        """Stores the parts (bytes-like objects) back to back as one value, gathered from them (not joined first)."""
        return self._put_regions("put_parts", [key], self._per_key([key], _parts, [parts]), config)[0]

    def put_from_with_metadata(self, key: str, buffer_ptr, metadata_buffer_ptr, size: int, metadata_size: int,
                               config: ReplicateConfig | None = None) -> int:
        """Stores ``metadata_size`` bytes of metadata followed by ``size`` bytes of data as one value (Mooncake's
        layout), gathered from the two buffers without copying."""
        return self._put_regions("put_from_with_metadata", [key],
                                 self._per_key([key], _with_metadata, [buffer_ptr], [metadata_buffer_ptr], [size],
                                               [metadata_size]), config)[0]

    # ---- upsert: insert or replace ----

    def upsert(self, key: str, value, config: ReplicateConfig | None = None) -> int:
        """Stores ``value``, replacing a stored one (see :meth:`_upsert_regions`). 0 or a negative code."""
        return self._upsert_regions("upsert", [key], self._per_key([key], Regions.of_buffer, [value]), config)[0]

    def upsert_from(self, key: str, buffer_ptr, size: int, config: ReplicateConfig | None = None) -> int:
        return self._upsert_regions("upsert_from", [key],
                                    self._per_key([key], _as_regions, [buffer_ptr], [size], [False]), config)[0]

    def batch_upsert_from(self, keys: Sequence[str], buffer_ptrs: Sequence, sizes: Sequence[int],
                          config: ReplicateConfig | None = None) -> list:
        if not len(keys) == len(buffer_ptrs) == len(sizes):
            return [MooncakeError.INVALID_PARAMS] * len(keys)
        return self._upsert_regions("batch_upsert_from", keys,
                                    self._per_key(keys, _as_regions, buffer_ptrs, sizes, [False] * len(keys)), config)

    def upsert_parts(self, key: str, *parts, config: ReplicateConfig | None = None) -> int:
        return self._upsert_regions("upsert_parts", [key], self._per_key([key], _parts, [parts]), config)[0]

    def upsert_batch(self, keys: Sequence[str], values: Sequence, config: ReplicateConfig | None = None) -> int:
        """0 when every value was stored, else the first error code."""
        if len(keys) != len(values):
            return MooncakeError.INVALID_PARAMS
        results = self._upsert_regions("upsert_batch", keys, self._per_key(keys, Regions.of_buffer, values), config)
        return next((r for r in results if r != 0), 0)

    def _upsert_regions(self, what: str, keys: Sequence[str], values: list, config: ReplicateConfig | None) -> list:
        """Replaces the keys' values within one operation timeout: REMOVE (waiting for reads of the old value to end,
        as ``remove(force=True)``), then the put; a key another writer stored in between is removed and put again
        until the deadline. Not atomic: between the two a reader finds no value. Per key 0 or a negative code."""
        try:
            client = self._require()
        except ValueError as e:
            return [self._failed(what, e)] * len(keys)
        deadline = Backoff.until(client.config.operation_timeout)
        results: list = [None] * len(keys)
        todo = []
        for i, v in enumerate(values):
            if isinstance(v, BaseException):
                results[i] = self._failed(f"{what} of key {keys[i]!r}", v)
            else:
                todo.append(i)
        while todo:
            statuses = client._removed([keys[i] for i in todo], True, deadline)
            free = []
            for i, status in zip(todo, statuses):
                if status in (ErrorCode.OK, ErrorCode.NOT_FOUND):
                    free.append(i)
                else:
                    results[i] = self._status_code(f"{what} of key {keys[i]!r}", status)
            try:
                done = client._put_entries([keys[i] for i in free], [values[i] for i in free], self._replicas(config),
                                           deadline) if free else []
            except (KvPoolError, ValueError) as e:
                done = [e] * len(free)
            todo = []
            for i, entry in zip(free, done):
                if isinstance(entry, BaseException) or entry.result == PutResult.FAILED:
                    results[i] = self._failed(f"{what} of key {keys[i]!r}",
                                              entry if isinstance(entry, BaseException) else entry.failure)
                elif entry.result == PutResult.PRESENT and not deadline.expired():
                    todo.append(i)  # another writer stored the key after our remove: replace that value too
                else:
                    results[i] = 0 if entry.result == PutResult.STORED else MooncakeError.OBJECT_ALREADY_EXISTS
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

    def get_buffer(self, key: str) -> BufferHandle | None:
        """The value in a :class:`BufferHandle` it was read into (no further copy), or None when it is not stored
        (or could not be read: logged)."""
        return self.batch_get_buffer([key])[0]

    def batch_get_buffer(self, keys: Sequence[str]) -> list:
        """One :class:`BufferHandle` per key, None for a key that is not stored or could not be read (each failure
        logged), all within one operation timeout."""
        try:
            values = self._require()._get_values(list(keys), BufferHandle)
        except (KvPoolError, ValueError) as e:
            self._failed("batch_get_buffer", e)
            return [None] * len(keys)
        out = []
        for k, v in zip(keys, values):
            if isinstance(v, BaseException):
                self._failed(f"batch_get_buffer of key {k!r}", v)
                out.append(None)
            else:
                out.append(v)
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

    def get_into_ranges(self, buffer_ptrs: Sequence, all_keys: Sequence[Sequence[str]],
                        all_dst_offsets: Sequence[Sequence[Sequence[int]]],
                        all_src_offsets: Sequence[Sequence[Sequence[int]]],
                        all_sizes: Sequence[Sequence[Sequence[int]]]) -> list:
        """Mooncake's ranged read: for buffer i, key j, fragment k, the bytes [src, src + size) of the value of
        ``all_keys[i][j]`` go to ``buffer_ptrs[i]`` (an address or a writable buffer) at ``all_dst_offsets[i][j][k]``.
        Returns ``results[i][j][k]``: the fragment's size, or a negative code (a shape that does not match, a missing
        key, a range beyond the value or the buffer fails its own entries). kvpool reads each value whole once, all
        in one get operation, with the wanted ranges scattered straight into their buffers (a key whose fragments
        overlap is read once per overlapping group)."""
        n = len(buffer_ptrs)
        if not n == len(all_keys) == len(all_dst_offsets) == len(all_src_offsets) == len(all_sizes):
            return [[[MooncakeError.INVALID_PARAMS] * len(f) for f in ks] if isinstance(ks, (list, tuple)) else []
                    for ks in all_sizes]
        results = [[[MooncakeError.INVALID_PARAMS] * len(fragments) for fragments in sizes] for sizes in all_sizes]
        reads: dict = {}  # key -> list of (source offset, size, destination view, (i, j, k))
        for i in range(n):
            keys, dsts, srcs, sizes = all_keys[i], all_dst_offsets[i], all_src_offsets[i], all_sizes[i]
            if not len(keys) == len(dsts) == len(srcs) == len(sizes):
                continue
            for j, key in enumerate(keys):
                if not len(dsts[j]) == len(srcs[j]) == len(sizes[j]):
                    continue
                for k, (dst, src, size) in enumerate(zip(dsts[j], srcs[j], sizes[j])):
                    try:
                        view = self._destination_range(buffer_ptrs[i], dst, size)
                        if not isinstance(src, int) or src < 0:
                            raise ValueError(f"source offset must be a non-negative integer, got {src!r}")
                    except (ValueError, TypeError) as e:
                        results[i][j][k] = self._failed(f"get_into_ranges of key {key!r}", e)
                        continue
                    reads.setdefault(key, []).append((src, view, (i, j, k)))
        keys, wanted, slots = [], [], []
        for key, fragments in reads.items():
            for g in group_fragments(fragments):
                keys.append(key)
                wanted.append([(src, view) for src, view, _ in g])
                slots.append([slot for _, _, slot in g])
        if keys:
            try:
                read = self._require()._read(keys, RangeReads(keys, wanted))
            except (KvPoolError, ValueError) as e:
                read = [e] * len(keys)
            for key, outcome, group_slots, group in zip(keys, read, slots, wanted):
                code = None if isinstance(outcome, int) else self._failed(f"get_into_ranges of key {key!r}", outcome)
                for (i, j, k), (_, view) in zip(group_slots, group):
                    results[i][j][k] = len(view) if code is None else code
        return results

    def _destination_range(self, buffer, offset: int, size: int) -> memoryview:
        """``size`` writable bytes at ``offset`` of an address (checked against its registered size, when registered)
        or of a buffer."""
        if not isinstance(offset, int) or not isinstance(size, int) or offset < 0 or size <= 0:
            raise ValueError(f"destination offset {offset!r} and size {size!r} must be integers, offset >= 0, size > 0")
        if isinstance(buffer, int):
            limit = self._registered.get(buffer)
            if limit is not None and offset + size > limit:
                raise ValueError(f"range [{offset}, {offset + size}) exceeds the {limit} bytes registered at {buffer:#x}")
            return address_view(buffer + offset, size, writable=True)
        view = byte_view(buffer, writable=True)
        if offset + size > len(view):
            raise ValueError(f"range [{offset}, {offset + size}) exceeds the buffer's {len(view)} bytes")
        return view[offset:offset + size]

    def get_size(self, key: str) -> int:
        """The value's size in bytes, or a negative error code."""
        try:
            return self._require()._lookup(key).size
        except (KvPoolError, ValueError) as e:
            return self._failed(f"get_size of key {key!r}", e)

    def get_replica_desc(self, key: str) -> list:
        """The :class:`ReplicaDescriptor` of each replica of ``key`` (memory replicas on storage nodes); an empty list
        when it is not stored or could not be looked up (logged)."""
        return self.batch_get_replica_desc([key]).get(key, [])

    def batch_get_replica_desc(self, keys: Sequence[str]) -> dict:
        """``{key: [ReplicaDescriptor, ...]}`` for the keys that are stored (one master round trip per 4096 keys,
        within one operation timeout); keys not stored or not looked up (logged) are absent. A lookup grants a read
        lease, as a get's does: a plain remove of these keys answers OBJECT_HAS_LEASE for the pool's lease TTL."""
        try:
            found = self._require()._lookups(list(keys))
        except (KvPoolError, ValueError) as e:
            self._failed("batch_get_replica_desc", e)
            return {}
        out = {}
        for key, r in zip(keys, found):
            if isinstance(r, BaseException):
                self._failed(f"batch_get_replica_desc of key {key!r}", r)
            else:
                out[key] = replica_descriptors(r)
        return out

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
        return mooncake_status(status)

    def remove(self, key: str, force: bool = False) -> int:
        """0 removed; OBJECT_NOT_FOUND; OBJECT_HAS_LEASE while it is being read or written. ``force``: waits for
        those reads (their lease) and writes to end, within the operation timeout, then removes it (kvpool never
        frees bytes a reader may still be reading); OBJECT_HAS_LEASE only when they outlast the deadline. A pinned
        object is removed either way (a pin only protects from eviction)."""
        return self.batch_remove([key], force)[0]

    def batch_remove(self, keys: Sequence[str], force: bool = False) -> list:
        """Per key, within one operation timeout: 0 removed, or a negative code (only that entry). ``force``: as
        :meth:`remove`."""
        try:
            statuses = self._require()._removed(list(keys), force)
        except (KvPoolError, ValueError) as e:
            return [self._failed("batch_remove", e)] * len(keys)
        return [self._status_code(f"batch_remove of key {k!r}", s) for k, s in zip(keys, statuses)]

    def remove_all(self, force: bool = False) -> int:
        """How many objects were removed (objects being read or written are kept), or -1 on error. ``force``: asks
        again until the pool is empty or the operation timeout passes (so also the objects whose reads or writes end
        meanwhile)."""
        try:
            return self._require().remove_all(force)
        except (KvPoolError, ValueError) as e:
            self._failed("remove_all", e)
            return -1

    def remove_by_regex(self, regex: str, force: bool = False) -> int:
        """How many objects whose keys contain a match of ``regex`` were removed (Mooncake: a search), or a negative
        code: INVALID_PARAMS for a pattern over 1024 bytes or one RE2 refuses (RE2 syntax: no backreferences or
        look-arounds; the master matches without backtracking), INVALID_VERSION for a pool of protocol 2.3 or older.
        Matching objects being read or written are kept, as :meth:`remove` keeps them; ``force``: asks again until
        none is kept or the operation timeout passes."""
        try:
            return self._require().remove_matching(regex, force).removed
        except (KvPoolError, ValueError) as e:
            return self._failed("remove_by_regex", e)


# the name Mooncake users import
MooncakeDistributedStore = KvPoolStore
