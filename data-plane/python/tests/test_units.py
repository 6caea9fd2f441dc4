"""Pieces without a pool: CRC32C (wheel and pure fallback), strict body decoding, endpoints, configuration, the memory
of failed nodes."""

import os
import random
import socket
import struct

import pytest

from kvpool import checksum
from kvpool.codec import BodyReader, BodyWriter
from kvpool.config import ClientConfig, parse_duration
from kvpool.connection import (LOCAL_SEND_BUFFER_BYTES, RECEIVE_BUFFER_BYTES, Endpoint, is_local_peer,
                               send_buffer_bytes)
from kvpool.errors import ErrorCode, ProtocolError
from kvpool.memory import Regions
from kvpool.pools import FailedNodes
from kvpool.messages import (decode_replica_list_reply, decode_status_list, decode_write_batch_reply,
                             decode_write_reply)


def _bytewise(data, value=0):
    return checksum._update_bytewise(value ^ 0xFFFFFFFF, data) ^ 0xFFFFFFFF


def test_crc32c_check_value():
    assert checksum.crc32c(b"123456789") == 0xE3069283
    assert checksum._pure_crc32c(b"123456789") == 0xE3069283


@pytest.mark.parametrize("size", [0, 1, 255, 4095, 4096, 4097, 65537, 300_001, (1 << 20) + 3, (3 << 20) + 255])
def test_pure_crc32c_matches_the_definition(size):
    data = random.Random(size).randbytes(size)
    expected = _bytewise(data)
    assert checksum._pure_crc32c(data) == expected
    assert checksum.crc32c(data) == expected
    cut = size // 3
    assert checksum._pure_crc32c(data[cut:], checksum._pure_crc32c(data[:cut])) == expected
    assert checksum.crc32c_of_regions([data[:cut], memoryview(data)[cut:]]) == expected


def test_reader_refuses_truncation_trailing_bytes_and_forged_counts():
    with pytest.raises(ProtocolError, match="truncated"):
        BodyReader(b"\x00").u16()
    r = BodyReader(b"\x00\x01\x02")
    r.u16()
    with pytest.raises(ProtocolError, match="trailing"):
        r.finish()
    with pytest.raises(ProtocolError, match="cannot fit"):
        decode_status_list(BodyReader(struct.pack(">i", 4000) + b"\0\0"))
    with pytest.raises(ProtocolError, match="outside"):
        decode_status_list(BodyReader(struct.pack(">i", -1)))
    with pytest.raises(ProtocolError, match="outside"):
        decode_replica_list_reply(BodyReader(struct.pack(">i", 1_000_000)))
    with pytest.raises(ProtocolError, match="UTF-8"):
        BodyReader(b"\x00\x02\xff\xfe").string(10, "text")
    with pytest.raises(ProtocolError, match="error code"):
        decode_status_list(BodyReader(struct.pack(">iH", 1, 999)))


RECEIPT = bytes(range(16))


def test_write_replies_carry_the_commit_flag_from_protocol_2_2():
    v21 = bytes(BodyWriter().bytes(RECEIPT).buf)
    v22 = bytes(BodyWriter().bytes(RECEIPT).bool(True).buf)
    assert decode_write_reply(BodyReader(v21), 1) == (RECEIPT, False)
    assert decode_write_reply(BodyReader(v22), 2) == (RECEIPT, True)
    assert decode_write_reply(BodyReader(bytes(BodyWriter().bytes(b"").bool(False).buf)), 2) == (b"", False)
    assert decode_write_reply(BodyReader(v22), 3) == (RECEIPT, True)  # a newer minor agreed: still the flag
    with pytest.raises(ProtocolError, match="trailing"):
        decode_write_reply(BodyReader(v22), 1)  # a 2.1 reply has no flag
    with pytest.raises(ProtocolError, match="truncated"):
        decode_write_reply(BodyReader(v21), 2)  # a 2.2 reply must have it
    with pytest.raises(ProtocolError, match="trailing"):
        decode_write_reply(BodyReader(v22 + b"\0"), 2)
    with pytest.raises(ProtocolError, match="0 or 1"):
        decode_write_reply(BodyReader(v21 + b"\x02"), 2)


