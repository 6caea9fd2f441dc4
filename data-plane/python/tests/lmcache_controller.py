"""What LMCache does around an L2 adapter, restated for tests that run without torch and LMCache: ``MemoryObj`` (what
an adapter reads of LMCache's, ``lmcache/v1/memory_management.py``: ``byte_array``, ``get_size()``), the ``plugin``
type's creation (``lmcache/v1/distributed/l2_adapters/plugin_l2_adapter.py``) and a controller's wait for a task
(poll the task kind's event fd, drain it, collect the result)."""

import importlib
import os
import select
import time

from kvpool.integrations.lmcache import Bitmap, KvPoolL2Adapter

WAIT = 120.0  # generous: a task's result on a healthy pool


class MemoryObj:
    """An L1 buffer LMCache hands to an L2 adapter: ``byte_array`` (a byte memoryview) and ``get_size()``."""

    def __init__(self, data: bytes = b"", size: int = 0):
        self._buffer = bytearray(data) if data else bytearray(size)
        self.byte_array = memoryview(self._buffer)

    def get_size(self) -> int:
        return len(self._buffer)

    def bytes(self) -> bytes:
        return bytes(self._buffer)


def create_from_config(config: dict) -> KvPoolL2Adapter:
    """LMCache's ``_create_plugin_adapter``: import the module, take the class, pass ``adapter_params`` (no
    ``KvPoolL2AdapterConfig`` class is defined, so the raw dict)."""
    assert config["type"] == "plugin"
    module = importlib.import_module(config["module_path"])
    assert not hasattr(module, config["class_name"] + "Config")
    return getattr(module, config["class_name"])(config.get("adapter_params", {}))


def wait_result(fd: int, query, what: str, timeout: float = WAIT):
    """A controller's wait: poll the task kind's event fd, drain it, ask for the result; until it is there."""
    poller = select.poll()
    poller.register(fd, select.POLLIN)
    deadline = time.monotonic() + timeout
    while True:
        result = query()
        if result is not None:
            return result
        left = deadline - time.monotonic()
        if left <= 0:
            raise AssertionError(f"no result for {what} within {timeout:.0f} s")
        if poller.poll(left * 1000):
            try:
                os.eventfd_read(fd)
            except BlockingIOError:  # another controller thread drained it first
                pass


def store(adapter, keys, objects, timeout: float = WAIT):
    task = adapter.submit_store_task(keys, objects)
    done: dict = {}

    def query():
        done.update(adapter.pop_completed_store_tasks())
        return done.pop(task, None)
    return wait_result(adapter.get_store_event_fd(), query, f"store task {task}", timeout)


def lookup(adapter, keys, timeout: float = WAIT) -> Bitmap:
    task = adapter.submit_lookup_and_lock_task(keys)
    return wait_result(adapter.get_lookup_and_lock_event_fd(), lambda: adapter.query_lookup_and_lock_result(task),
                       f"lookup task {task}", timeout)


def load(adapter, keys, objects, timeout: float = WAIT) -> Bitmap:
    task = adapter.submit_load_task(keys, objects)
    return wait_result(adapter.get_load_event_fd(), lambda: adapter.query_load_result(task), f"load task {task}",
                       timeout)
