"""The fail-fast connect (``ClientConfig(fail_fast_connect=...)``): each master endpoint tried once; when none answers,
one failure at once naming each endpoint's problem, in the Java client's words."""

import socket
import time

import pytest

from kvpool import ClientConfig, ConnectionFailed, KvPoolClient, PoolMismatch

PROBE = 1.0
OPERATION_TIMEOUT = 60.0  # what a connect without the fail-fast option would wait for a leader


@pytest.fixture
def refusing_port():
    """A port bound but not listening: connections to it are refused, and no other process can take it meanwhile."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        yield s.getsockname()[1]


def test_no_answering_master_fails_at_once_naming_each_endpoints_problem(pool, refusing_port):
    endpoints = f"no-such-host.invalid:7000,127.0.0.1:{refusing_port},{pool.admin}"
    started = time.monotonic()
    with pytest.raises(ConnectionFailed) as failed:
        KvPoolClient(ClientConfig(endpoints, fail_fast_connect=PROBE, timeout=5, operation_timeout=OPERATION_TIMEOUT))
    took = time.monotonic() - started
    message = str(failed.value)
    assert message.startswith(f"no master answers at {endpoints}: "), message
    assert "cannot resolve host 'no-such-host.invalid'" in message
    assert f"nothing listens on 127.0.0.1:{refusing_port} (" in message
    # the admin port speaks HTTP: it waits for a request line that never ends, or answers one it cannot parse
    assert (f"{pool.admin} accepted the connection but did not answer the kvpool handshake within 1000 ms (is it the"
            " admin port? the master's RPC port is needed)" in message
            or f"{pool.admin} does not speak the kvpool protocol (" in message), message
    assert took < OPERATION_TIMEOUT / 2, f"the fail-fast connect took {took:.1f} s"


def test_the_fail_fast_connect_finds_an_answering_master_among_dead_endpoints(pool, refusing_port):
    with KvPoolClient(ClientConfig(f"127.0.0.1:{refusing_port},{pool.master}", fail_fast_connect=PROBE,
                                   pool_key=pool.key, operation_timeout=OPERATION_TIMEOUT)) as c:
        c.put("connect/found", b"yes")
        assert bytes(c.get("connect/found")) == b"yes"


def test_a_refusal_is_an_answer(pool):
    with pytest.raises(PoolMismatch, match="another-pool"):
        KvPoolClient(ClientConfig(pool.master, pool_id="another-pool", fail_fast_connect=PROBE, operation_timeout=10))


@pytest.mark.parametrize("seconds", [0, -1.0])
def test_the_probe_timeout_must_be_positive(seconds):
    with pytest.raises(ValueError, match="fail_fast_connect"):
        ClientConfig("127.0.0.1:7000", fail_fast_connect=seconds)
