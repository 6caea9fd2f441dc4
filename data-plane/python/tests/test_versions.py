"""Handshake versions: a client claiming another protocol major, or a minor two apart, is refused with a typed error
naming both versions; one minor newer is accepted (one minor older: test_node_commits.py)."""

import pytest

from kvpool import PROTOCOL_MINOR, ClientConfig, KvPoolClient, PoolMismatch, VersionMismatch
from kvpool.store import KvPoolStore, MooncakeError


def test_other_protocol_major_is_refused_naming_both_versions(pool):
    with pytest.raises(VersionMismatch) as refused:
        KvPoolClient(ClientConfig(pool.master, release="1.4.0", protocol=(1, 0), operation_timeout=10))
    message = str(refused.value)
    assert f"0.2.0 speaks protocol 2.{PROTOCOL_MINOR}" in message
    assert "1.4.0 speaks protocol 1.0" in message
    assert refused.value.local == "1.4.0/1.0" and refused.value.peer == f"0.2.0/2.{PROTOCOL_MINOR}"


def test_newer_major_is_refused_too(pool):
    with pytest.raises(VersionMismatch, match="3.0"):
        KvPoolClient(ClientConfig(pool.master, release="3.0.0", protocol=(3, 0), operation_timeout=10))


def test_one_minor_newer_is_accepted(pool):
    with KvPoolClient(ClientConfig(pool.master, pool_key=pool.key, release="0.3.0",
                                   protocol=(2, PROTOCOL_MINOR + 1))) as c:
        assert c.server_protocol == (2, PROTOCOL_MINOR)
        c.put("versions/minor", b"ok")
        assert bytes(c.get("versions/minor")) == b"ok"


@pytest.mark.parametrize("release, protocol", [("0.1.5", (2, PROTOCOL_MINOR - 2)), ("0.4.0", (2, PROTOCOL_MINOR + 2))])
def test_two_minors_apart_is_refused(pool, release, protocol):
    with pytest.raises(VersionMismatch, match=f"speaks protocol 2.{PROTOCOL_MINOR}"):
        KvPoolClient(ClientConfig(pool.master, release=release, protocol=protocol, operation_timeout=10))


def test_other_pool_is_refused(pool):
    with pytest.raises(PoolMismatch, match="another-pool"):
        KvPoolClient(ClientConfig(pool.master, pool_id="another-pool", operation_timeout=10))


def test_store_setup_reports_the_version_refusal(pool, monkeypatch):
    store = KvPoolStore()
    assert store.setup(None, master_server_addr=pool.master, client_id="old", timeout=5.0, pool_key=pool.key) == 0
    store.close()
    # the store has no version knob: a refusal through the client is mapped to Mooncake's INVALID_VERSION
    from kvpool import store as store_module
    monkeypatch.setattr(store_module.ClientConfig, "from_env",
                        classmethod(lambda cls, **kw: cls(pool.master, release="1.0.0", protocol=(1, 0))))
    assert KvPoolStore().setup(None, master_server_addr=pool.master) == MooncakeError.INVALID_VERSION


def test_store_setup_answers_a_wrong_pool_id_with_its_own_code_naming_both_pools(pool, caplog):
    caplog.set_level("ERROR", logger="kvpool.store")
    store = KvPoolStore()
    assert store.setup("localhost", "P2PHANDSHAKE", 0, 0, "tcp", "", pool.master, pool_key=pool.key,
                       pool_id="another-pool", operation_timeout=10) == MooncakeError.POOL_MISMATCH == -10004
    assert store.client is None
    failures = [r.getMessage() for r in caplog.records]
    assert any("another-pool" in m and "'local'" in m for m in failures), failures
