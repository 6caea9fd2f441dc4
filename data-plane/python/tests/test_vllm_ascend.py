"""Multi-buffer calls in the layer-wise shape vLLM-Ascend's KV pool uses (one key per KV block, one region per
layer), and the vLLM-Ascend backend driven the way AscendStoreConnector drives it."""

import ctypes
import importlib
import os
import random
import subprocess
import sys
import threading
import types

import pytest

from pool import REPO
from kvpool.integrations import vllm_ascend
from kvpool.integrations.vllm_ascend import AscendDeviceMemory, KvPoolBackend
from kvpool.store import KvPoolStore, MooncakeError

LAYERS = 12
BLOCKS = 48
BLOCK_BYTES = 16 << 10  # one block of one layer's KV cache


class KvCache:
    """Per layer one contiguous host buffer of BLOCKS blocks, like a worker's registered KV cache tensors."""

    def __init__(self, fill: bool):
        self.layers = [(ctypes.c_ubyte * (BLOCKS * BLOCK_BYTES))() for _ in range(LAYERS)]
        if fill:
            for layer in self.layers:
                ctypes.memmove(layer, os.urandom(len(layer)), len(layer))

    def ptrs(self):
        return [ctypes.addressof(layer) for layer in self.layers]

    def lengths(self):
        return [len(layer) for layer in self.layers]

    def block(self, block_id):
        """The addresses and sizes of one block in every layer: what the connector passes per key."""
        return [ctypes.addressof(layer) + block_id * BLOCK_BYTES for layer in self.layers], [BLOCK_BYTES] * LAYERS

    def block_bytes(self, block_id):
        return [bytes(memoryview(layer)[block_id * BLOCK_BYTES:(block_id + 1) * BLOCK_BYTES]) for layer in self.layers]


def _requests(prefix, cache, block_ids):
    keys, addrs, sizes = [], [], []
    for b in block_ids:
        a, s = cache.block(b)
        keys.append(f"{prefix}@{b}")
        addrs.append(a)
        sizes.append(s)
    return keys, addrs, sizes


@pytest.fixture
def store(pool):
    s = KvPoolStore()
    assert s.setup({"local_hostname": "worker-0", "metadata_server": "P2PHANDSHAKE", "master_server_addr": pool.master,
                    "replicas": 2, "pool_key": pool.key}) == 0
    yield s
    s.close()


def test_layerwise_multi_buffer_round_trip(store):
    src, dst = KvCache(fill=True), KvCache(fill=False)
    prefix = f"model@mb@{random.getrandbits(32)}"
    keys, addrs, sizes = _requests(prefix, src, range(BLOCKS))
    assert store.batch_put_from_multi_buffers(keys, addrs, sizes) == [0] * BLOCKS
    assert store.batch_is_exist(keys + [f"{prefix}@missing"]) == [1] * BLOCKS + [0]
    # load into other block slots of another cache, in another order (blocks are scattered in a real cache)
    targets = list(reversed(range(BLOCKS)))
    _, dst_addrs, dst_sizes = _requests(prefix, dst, targets)
    got = store.batch_get_into_multi_buffers(keys, dst_addrs, dst_sizes)
    assert got == [LAYERS * BLOCK_BYTES] * BLOCKS
    for source_block, target_block in zip(range(BLOCKS), targets):
        assert dst.block_bytes(target_block) == src.block_bytes(source_block)


def test_multi_buffer_get_refuses_regions_too_small(store):
    src = KvCache(fill=True)
    keys, addrs, sizes = _requests(f"model@small@{random.getrandbits(32)}", src, [0])
    assert store.batch_put_from_multi_buffers(keys, addrs, sizes) == [0]
    short = [[a for a in addrs[0][:-1]]]
    assert store.batch_get_into_multi_buffers(keys, short, [sizes[0][:-1]]) == [MooncakeError.INVALID_PARAMS]


class ParallelConfig:
    """Stand-in for vllm.config.ParallelConfig: the backend only keeps it."""
    tensor_parallel_size = 1
    pipeline_parallel_size = 1
    rank = 0


@pytest.fixture
def fake_vllm_ascend(monkeypatch):
    """The module vLLM-Ascend selects backends from, with its real map of built-in backends."""
    names = ["vllm_ascend", "vllm_ascend.distributed", "vllm_ascend.distributed.kv_transfer",
             "vllm_ascend.distributed.kv_transfer.kv_pool", "vllm_ascend.distributed.kv_transfer.kv_pool.ascend_store",
             vllm_ascend.BACKEND_MODULE]
    for name in names:
        monkeypatch.setitem(sys.modules, name, types.ModuleType(name))
    backends = sys.modules[vllm_ascend.BACKEND_MODULE]
    backends.backend_map = {"mooncake": {"name": "MooncakeBackend", "path": f"{vllm_ascend.BACKEND_MODULE}.mooncake"}}
    return backends


def _select_backend(backends, extra_config):
    """What pool_worker / pool_scheduler do with kv_connector_extra_config["backend"]."""
    entry = backends.backend_map.get(extra_config.get("backend", "mooncake").lower())
    if entry is None:
        raise ValueError(f"Unsupported KV pool backend: {extra_config['backend']}")
    return getattr(importlib.import_module(entry["path"]), entry["name"])


