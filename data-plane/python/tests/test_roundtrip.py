"""Values of 1 B to 16 MiB through the client and the Mooncake-compatible store, byte for byte."""

import ctypes
import os
import random

import pytest

from kvpool import BufferTooSmall, ObjectNotFound, Regions
from kvpool.store import KvPoolStore, MooncakeError, ReplicateConfig

SIZES = [1, 2, 7, 100, 4095, 4096, 4097, 65536, 262144 + 3, 1 << 20, (4 << 20) + 1, 16 << 20]


@pytest.mark.parametrize("size", SIZES)
def test_put_get_round_trip(client, size):
    key = f"rt/{size}/{random.getrandbits(32)}"
    value = os.urandom(size)
    assert client.put(key, value) is True
    assert client.put(key, b"something else") is False  # the stored value is kept
    assert bytes(client.get(key)) == value
    into = bytearray(size + 10)
    assert client.get_into(key, into) == size
    assert bytes(into[:size]) == value
    assert client.exists(key)


def test_get_into_too_small_buffer_writes_nothing(client):
    client.put("rt/small-buffer", b"x" * 100)
    target = bytearray(b"\0" * 99)
    with pytest.raises(BufferTooSmall):
        client.get_into("rt/small-buffer", target)
    assert target == bytearray(99)


def test_missing_key(client):
    with pytest.raises(ObjectNotFound):
        client.get("rt/never-stored")
    assert not client.exists("rt/never-stored")
    assert client.remove("rt/never-stored") is False


def test_invalid_keys_and_values_are_refused_locally(client):
    with pytest.raises(ValueError):
        client.put("", b"x")
    with pytest.raises(ValueError):
        client.put("k" * 4097, b"x")
    with pytest.raises(ValueError):
        client.put("rt/empty", b"")


def test_zero_copy_from_numpy_and_memoryview(client):
    np = pytest.importorskip("numpy")
    array = np.arange(1 << 18, dtype=np.float32)
    assert client.put("rt/numpy", array)
    back = np.empty_like(array)
    assert client.get_into("rt/numpy", back) == array.nbytes
    assert (back == array).all()


def test_gather_and_scatter_regions(client):
    parts = [os.urandom(n) for n in (1, 4096, 70000, 3)]
    client.put_regions("rt/regions", Regions([memoryview(p) for p in parts]))
    targets = [bytearray(n) for n in (5000, 5000, 70000)]
    n = client.get_regions("rt/regions", Regions([memoryview(t) for t in targets]))
    assert n == sum(map(len, parts))
    assert b"".join(targets)[:n] == b"".join(parts)


def test_remove_and_stats(client):
    client.put("rt/removed", b"bye")
    assert client.remove_batch(["rt/removed"])[0].name in ("OK", "OBJECT_LEASED")
    stats = client.stats()
    assert stats.alive_nodes == 3 and stats.capacity == 3 * (256 << 20)


@pytest.fixture
def store(pool):
    s = KvPoolStore()
    assert s.setup("localhost", "P2PHANDSHAKE", 0, 0, "tcp", "", pool.master, pool_key=pool.key) == 0
    yield s
    s.close()


def test_store_mooncake_conventions(store):
    assert store.put("st/a", b"alpha") == 0
    assert store.put("st/a", b"other") == 0  # Mooncake treats an existing key as success
    assert store.get("st/a") == b"alpha"
    assert store.get("st/missing") == b""
    assert store.is_exist("st/a") == 1 and store.is_exist("st/missing") == 0
    assert store.batch_is_exist(["st/a", "st/missing"]) == [1, 0]
    assert store.get_size("st/a") == 5 and store.get_size("st/missing") == MooncakeError.OBJECT_NOT_FOUND
    assert store.put_batch(["st/b", "st/c"], [b"bee", bytearray(b"sea")]) == 0
    assert store.get_batch(["st/b", "st/c", "st/missing"]) == [b"bee", b"sea", b""]
    assert store.remove("st/missing") == MooncakeError.OBJECT_NOT_FOUND
    assert store.put("", b"x") == MooncakeError.INVALID_KEY
    assert store.health_check() == 0


def test_store_put_from_get_into_raw_addresses_and_buffers(store):
    size = 300_000
    src = (ctypes.c_ubyte * size).from_buffer_copy(os.urandom(size))
    assert store.register_buffer(ctypes.addressof(src), size) == 0
    assert store.put_from("st/raw", ctypes.addressof(src), size, ReplicateConfig(replica_num=2)) == 0
    dst = (ctypes.c_ubyte * size)()
    assert store.get_into("st/raw", ctypes.addressof(dst), size) == size
    assert bytes(dst) == bytes(src)
    assert store.get_into("st/raw", ctypes.addressof(dst), size - 1) == MooncakeError.INVALID_PARAMS
    assert store.get_into("st/missing", ctypes.addressof(dst), size) == MooncakeError.OBJECT_NOT_FOUND
    # any buffer-protocol object works in place of an address
    buf = bytearray(size)
    assert store.get_into("st/raw", buf, size) == size and bytes(buf) == bytes(src)
    assert store.put_from("st/from-buffer", memoryview(buf)[:1000], 1000) == 0
    assert store.get("st/from-buffer") == bytes(src)[:1000]
    assert store.unregister_buffer(ctypes.addressof(src)) == 0


