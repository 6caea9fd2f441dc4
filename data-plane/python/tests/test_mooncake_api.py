"""The Mooncake store calls that vLLM's MooncakeStoreConnector, SGLang's HiCache Mooncake backend and LMCache's
mooncakestore connector make (beyond put/get/batches, tested in test_roundtrip.py), byte for byte against a real
local pool: get_buffer / batch_get_buffer, put_parts, put_from_with_metadata, the upserts, the replica descriptors,
get_into_ranges, and remove(force=True)."""

import ctypes
import os
import time

import numpy
import pytest

from pool import wait_for

from kvpool.store import BufferHandle, KvPoolStore, MooncakeError, ReplicaStatus, ReplicateConfig


@pytest.fixture(scope="module")
def store(pool):
    s = KvPoolStore()
    assert s.setup("localhost", "P2PHANDSHAKE", 0, 0, "tcp", "", pool.master, pool_key=pool.key,
                   operation_timeout=30) == 0
    yield s
    s.close()


def test_get_buffer_reads_into_a_buffer_handle(store):
    value = os.urandom(300_001)
    assert store.put("mc/buffer", value) == 0
    handle = store.get_buffer("mc/buffer")
    assert isinstance(handle, BufferHandle) and bytes(handle) == value
    assert handle.size() == len(handle) == len(value)
    assert ctypes.string_at(handle.ptr(), 100) == value[:100]  # ptr() is the memory the value was read into
    assert numpy.frombuffer(handle, dtype=numpy.uint8)[-1] == value[-1]
    assert memoryview(handle)[5:9].tobytes() == value[5:9]
    assert store.get_buffer("mc/missing") is None
    assert store.put("mc/buffer-2", b"second") == 0
    got = store.batch_get_buffer(["mc/buffer", "mc/missing", "", "mc/buffer-2"])
    assert [None if g is None else bytes(g) for g in got] == [value, None, None, b"second"]


def test_put_parts_gathers_its_parts_as_one_value(store):
    assert store.put_parts("mc/parts", b"Hello, ", bytearray(b"World"), memoryview(b"!!")[:1]) == 0
    assert store.get("mc/parts") == b"Hello, World!"
    # LMCache's save_chunk_meta layout: 28 metadata bytes, then the KV bytes; read back with batch_get_buffer
    meta, kv = os.urandom(28), numpy.arange(4096, dtype=numpy.float32)
    assert store.put_parts("mc/lmcache-chunk", meta, kv.view(numpy.uint8)) == 0
    buffer = store.batch_get_buffer(["mc/lmcache-chunk"])[0]
    view = memoryview(buffer)
    assert view[:28].tobytes() == meta
    assert numpy.array_equal(numpy.frombuffer(buffer, dtype=numpy.float32, offset=28), kv)
    assert store.put_parts("mc/parts-2d", numpy.zeros((2, 2), dtype=numpy.uint8)) == MooncakeError.INVALID_PARAMS
    assert store.put_parts("mc/parts-none") == MooncakeError.INVALID_PARAMS
    assert store.put_parts("", b"x") == MooncakeError.INVALID_KEY


def test_put_from_with_metadata_stores_the_metadata_then_the_data(store):
    data = numpy.random.default_rng(1).standard_normal(1000).astype(numpy.float32)
    metadata = numpy.array([42, 100], dtype=numpy.int32)
    assert store.put_from_with_metadata("mc/with-meta", data.ctypes.data, metadata.ctypes.data, data.nbytes,
                                        metadata.nbytes, ReplicateConfig(replica_num=2)) == 0
    assert store.get("mc/with-meta") == metadata.tobytes() + data.tobytes()
    assert store.get_size("mc/with-meta") == metadata.nbytes + data.nbytes


def test_upserts_insert_or_replace(store):
    # (no key is read before its upsert: a read's lease would make the upsert wait it out, as remove(force) does)
    assert store.put("mc/up", b"old value") == 0
    assert store.put("mc/up", b"kept") == 0  # a put keeps a stored value...
    assert store.upsert("mc/up", b"new") == 0  # ...an upsert replaces it
    assert store.get("mc/up") == b"new"
    assert store.upsert("mc/up-fresh", bytearray(b"inserted")) == 0
    src = (ctypes.c_ubyte * 5000).from_buffer_copy(os.urandom(5000))
    assert store.put("mc/up-from", b"short") == 0
    assert store.upsert_from("mc/up-from", ctypes.addressof(src), 5000) == 0
    values = [os.urandom(100 + i) for i in range(4)]
    keys = [f"mc/up-batch/{i}" for i in range(4)]
    assert store.put(keys[0], b"before") == 0
    assert store.batch_upsert_from(keys + [""], values + [b"x"], [len(v) for v in values] + [1]) == \
        [0, 0, 0, 0, MooncakeError.INVALID_KEY]
    assert store.put_parts("mc/up-parts", b"old") == 0
    assert store.upsert_parts("mc/up-parts", b"a", b"bc") == 0
    assert store.put("mc/up-batch/5", b"five") == 0
    assert store.upsert_batch(["mc/up-batch/5", "mc/up-batch/6"], [b"one", b"two"]) == 0
    assert store.get_batch(keys + ["mc/up-fresh", "mc/up-from", "mc/up-parts", "mc/up-batch/5", "mc/up-batch/6"]) == \
        values + [b"inserted", bytes(src), b"abc", b"one", b"two"]