def _write_batch_reply(results, minor: int) -> bytes:
    w = BodyWriter().count(len(results))
    for status, message, receipt, committed in results:
        w.u16(status).string(message).bytes(receipt)
        if minor >= 2:
            w.bool(committed)
    return bytes(w.buf)


def test_write_batch_replies_carry_the_commit_flag_from_protocol_2_2():
    results = [(0, "", RECEIPT, True), (11, "grant expired", b"", False), (0, "", RECEIPT, False)]
    v21, v22 = _write_batch_reply(results, 1), _write_batch_reply(results, 2)
    decoded = [(r.status, r.message, r.receipt, r.committed) for r in decode_write_batch_reply(BodyReader(v21), 1)]
    assert decoded == [(ErrorCode.OK, "", RECEIPT, False), (ErrorCode.GRANT_REJECTED, "grant expired", b"", False),
                       (ErrorCode.OK, "", RECEIPT, False)]
    decoded = [(r.status, r.message, r.receipt, r.committed) for r in decode_write_batch_reply(BodyReader(v22), 2)]
    assert decoded == [(ErrorCode.OK, "", RECEIPT, True), (ErrorCode.GRANT_REJECTED, "grant expired", b"", False),
                       (ErrorCode.OK, "", RECEIPT, False)]
    for body, minor in ((v22, 1), (v21, 2)):  # each minor's layout read as the other's
        with pytest.raises(ProtocolError):
            decode_write_batch_reply(BodyReader(body), minor)
    with pytest.raises(ProtocolError, match="trailing"):
        decode_write_batch_reply(BodyReader(v21 + b"\0"), 1)
    with pytest.raises(ProtocolError, match="trailing"):
        decode_write_batch_reply(BodyReader(v22 + b"\0"), 2)
    without_flag = struct.pack(">i", 1) + bytes(6)  # status OK, no message, no receipt
    assert len(decode_write_batch_reply(BodyReader(without_flag), 1)) == 1
    with pytest.raises(ProtocolError, match="cannot fit"):
        decode_write_batch_reply(BodyReader(without_flag), 2)


def test_writer_round_trip():
    w = BodyWriter().u8(7).bool(True).u16(65535).i32(0xFFFFFFFF).i64(-2).string("ключ").bytes(b"\x01")
    r = BodyReader(bytes(w.buf))
    assert (r.u8(), r.bool(), r.u16(), r.i32(), r.i64(), r.string(100, "s"), r.bytes(1, "b")) == \
        (7, True, 65535, -1, -2, "ключ", b"\x01")
    r.finish()


def test_endpoints():
    assert Endpoint.parse("127.0.0.1:7000") == Endpoint("127.0.0.1", 7000)
    assert Endpoint.parse("[fd00::5]:50052") == Endpoint("fd00::5", 50052)
    assert str(Endpoint("fd00::5", 1)) == "[fd00::5]:1"
    assert Endpoint.parse_list("a:1, b:2") == [Endpoint("a", 1), Endpoint("b", 2)]
    for bad in ("nohost", "h:0", "h:99999", "fd00::5:1", ""):
        with pytest.raises(ValueError):
            Endpoint.parse_list(bad)


def test_config_from_the_client_configmap_environment():
    env = {"KVPOOL_MASTER_ADDRESS": "pool-master-0.pool:7000,pool-master-1.pool:7000", "KVPOOL_POOL_ID": "demo",
           "KVPOOL_OBJECT_REPLICAS": "2", "KVPOOL_LEASE_TTL": "5s", "KVPOOL_RELEASE": "0.2.0"}
    c = ClientConfig.from_env(env)
    assert [str(m) for m in c.masters] == ["pool-master-0.pool:7000", "pool-master-1.pool:7000"]
    assert (c.pool_id, c.replicas, c.lease_ttl) == ("demo", 2, 5.0)
    assert ClientConfig.from_env(env, replicas=3).replicas == 3
    with pytest.raises(ValueError, match="KVPOOL_MASTER_ADDRESS"):
        ClientConfig.from_env({})
    assert parse_duration("500ms") == 0.5 and parse_duration("2m") == 120