def test_store_batch_put_from_and_get_into(store):
    n, size = 20, 50_000
    srcs = [(ctypes.c_ubyte * size).from_buffer_copy(os.urandom(size)) for _ in range(n)]
    keys = [f"st/batch/{i}" for i in range(n)]
    assert store.batch_put_from(keys, [ctypes.addressof(s) for s in srcs], [size] * n) == [0] * n
    dsts = [(ctypes.c_ubyte * size)() for _ in range(n)]
    got = store.batch_get_into(keys + ["st/missing"], [ctypes.addressof(d) for d in dsts] + [ctypes.addressof(dsts[0])],
                               [size] * (n + 1))
    assert got == [size] * n + [MooncakeError.OBJECT_NOT_FOUND]
    assert all(bytes(d) == bytes(s) for d, s in zip(dsts, srcs))


def test_store_batches_fail_only_the_entry_of_an_invalid_key_or_buffer(store):
    too_long = "k" * 4097
    assert store.put("st/valid", b"valid") == 0
    assert store.batch_is_exist(["st/valid", "", "st/missing", too_long]) == \
        [1, MooncakeError.INVALID_KEY, 0, MooncakeError.INVALID_KEY]
    assert store.batch_remove(["", "st/missing"]) == [MooncakeError.INVALID_KEY, MooncakeError.OBJECT_NOT_FOUND]
    assert store.get_batch(["st/valid", "", "st/missing"]) == [b"valid", b"", b""]
    src = bytearray(b"abc")
    assert store.batch_put_from(["st/pf-ok", "", "st/pf-short"], [src, src, src], [3, 3, 4]) == \
        [0, MooncakeError.INVALID_KEY, MooncakeError.INVALID_PARAMS]
    assert store.put_batch(["st/pb-ok", too_long], [b"x", b"y"]) == MooncakeError.INVALID_KEY
    assert store.get("st/pb-ok") == b"x"
    small, fits, other = bytearray(2), bytearray(5), bytearray(3)
    assert store.batch_get_into(["st/valid", "", "st/valid", "st/pf-ok"], [small, fits, fits, other], [2, 5, 5, 3]) == \
        [MooncakeError.INVALID_PARAMS, MooncakeError.INVALID_KEY, 5, 3]
    assert bytes(fits) == b"valid" and bytes(other) == b"abc" and small == bytearray(2)


def test_store_setup_accepts_mooncake_keywords_it_does_not_support_and_logs_them_once(pool, caplog, monkeypatch):
    import kvpool.store as store_module
    monkeypatch.setattr(store_module, "_reported", set())  # "once" is per process: start from none reported
    caplog.set_level("WARNING", logger="kvpool.store")
    newer = {"enable_ssd_offload": True, "ssd_offload_path": "/mnt/nvme/offload", "tenant_id": "team-a",
             "enable_client_http_server": False}
    for _ in range(2):
        s = KvPoolStore()
        assert s.setup("localhost", "P2PHANDSHAKE", 0, 0, "tcp", "", pool.master, pool_key=pool.key, **newer) == 0
        assert s.put("st/newer-setup", b"ok") == 0 and s.get("st/newer-setup") == b"ok"
        s.close()
    s = KvPoolStore()
    assert s.setup({"local_hostname": "worker-0", "master_server_addr": pool.master, "pool_key": pool.key,
                    "tenant_id": "team-b",
                    "some_future_setting": 1, "operation_timeout": 20}) == 0
    assert s.client.config.operation_timeout == 20
    s.close()
    reports = [r.getMessage() for r in caplog.records if "ignoring settings" in r.getMessage()]
    assert len(reports) == 2, reports  # the four newer keywords once, then only the one not seen before
    assert all(name in reports[0] for name in newer), reports
    assert "some_future_setting" in reports[1] and "tenant_id" not in reports[1], reports


def test_a_batch_interrupted_while_its_replies_come_in_closes_the_connections_it_left_unread(client, monkeypatch):
    """A batch sends every node its reads before it takes in any reply. An exception that is not the client's own (an
    interrupt) while the first node's reply is taken in leaves every node's reply unread: those connections are closed,
    never handed to the next call with a stale reply in them, and the next batch reads every value right."""
    import kvpool.connection
    from kvpool.messages import Opcode

    keys = [f"rt/interrupted/{i}" for i in range(24)]
    values = [os.urandom(4096) for _ in keys]
    assert client.put_batch(keys, [Regions.of_buffer(v) for v in values]) == [None] * len(keys)
    assert [bytes(v) for v in client.get_batch(keys)] == values  # replica lists held, connections open

    asked = []
    real_send = kvpool.connection.Connection.send

    def recorded(self, opcode, body, payload=()):
        if opcode in (Opcode.READ, Opcode.READ_BATCH):
            asked.append(self)
        return real_send(self, opcode, body, payload)

    def interrupted(self, opcode, request_id):
        raise KeyboardInterrupt

    monkeypatch.setattr(kvpool.connection.Connection, "send", recorded)
    monkeypatch.setattr(kvpool.connection.Connection, "receive", interrupted)
    with pytest.raises(KeyboardInterrupt):
        client.get_batch(keys)
    monkeypatch.undo()
    assert len(set(map(id, asked))) > 1, "the batch should have asked more than one node"
    assert all(c.sock.fileno() == -1 for c in asked), "a connection with an unread reply was kept"
    assert [bytes(v) for v in client.get_batch(keys)] == values