def test_backend_driven_like_the_connector(pool, fake_vllm_ascend, monkeypatch):
    monkeypatch.setenv("KVPOOL_MASTER_ADDRESS", pool.master)
    monkeypatch.setenv("KVPOOL_CLIENT_KEY_FILE", pool.key_file)  # the pool's Secret mounted into the pod
    monkeypatch.setenv("KVPOOL_OBJECT_REPLICAS", "2")
    vllm_ascend.register()  # what vLLM's general-plugin loading does in every process
    backend_class = _select_backend(fake_vllm_ascend, {"backend": "kvpool"})
    assert backend_class is KvPoolBackend

    scheduler = backend_class.create_scheduler_client(ParallelConfig())
    worker = backend_class(ParallelConfig(), lazy_init=False)
    src = KvCache(fill=True)
    worker.register_buffer(src.ptrs(), src.lengths())
    prefix = f"Qwen@{random.getrandbits(32)}@0"
    keys, addrs, sizes = _requests(prefix, src, range(BLOCKS))

    # the scheduler's lookup before anything is stored: every key missing
    assert scheduler.exists(keys) == [0] * BLOCKS

    # the send thread saves blocks in several calls, as requests finish their chunks
    def send_thread():
        worker.set_device()
        for start in range(0, BLOCKS, 16):
            worker.put(keys[start:start + 16], addrs[start:start + 16], sizes[start:start + 16])

    sender = threading.Thread(target=send_thread)
    sender.start()
    sender.join(120)
    assert not sender.is_alive()
    assert scheduler.exists(keys) == [1] * BLOCKS

    # the receive thread loads them into another worker's cache (a decode instance)
    dst = KvCache(fill=False)
    loader = backend_class(ParallelConfig())
    loader.register_buffer(dst.ptrs(), dst.lengths())
    _, dst_addrs, dst_sizes = _requests(prefix, dst, range(BLOCKS))
    results = {}

    def recv_thread():
        loader.set_device()
        results["get"] = loader.get(keys, dst_addrs, dst_sizes)

    receiver = threading.Thread(target=recv_thread)
    receiver.start()
    receiver.join(120)
    assert results["get"] == [0] * BLOCKS
    for b in range(BLOCKS):
        assert dst.block_bytes(b) == src.block_bytes(b)

    # a missing block is reported per key (the connector records it as an invalid block)
    partly = loader.get([keys[0], f"{prefix}@gone"], dst_addrs[:2], dst_sizes[:2])
    assert partly[0] == 0 and partly[1] == MooncakeError.OBJECT_NOT_FOUND


@pytest.fixture(scope="module")
def ascend_standin(tmp_path_factory):
    """The test-only libascendcl.so stand-in of native/ (host memory behind AscendCL's names and checks)."""
    build = tmp_path_factory.mktemp("standin")
    subprocess.run(["make", "-s", "-C", str(REPO / "native"), "standin", f"BUILD_DIR={build}"], check=True,
                   timeout=120)
    lib = ctypes.CDLL(str(build / "test" / "libascendcl.so"))
    assert lib.aclInit(None) in (0, 100002)
    return lib, str(build / "test" / "libascendcl.so")


def test_backend_stages_npu_memory_through_aclrtMemcpy(pool, ascend_standin):
    lib, path = ascend_standin
    context = ctypes.c_void_p()
    assert lib.aclrtCreateContext(ctypes.byref(context), 0) == 0  # the transfer thread's current context
    lib.aclrtMalloc.argtypes = (ctypes.POINTER(ctypes.c_void_p), ctypes.c_size_t, ctypes.c_int)
    lib.aclrtMemcpy.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int)
    layers, block, blocks = 4, 8192, 6
    device = []
    host_copy = []
    for _ in range(layers):
        ptr = ctypes.c_void_p()
        assert lib.aclrtMalloc(ctypes.byref(ptr), block * blocks, 0) == 0
        data = (ctypes.c_ubyte * (block * blocks)).from_buffer_copy(os.urandom(block * blocks))
        assert lib.aclrtMemcpy(ptr, block * blocks, ctypes.addressof(data), block * blocks, 1) == 0
        device.append(ptr.value)
        host_copy.append(bytes(data))

    store = KvPoolStore()
    assert store.setup(None, master_server_addr=pool.master, pool_key=pool.key) == 0
    backend = KvPoolBackend(ParallelConfig(), memory="ascend", store=store, device_memory=AscendDeviceMemory(path))
    keys = [f"npu@{random.getrandbits(32)}@{b}" for b in range(blocks)]
    addrs = [[device[layer] + b * block for layer in range(layers)] for b in range(blocks)]
    sizes = [[block] * layers for _ in range(blocks)]
    backend.put(keys, addrs, sizes)
    assert backend.exists(keys) == [1] * blocks
    # load into fresh device memory, blocks reversed
    target = []
    for _ in range(layers):
        ptr = ctypes.c_void_p()
        assert lib.aclrtMalloc(ctypes.byref(ptr), block * blocks, 0) == 0
        target.append(ptr.value)
    dst_addrs = [[target[layer] + (blocks - 1 - b) * block for layer in range(layers)] for b in range(blocks)]
    assert backend.get(keys, dst_addrs, sizes) == [0] * blocks
    for layer in range(layers):
        out = (ctypes.c_ubyte * (block * blocks))()
        assert lib.aclrtMemcpy(ctypes.addressof(out), block * blocks, target[layer], block * blocks, 2) == 0
        for b in range(blocks):
            expected = host_copy[layer][b * block:(b + 1) * block]
            assert bytes(out)[(blocks - 1 - b) * block:(blocks - b) * block] == expected
    # a host address handed to the device path is refused by the runtime: the call reports failure (None)
    host = (ctypes.c_ubyte * block)()
    assert backend.get(keys[:1], [[ctypes.addressof(host)] * layers], [sizes[0]]) is None
    store.close()