def test_regions_slice_across_boundaries():
    parts = [os.urandom(n) for n in (3, 5, 7)]
    regions = Regions([memoryview(p) for p in parts])
    joined = b"".join(parts)
    for offset in range(15):
        for length in range(15 - offset + 1):
            assert b"".join(bytes(v) for v in regions.slice(offset, length)) == joined[offset:offset + length]


def test_a_peer_on_this_machine_is_loopback_or_the_sockets_own_address():
    assert is_local_peer(("127.0.0.1", 1), ("127.0.0.1", 2))
    assert is_local_peer(("10.0.0.5", 1), ("127.0.0.9", 2))
    assert is_local_peer(("::1", 1, 0, 0), ("::1", 2, 0, 0))
    assert is_local_peer(("::", 1, 0, 0), ("::ffff:127.0.0.1", 2, 0, 0))
    assert not is_local_peer(("::", 1, 0, 0), ("::ffff:10.0.0.6", 2, 0, 0))
    assert is_local_peer(("10.0.0.5", 7000), ("10.0.0.5", 40000))
    assert not is_local_peer(("10.0.0.5", 7000), ("10.0.0.6", 40000))
    assert not is_local_peer(("10.0.0.5", 7000), ("not-an-address", 1))


def test_a_loopback_connection_gets_the_small_send_buffer():
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    client = socket.create_connection(server.getsockname())
    accepted, _ = server.accept()
    try:
        assert send_buffer_bytes(client) == LOCAL_SEND_BUFFER_BYTES
        assert LOCAL_SEND_BUFFER_BYTES < RECEIVE_BUFFER_BYTES
    finally:
        for s in (client, accepted, server):
            s.close()


class _Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def test_a_failed_node_is_read_last_until_its_failure_is_as_old_as_the_memory():
    clock = _Clock()
    nodes = FailedNodes(memory=10.0, clock=clock)
    nodes.failed("node-2")
    assert nodes.read_last("node-2")
    assert not nodes.read_last("node-3")
    clock.now += 9.999
    assert nodes.read_last("node-2")
    clock.now += 0.001
    assert not nodes.read_last("node-2")
    nodes.failed("node-2")  # a new failure starts the memory again
    clock.now += 8
    nodes.failed("node-2")
    clock.now += 8
    assert nodes.read_last("node-2")


def test_a_read_the_node_answered_forgets_its_failure_at_once():
    nodes = FailedNodes(memory=10.0, clock=_Clock())
    nodes.failed("node-2")
    nodes.failed("node-3")
    nodes.answered("node-2")
    assert not nodes.read_last("node-2")
    assert nodes.read_last("node-3")


def test_recent_names_the_nodes_remembered_now_the_latest_failure_first():
    clock = _Clock()
    nodes = FailedNodes(memory=10.0, clock=clock)
    assert nodes.recent() == []
    nodes.failed("node-1")
    clock.now += 5
    nodes.failed("node-2")
    clock.now += 0.001
    nodes.failed("node-3")
    nodes.answered("node-3")
    assert nodes.recent() == ["node-2", "node-1"]
    clock.now += 5
    assert nodes.recent() == ["node-2"]  # node-1's failure is 10 s old
    for i in range(FailedNodes.MAX_RECENT + 4):
        nodes.failed(f"many-{i}")
        clock.now += 0.001
    assert len(nodes.recent()) == FailedNodes.MAX_RECENT
    assert nodes.recent()[0] == f"many-{FailedNodes.MAX_RECENT + 3}"
    assert nodes.failures["node-1"] == 1 and nodes.failures["node-3"] == 1
