"""The Mooncake store calls of vLLM's MooncakeStoreConnector, SGLang's HiCache Mooncake backend and LMCache's
mooncakestore connector, made as each engine makes them (argument order, positional settings, what it checks in the
answers), through ``from mooncake.store import ...`` resolved by examples/mooncake-store-shim, against a real local
pool, byte for byte. Restated from the engines' sources at the commits the README names (the engines themselves need
torch and, for vLLM and SGLang, a GPU build): numpy arrays stand in for their KV caches."""

import importlib
import os
import sys
from pathlib import Path

import numpy
import pytest

SHIM = Path(__file__).resolve().parents[1] / "examples" / "mooncake-store-shim"


@pytest.fixture
def mooncake_store(pool, monkeypatch):
    """``mooncake.store`` through the shim; the engines take the pool's key from the environment (KVPOOL_CLIENT_KEY_FILE,
    as a pod with the pool's Secret mounted would)."""
    monkeypatch.setenv("KVPOOL_CLIENT_KEY_FILE", pool.key_file)
    monkeypatch.syspath_prepend(str(SHIM))
    for name in [n for n in sys.modules if n == "mooncake" or n.startswith("mooncake.")]:
        monkeypatch.delitem(sys.modules, name)
    module = importlib.import_module("mooncake.store")
    assert Path(module.__file__).resolve().is_relative_to(SHIM)
    yield module
    for name in [n for n in sys.modules if n == "mooncake" or n.startswith("mooncake.")]:
        del sys.modules[name]


class KvCache:
    """A K/V-first cache layout (FlashAttention's (2, num_blocks, ...)): one segment per K and V, ``block_len``
    bytes per block in each."""

    def __init__(self, blocks: int, block_len: int, seed: int | None = None):
        rng = numpy.random.default_rng(seed)
        self.array = rng.integers(0, 256, size=(2, blocks, block_len), dtype=numpy.uint8) if seed is not None \
            else numpy.zeros((2, blocks, block_len), dtype=numpy.uint8)
        self.block_len = block_len
        self.base = self.array.ctypes.data

    def addrs(self, block: int) -> list:
        segment = self.array.shape[1] * self.block_len
        return [self.base + s * segment + block * self.block_len for s in range(2)]

    def block(self, block: int) -> bytes:
        return self.array[:, block, :].tobytes()


def test_vllm_mooncake_store_connector(pool, mooncake_store):
    """vllm/distributed/kv_transfer/kv_connector/v1/mooncake/store/worker.py: MooncakeStoreWorker.__init__,
    register_kv_caches, KVCacheStoreSendingThread._handle_request, KVCacheStoreRecvingThread._handle_request and
    _get_replica_tiers_by_key."""
    MooncakeDistributedStore, ReplicateConfig = mooncake_store.MooncakeDistributedStore, mooncake_store.ReplicateConfig
    store = MooncakeDistributedStore()
    assert store.setup("10.0.0.7", "P2PHANDSHAKE", 0, 1 << 30, "tcp", "", pool.master) == 0
    replicate_config = ReplicateConfig()
    replicate_config.preferred_segment = "10.0.0.7:0"  # accepted, ignored: kvpool's master places replicas
    producer, consumer = KvCache(16, 8192, seed=1), KvCache(16, 8192)
    for cache in (producer, consumer):
        assert store.register_buffer(cache.base, cache.array.nbytes) == 0
    keys = [f"vllm-model@tp_rank:0@pcp0@dcp0@pp_rank:0@g0@{h:064x}" for h in range(4)]
    # send: only the blocks the store lacks are put, each gathered from its K and V segments
    assert store.batch_is_exist(keys[:1]) == [0]
    assert store.batch_put_from_multi_buffers(keys[:1], [producer.addrs(0)], [[8192, 8192]], replicate_config) == [0]
    exists = store.batch_is_exist(keys)
    missing = [i for i, e in enumerate(exists) if e != 1]
    assert missing == [1, 2, 3]
    res = store.batch_put_from_multi_buffers([keys[i] for i in missing], [producer.addrs(i) for i in missing],
                                             [[8192, 8192]] * len(missing), replicate_config)
    assert [i for i, v in enumerate(res) if v < 0] == []
    # receive into other blocks, with the tier log's replica lookup first
    descs = store.batch_get_replica_desc(keys)
    assert all(descs.get(k) and descs[k][0].is_memory_replica() for k in keys)
    res = store.batch_get_into_multi_buffers(keys, [consumer.addrs(8 + i) for i in range(4)], [[8192, 8192]] * 4)
    assert res == [16384] * 4
    assert [consumer.block(8 + i) for i in range(4)] == [producer.block(i) for i in range(4)]
    # a block not stored is a load error of that block only
    res = store.batch_get_into_multi_buffers([keys[0], "vllm-model@missing"], [consumer.addrs(0), consumer.addrs(1)],
                                             [[8192, 8192]] * 2)
    assert res[0] == 16384 and res[1] < 0
    store.close()


