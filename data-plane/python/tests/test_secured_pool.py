"""A pool with secrets and TLS (PROTOCOL.md, "Authentication" and "TLS"): over TLS 1.3, the client proves the pool's
client key to the master and to every storage node and refuses servers that cannot prove it; without the key, with a
wrong one, without TLS or trusting another CA it is refused with a typed error."""

import base64
import os
import subprocess

import pytest

from pool import SecuredPool, wait_for

from kvpool import (AuthenticationFailed, AuthenticationRequired, ClientConfig, KvPoolClient, KvPoolError, PoolKey,
                    Regions, TlsFailure)
from kvpool.store import KvPoolStore


def _key() -> str:
    return base64.urlsafe_b64encode(os.urandom(32)).decode().rstrip("=")


CLIENT_KEY = _key()
CLUSTER_KEY = _key()


def _certificates(folder, name: str):
    """A CA and a server certificate signed by it, laid out like a Kubernetes TLS Secret (as cert-manager writes)."""
    def openssl(*args):
        subprocess.run(["openssl", *args], cwd=folder, check=True, capture_output=True, timeout=60)
    openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "2", "-subj",
            f"/CN=kvpool-{name}-ca", "-keyout", "ca.key", "-out", "ca.crt")
    openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-subj", f"/CN=kvpool-{name}",
            "-keyout", "tls.key", "-out", "tls.csr")
    openssl("x509", "-req", "-in", "tls.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial", "-days", "2",
            "-out", "tls.crt")
    return folder


@pytest.fixture(scope="module")
def secured(tmp_path_factory):
    secrets = tmp_path_factory.mktemp("secrets")
    (secrets / "client-key").write_text(CLIENT_KEY)
    (secrets / "cluster-key").write_text(CLUSTER_KEY)
    tls = _certificates(tmp_path_factory.mktemp("tls"), "pool")
    pool = SecuredPool(str(tmp_path_factory.mktemp("secured-logs")),
                       ["--secret-dir", str(secrets), "--tls-dir", str(tls)])
    pool.ca = str(tls / "ca.crt")
    pool.other_ca = str(_certificates(tmp_path_factory.mktemp("other-tls"), "other") / "ca.crt")
    try:
        with KvPoolClient(ClientConfig(pool.master, pool_key=CLIENT_KEY, tls_ca=pool.ca, operation_timeout=60)) as c:
            wait_for(lambda: c.stats().alive_nodes == 2 and c.stats().state.name == "SERVING", 120,
                     "both storage nodes registered with the secured master")
        yield pool
    except BaseException:
        print(pool.log_tails())
        raise
    finally:
        pool.stop()


def test_the_client_key_over_tls_opens_master_and_storage_nodes(secured):
    with KvPoolClient(ClientConfig(secured.master, pool_key=CLIENT_KEY, tls_ca=secured.ca, replicas=2)) as c:
        for size in (1, 5000, 300_000, (2 << 20) + 7):
            value = os.urandom(size)
            assert c.put(f"secured/{size}", value)
            assert bytes(c.get(f"secured/{size}")) == value  # READs go to storage nodes: TLS and AUTH there too
        assert c.put_batch(["secured/a", "secured/b"], [Regions.of_buffer(b"a" * 10), Regions.of_buffer(b"b" * 20)]) \
            == [None, None]
        assert [bytes(v) for v in c.get_batch(["secured/a", "secured/b"])] == [b"a" * 10, b"b" * 20]


def test_key_and_ca_from_the_environment_and_files(secured, tmp_path, monkeypatch):
    monkeypatch.setenv("KVPOOL_MASTER_ADDRESS", secured.master)
    monkeypatch.setenv("KVPOOL_CLIENT_KEY", CLIENT_KEY)
    monkeypatch.setenv("KVPOOL_TLS_CA", secured.ca)
    store = KvPoolStore()
    assert store.setup(None) == 0
    assert store.put("secured/env", b"from the environment") == 0
    assert store.get("secured/env") == b"from the environment"
    store.close()
    monkeypatch.delenv("KVPOOL_CLIENT_KEY")
    key_file = tmp_path / "client-key"
    key_file.write_text(CLIENT_KEY + "\n")  # a mounted Secret's file: trailing whitespace is trimmed
    monkeypatch.setenv("KVPOOL_CLIENT_KEY_FILE", str(key_file))
    with KvPoolClient.from_env() as c:
        assert bytes(c.get("secured/env")) == b"from the environment"


def test_no_key_is_refused(secured):
    with pytest.raises(AuthenticationRequired):
        KvPoolClient(ClientConfig(secured.master, tls_ca=secured.ca, operation_timeout=10))


def test_a_wrong_key_is_refused(secured):
    with pytest.raises(AuthenticationFailed):
        KvPoolClient(ClientConfig(secured.master, pool_key=_key(), tls_ca=secured.ca, operation_timeout=10))


def test_a_client_without_tls_is_refused(secured):
    with pytest.raises(KvPoolError):
        KvPoolClient(ClientConfig(secured.master, pool_key=CLIENT_KEY, timeout=2, operation_timeout=5))


def test_a_server_whose_certificate_does_not_chain_to_the_ca_is_refused(secured):
    with pytest.raises(TlsFailure, match="does not chain"):
        KvPoolClient(ClientConfig(secured.master, pool_key=CLIENT_KEY, tls_ca=secured.other_ca, operation_timeout=10))


@pytest.fixture(scope="module")
def open_master(tmp_path_factory):
    """A master without secrets (``./kvpool local`` authenticates unless ``--no-auth``)."""
    master = SecuredPool(str(tmp_path_factory.mktemp("open-logs")), [], nodes=0)
    yield master
    master.stop()


def test_a_client_with_a_key_refuses_a_pool_that_does_not_authenticate(open_master):
    with pytest.raises(AuthenticationFailed, match="cannot prove"):
        KvPoolClient(ClientConfig(open_master.master, pool_key=CLIENT_KEY, operation_timeout=10))


def test_key_rules():
    with pytest.raises(ValueError, match="32 bytes"):
        PoolKey("short")
    assert PoolKey(CLIENT_KEY).id == PoolKey(f"  {CLIENT_KEY}\n").id
    assert CLIENT_KEY not in repr(PoolKey(CLIENT_KEY))