def test_replica_descriptors_name_each_replica(store, pool):
    value = os.urandom(70_000)
    assert store.put("mc/desc", value, ReplicateConfig(replica_num=2)) == 0
    # a put succeeds once one replica is written; on a pool whose nodes are still registering the master copies the
    # second one afterwards
    descs = wait_for(lambda: [d for d in [store.get_replica_desc("mc/desc")] if len(d) == 2], 60,
                     "the value's two replicas")[0]
    nodes = {p.rpc for p in pool.storage_nodes()}
    for d in descs:
        assert d.status == ReplicaStatus.COMPLETE and d.is_memory_replica()
        assert not d.is_disk_replica() and not d.is_local_disk_replica()
        buffer = d.get_memory_descriptor().buffer_descriptor
        assert buffer.size == len(value) and buffer.transport_endpoint in nodes
    assert len({d.get_memory_descriptor().buffer_descriptor.node_id for d in descs}) == 2
    assert store.get_replica_desc("mc/missing") == []
    by_key = store.batch_get_replica_desc(["mc/desc", "mc/missing", ""])
    assert list(by_key) == ["mc/desc"] and len(by_key["mc/desc"]) == 2


def test_get_into_ranges_scatters_fragments_of_several_keys_into_several_buffers(store):
    key1, key2 = bytes(range(40)), bytes(range(100, 140))
    assert store.put("mc/ranges/key1", key1) == 0 and store.put("mc/ranges/key2", key2) == 0
    buffer0, buffer1 = (ctypes.c_ubyte * 32)(), bytearray(32)
    ptr0 = ctypes.addressof(buffer0)
    assert store.register_buffer(ptr0, 32) == 0
    # Mooncake's documented example: buffer 0 gets key1[1:5] at 0, key1[30:33] at 20, key2[2:7] at 8;
    # buffer 1 (any writable buffer will do) gets key2[0:6] at 4 and key1[10:14] at 16
    results = store.get_into_ranges(
        [ptr0, buffer1],
        [["mc/ranges/key1", "mc/ranges/key2"], ["mc/ranges/key2", "mc/ranges/key1"]],
        [[[0, 20], [8]], [[4], [16]]],
        [[[1, 30], [2]], [[0], [10]]],
        [[[4, 3], [5]], [[6], [4]]])
    assert results == [[[4, 3], [5]], [[6], [4]]]
    b0 = bytes(buffer0)
    assert b0[0:4] == key1[1:5] and b0[20:23] == key1[30:33] and b0[8:13] == key2[2:7]
    assert buffer1[4:10] == key2[0:6] and buffer1[16:20] == key1[10:14]
    assert b0[4:8] == bytes(4) and buffer1[:4] == bytes(4)  # nothing outside the fragments is written
    # overlapping fragments of one key, a missing key, a range beyond the value, beyond the registered buffer,
    # and a key whose fragment lists do not match in length: each fails (or succeeds) on its own
    out = bytearray(64)
    results = store.get_into_ranges(
        [out, ptr0],
        [["mc/ranges/key1", "mc/ranges/missing", "mc/ranges/key2"], ["mc/ranges/key2", "mc/ranges/key1"]],
        [[[0, 10], [20], [30]], [[30], [0, 1]]],
        [[[0, 5], [0], [38]], [[0], [0]]],
        [[[10, 10], [4], [5]], [[4], [2]]])
    assert results == [[[10, 10], [MooncakeError.OBJECT_NOT_FOUND], [MooncakeError.INVALID_PARAMS]],
                       [[MooncakeError.INVALID_PARAMS], [MooncakeError.INVALID_PARAMS]]]
    assert out[0:10] == key1[0:10] and out[10:20] == key1[5:15]
    assert store.get_into_ranges([out], [["mc/ranges/key1"]], [[[0]]], [[[0]]], []) == []
    assert store.unregister_buffer(ptr0) == 0


def test_remove_with_force_waits_for_the_readers_lease(store):
    assert store.put("mc/forced", b"being read") == 0
    assert store.put("mc/forced-2", b"also read") == 0
    assert store.get_batch(["mc/forced", "mc/forced-2"]) == [b"being read", b"also read"]  # leases them
    assert store.remove("mc/forced") == MooncakeError.OBJECT_HAS_LEASE
    started = time.monotonic()
    assert store.remove("mc/forced", force=True) == 0
    assert store.batch_remove(["mc/forced-2", "mc/forced", ""], force=True) == \
        [0, MooncakeError.OBJECT_NOT_FOUND, MooncakeError.INVALID_KEY]
    assert time.monotonic() - started < 30, "within the operation timeout"
    assert store.batch_is_exist(["mc/forced", "mc/forced-2"]) == [0, 0]