def test_sglang_hicache_mooncake_store(pool, mooncake_store):
    """python/sglang/srt/mem_cache/storage/mooncake_store/mooncake_store.py: MooncakeStore.__init__ (setup with the
    transfer engine and the newer keywords), warmup, batch_set_v1 / batch_get_v1 (MHA: a _k and a _v object per
    page), the multi-buffer paths and the group_ids probe."""
    MooncakeDistributedStore, ReplicateConfig = mooncake_store.MooncakeDistributedStore, mooncake_store.ReplicateConfig
    assert not hasattr(ReplicateConfig, "group_ids")  # SGLang then uses plain batch_put_from
    store = MooncakeDistributedStore()
    ret_code = store.setup("localhost", "P2PHANDSHAKE", 4 << 30, 16 << 20, "tcp", "", pool.master, None,
                           enable_client_http_server=True, client_http_port=9300, enable_ssd_offload=True,
                           ssd_offload_path="/mnt/ssd", tenant_id="team-a")
    assert not ret_code
    warmup_key, warmup_value = "sglang_mooncake_store_warmup_key" + os.urandom(8).hex(), bytes(4 * 1024)
    assert store.put(warmup_key, warmup_value) == 0
    assert store.is_exist(warmup_key) == 1
    assert store.get(warmup_key) == warmup_value
    host = KvCache(8, 4096, seed=2)
    assert store.register_buffer(host.base, host.array.nbytes) == 0
    pages = [f"{os.urandom(16).hex()}" for _ in range(3)]
    key_strs = [f"{page}_0_{kv}" for page in pages for kv in ("k", "v")]
    ptrs = [a for i in range(3) for a in host.addrs(i)]
    exist_result = store.batch_is_exist(key_strs)
    set_indices = [i for i in range(len(key_strs)) if exist_result[i] != 1]
    put_results = store.batch_put_from([key_strs[i] for i in set_indices], [ptrs[i] for i in set_indices],
                                       [4096] * len(set_indices))
    assert put_results == [0] * len(key_strs)
    target = KvCache(8, 4096)
    get_results = store.batch_get_into(key_strs, [a for i in range(3) for a in target.addrs(4 + i)], [4096] * 6)
    assert all(r > 0 for r in get_results)
    assert [target.block(4 + i) for i in range(3)] == [host.block(i) for i in range(3)]
    # MLA layer-first: one object per page gathered from one buffer per layer
    layers = [numpy.random.default_rng(10 + layer).integers(0, 256, 2048, dtype=numpy.uint8) for layer in range(3)]
    mla_key = f"{pages[0]}__k"
    assert store.batch_put_from_multi_buffers([mla_key], [[a.ctypes.data for a in layers]], [[2048] * 3],
                                              ReplicateConfig()) == [0]
    back = [numpy.zeros(2048, dtype=numpy.uint8) for _ in layers]
    assert store.batch_get_into_multi_buffers([mla_key], [[a.ctypes.data for a in back]], [[2048] * 3]) == [6144]
    assert all(numpy.array_equal(a, b) for a, b in zip(layers, back))
    store.close()


def test_lmcache_mooncakestore_connector(pool, mooncake_store):
    """lmcache/v1/storage_backend/connector/mooncakestore_connector.py: MooncakestoreConnector.__init__,
    _register_cpu_buffer, put (put_from without chunk metadata, put_parts with it), _batch_get_into, _batch_get_buffer
    and _process_buffer_with_metadata, exists_sync, close."""
    MooncakeDistributedStore, ReplicateConfig = mooncake_store.MooncakeDistributedStore, mooncake_store.ReplicateConfig
    store = MooncakeDistributedStore()
    store.setup("localhost", "P2PHANDSHAKE", 3355443200, 1073741824, "tcp", "", pool.master)  # LMCache ignores the code
    replica_config = ReplicateConfig()
    replica_config.replica_num = 1
    replica_config.preferred_segment = store.get_hostname()
    pinned = numpy.zeros(1 << 20, dtype=numpy.uint8)  # the pinned CPU buffer chunks are allocated from
    assert store.register_buffer(pinned.ctypes.data, pinned.size) == 0
    chunk = numpy.random.default_rng(3).standard_normal(4096).astype(numpy.float16)
    # save_chunk_meta = False: put_from of the chunk's tensor, batch_get_into buffers of the known shape
    assert store.put_from("vllm@model@1@0@aa11", chunk.ctypes.data, chunk.nbytes, replica_config) == 0
    assert store.is_exist("vllm@model@1@0@aa11")
    into = numpy.zeros_like(chunk)
    bytes_read_list = store.batch_get_into(["vllm@model@1@0@aa11", "vllm@model@1@0@bb22"], [into.ctypes.data] * 2,
                                           [into.nbytes] * 2)
    assert bytes_read_list[0] == chunk.nbytes and bytes_read_list[1] <= 0
    assert numpy.array_equal(into, chunk)
    # save_chunk_meta = True: put_parts(metadata, kv bytes), batch_get_buffer, the first 28 bytes are the metadata
    metadata_bytes = os.urandom(28)
    assert store.put_parts("vllm@model@1@0@cc33", metadata_bytes, chunk.tobytes()) == 0
    buffers = store.batch_get_buffer(["vllm@model@1@0@cc33", "vllm@model@1@0@bb22"])
    assert buffers[1] is None
    retrieved_view = memoryview(buffers[0])
    assert retrieved_view[:28].tobytes() == metadata_bytes and len(retrieved_view) == chunk.nbytes + 28
    restored = numpy.frombuffer(buffers[0], dtype=numpy.float16, offset=28, count=chunk.size)
    assert numpy.array_equal(restored, chunk)
    assert store.unregister_buffer(pinned.ctypes.data) == 0
    store.close()
