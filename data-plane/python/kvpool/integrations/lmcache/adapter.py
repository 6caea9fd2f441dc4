"""``KvPoolL2Adapter``: LMCache's L2 adapter on a kvpool pool, loaded by LMCache's ``plugin`` L2-adapter type."""

from __future__ import annotations

import logging
import os
import threading
from concurrent.futures import ThreadPoolExecutor

from ...client import KvPoolClient
from ...config import ClientConfig
from ...errors import ErrorCode, KvPoolError, ObjectNotFound
from ...memory import Regions
from ..failure_log import FailureLog
from ..lazy_client import LazyClient
from .interface import Bitmap, KeyEntry, KeyListPage, L2AdapterInterface, L2StoreResult, encoded, wire_key
from .locks import HeldLocks
from .registry import KeyRegistry

LOG = logging.getLogger("kvpool.lmcache")

_POOL_FAILURES = (KvPoolError, OSError)


class _Completions:
    """Finished tasks of one kind, and the event fd that tells LMCache's controller about them."""

    def __init__(self):
        self.fd = os.eventfd(0, os.EFD_NONBLOCK | os.EFD_CLOEXEC)
        self._done: dict = {}
        self._lock = threading.Lock()

    def finish(self, task_id: int, result) -> None:
        with self._lock:
            self._done[task_id] = result
        os.eventfd_write(self.fd, 1)

    def pop(self, task_id: int):
        with self._lock:
            return self._done.pop(task_id, None)

    def pop_all(self) -> dict:
        with self._lock:
            done, self._done = self._done, {}
        return done

    def close(self) -> None:
        os.close(self.fd)


class KvPoolL2Adapter(L2AdapterInterface):
    """Selected in LMCache's configuration with ``{"type": "plugin", "module_path": "kvpool.integrations.lmcache",
    "class_name": "KvPoolL2Adapter", "adapter_params": {...}}``. ``adapter_params``: any :class:`kvpool.ClientConfig`
    field (``masters``, ``pool_key``, ``replicas``, ``operation_timeout``, ...; what is absent comes from the pool's
    client environment, ``KVPOOL_*``), ``key_prefix`` (a namespace for the keys) and ``num_workers`` (threads running
    the tasks, default 4).

    Each task runs as one batch call of the client on a worker thread (one deadline: a task against a pool that is
    down ends within the operation timeout, all its keys failed). Stores report per task (all stored or not, with
    the bytes stored); lookups and loads per key. A key stored already (by any LMCache instance: keys name content)
    is kept and counts as stored.

    Locks: a lookup takes the pool's **read lease** on every key it finds (GET_REPLICAS, one exchange per 4096 keys):
    while the lease lasts the master neither evicts nor removes the key, so the load that follows finds it. The adapter
    counts LMCache's locks (``locked_keys``, ``submit_unlock``) and renews the leases of locked keys every third of
    ``lease_ttl`` (set it to the pool's lease TTL, 5 s by default) until they are unlocked, for at most
    ``max_lock_seconds`` (default 300) after a key was last locked: a lock LMCache never releases does not pin a value
    for ever. A lease renewal that fails (the pool down) is logged; a load then may miss an evicted key (answered 0, a
    miss for LMCache). ``delete`` removes keys from the pool (one
    REMOVE per 4096 keys; a key another reader holds under its lease stays); ``list_l2_keys`` lists the keys this
    adapter stored or found that are still in the pool (a pool cannot enumerate its keys: at most
    ``max_listed_keys``, default 1,000,000, are remembered, oldest forgotten first)."""

    def __init__(self, adapter_params: dict | None = None, **_framework_args):
        super().__init__(max_capacity_bytes=0)  # kvpool evicts itself: no aggregate eviction by LMCache
        params = dict(adapter_params or {})
        self._prefix = str(params.pop("key_prefix", ""))
        workers = int(params.pop("num_workers", 4))
        max_hold = float(params.pop("max_lock_seconds", 300.0))
        self._registry = KeyRegistry(int(params.pop("max_listed_keys", 1_000_000)))
        if workers <= 0:
            raise ValueError(f"num_workers must be > 0, got {workers}")
        config = ClientConfig.from_env(**params)  # bad settings fail here, at configuration time, not in a task
        self._client = LazyClient(lambda: KvPoolClient(ClientConfig.from_env(**params)))
        self._executor = ThreadPoolExecutor(workers, thread_name_prefix="kvpool-l2")
        self._stores, self._lookups, self._loads = _Completions(), _Completions(), _Completions()
        self._lock = threading.Lock()
        self._next_task = 0
        self._locks = HeldLocks(self._renew_leases, config.lease_ttl / 3, max_hold)
        self._last_failure: BaseException | None = None
        self._failures = FailureLog(LOG)
        self._closed = False

    # ---- event fds ----

    def get_store_event_fd(self) -> int:
        return self._stores.fd

    def get_lookup_and_lock_event_fd(self) -> int:
        return self._lookups.fd

    def get_load_event_fd(self) -> int:
        return self._loads.fd

    # ---- tasks ----

    def _task_id(self) -> int:
        with self._lock:
            self._next_task += 1
            return self._next_task

    def _submit(self, completions: _Completions, work, failed, *args) -> int:
        """Runs ``work(*args)`` on a worker thread; ``failed`` is the task's result should it raise."""
        task_id = self._task_id()
        self._executor.submit(self._run, completions, task_id, work, failed, *args)
        return task_id

    def _run(self, completions: _Completions, task_id: int, work, failed, *args) -> None:
        try:
            result = work(*args)
        except Exception as e:  # noqa: BLE001 - a task must always complete, or LMCache waits for it forever
            LOG.exception("kvpool L2 task %d failed unexpectedly", task_id)
            self._last_failure = e
            result = failed
        completions.finish(task_id, result)

    def _keys(self, keys: list) -> list:
        return [wire_key(k, self._prefix) for k in keys]

    def _pool_failed(self, what: str, n: int, error: BaseException) -> None:
        self._last_failure = error
        self._failures.warning("kvpool L2 %s of %d keys failed: %s", what, n, error)

    def submit_store_task(self, keys: list, objects: list) -> int:
        if len(keys) != len(objects):
            raise ValueError(f"submit_store_task: {len(keys)} keys but {len(objects)} objects")
        return self._submit(self._stores, self._store, L2StoreResult(False, 0), list(keys), list(objects))

    def _store(self, keys: list, objects: list) -> L2StoreResult:
        if not keys:
            return L2StoreResult(True, 0)
        sizes = [obj.get_size() for obj in objects]
        try:
            results = self._client.get().put_batch(self._keys(keys),
                                                   [Regions.of_buffer(obj.byte_array) for obj in objects])
        except _POOL_FAILURES as e:
            self._pool_failed("store", len(keys), e)
            return L2StoreResult(False, 0)
        stored = [i for i, r in enumerate(results) if r is None]
        if len(stored) < len(keys):
            self._pool_failed("store", len(keys) - len(stored), next(r for r in results if r is not None))
        else:
            self._last_failure = None
        if stored:
            self._registry.add(self._keys([keys[i] for i in stored]), [keys[i] for i in stored],
                               [sizes[i] for i in stored])
            self._notify_keys_stored([keys[i] for i in stored], [sizes[i] for i in stored])
        return L2StoreResult(len(stored) == len(keys), sum(sizes[i] for i in stored))

    def pop_completed_store_tasks(self) -> dict:
        return self._stores.pop_all()

    def submit_lookup_and_lock_task(self, keys: list) -> int:
        return self._submit(self._lookups, self._lookup_and_lock, Bitmap(len(keys)), list(keys))

    def _lookup_and_lock(self, keys: list) -> Bitmap:
        bitmap = Bitmap(len(keys))
        if not keys:
            return bitmap
        wire = self._keys(keys)
        try:
            # a replica list, not EXISTS: the master grants a read lease with it, the lock that keeps the key
            lists = self._client.get()._lookups(wire)
        except _POOL_FAILURES as e:
            self._pool_failed("lookup", len(keys), e)
            return bitmap
        found = [not isinstance(r, BaseException) for r in lists]
        failures = [r for r in lists if isinstance(r, KvPoolError) and not isinstance(r, ObjectNotFound)]
        if failures:
            self._pool_failed("lookup", len(failures), failures[0])
        else:
            self._last_failure = None
        hits = [k for k, f in zip(keys, found) if f]
        self._registry.add([w for w, f in zip(wire, found) if f], hits, [r.size for r in lists if
                                                                         not isinstance(r, BaseException)])
        for i, f in enumerate(found):
            if f:
                bitmap.set(i)
        self._locks.lock(hits, [w for w, f in zip(wire, found) if f])
        if hits:
            self._notify_keys_accessed(hits)
        return bitmap

    def query_lookup_and_lock_result(self, task_id: int):
        return self._lookups.pop(task_id)

    def _renew_leases(self, wire: list) -> None:
        """Looks the locked keys up again, which extends their read leases (run by the locks' own thread)."""
        try:
            self._client.get()._lookups(wire)
        except _POOL_FAILURES as e:
            self._pool_failed("lock renewal", len(wire), e)
        except Exception as e:  # noqa: BLE001 - the renewal thread must outlive any failure
            LOG.exception("kvpool L2 lock renewal failed unexpectedly")
            self._last_failure = e

    def submit_unlock(self, keys: list) -> None:
        self._locks.unlock(keys)

    def submit_load_task(self, keys: list, objects: list) -> int:
        if len(keys) != len(objects):
            raise ValueError(f"submit_load_task: {len(keys)} keys but {len(objects)} objects")
        return self._submit(self._loads, self._load, Bitmap(len(keys)), list(keys), list(objects))

    def _load(self, keys: list, objects: list) -> Bitmap:
        bitmap = Bitmap(len(keys))
        if not keys:
            return bitmap
        try:
            results = self._client.get().get_batch_regions(
                self._keys(keys), [Regions.of_buffer(obj.byte_array, writable=True) for obj in objects])
        except _POOL_FAILURES as e:
            self._pool_failed("load", len(keys), e)
            return bitmap
        for i, (r, obj) in enumerate(zip(results, objects)):
            if r == obj.get_size():  # a value of another size (another layout) is a miss
                bitmap.set(i)
        failures = [r for r in results if isinstance(r, KvPoolError) and not isinstance(r, ObjectNotFound)]
        if failures:
            self._pool_failed("load", len(failures), failures[0])
        else:
            self._last_failure = None
        return bitmap

    def query_load_result(self, task_id: int):
        return self._loads.pop(task_id)

    # ---- delete, list ----

    def delete(self, keys: list) -> None:
        """Removes ``keys`` from the pool, within one operation timeout; listeners hear of the keys that are gone. A
        key being read (another reader's lease) or written stays; a pool failure is logged and leaves every key."""
        if not keys:
            return
        wire = self._keys(keys)
        try:
            statuses = self._client.get().remove_batch(wire)
        except _POOL_FAILURES as e:
            self._pool_failed("delete", len(keys), e)
            return
        gone = [i for i, s in enumerate(statuses) if s in (ErrorCode.OK, ErrorCode.NOT_FOUND)]
        kept = len(keys) - len(gone)
        if kept:
            LOG.info("kvpool L2 delete kept %d of %d keys being read or written", kept, len(keys))
        removed = [i for i in gone if statuses[i] == ErrorCode.OK]
        sizes = [self._registry.size_of(wire[i]) for i in removed]
        self._registry.drop([wire[i] for i in gone])
        self._locks.forget([keys[i] for i in gone])
        if removed:
            self._notify_keys_deleted([keys[i] for i in removed], sizes)

    def list_l2_keys(self, model_name: str | None = None, page_size: int = 500, cursor: str | None = None):
        """A page of the keys this adapter stored or found that the pool still holds (checked with one EXISTS per
        page, so a page may hold fewer than ``page_size``; keys found gone are forgotten). ``cursor``: the previous
        page's ``next_page_token``."""
        if page_size <= 0:
            raise ValueError(f"page_size must be > 0, got {page_size}")
        try:
            after = int(cursor) if cursor is not None else 0
        except ValueError:
            raise ValueError(f"malformed cursor {cursor!r}") from None
        entries, after = self._registry.page(model_name, page_size, after)
        if entries:
            try:
                present = self._client.get().exists_batch([wire for wire, _, _ in entries])
            except _POOL_FAILURES as e:
                self._pool_failed("list", len(entries), e)
                raise
            self._registry.drop([wire for (wire, _, _), p in zip(entries, present) if not p])
            entries = [e for e, p in zip(entries, present) if p]
        return KeyListPage(tuple(KeyEntry(encoded(key), size) for _, key, size in entries),
                           None if after is None else str(after))

    # ---- status, cleanup ----

    def locked_keys(self) -> int:
        return self._locks.count()

    def report_status(self) -> dict:
        return {"is_healthy": self._last_failure is None, "type": "KvPoolL2Adapter", "locked_keys": self.locked_keys(),
                "last_failure": repr(self._last_failure) if self._last_failure else None}

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._locks.close()
        self._executor.shutdown(wait=True)
        self._client.close()
        for completions in (self._stores, self._lookups, self._loads):
            completions.close()
