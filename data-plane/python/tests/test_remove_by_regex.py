"""Mooncake's ``remove_by_regex`` and the client's ``remove_matching`` (REMOVE_MATCHING, protocol 2.4) against a real
local pool: exactly the matching keys go, keys being read stay (as for remove), ``force`` waits out their lease,
hostile patterns are refused or matched in bounded time, and a client of protocol 2.3 is told it cannot."""

import time

import pytest

from kvpool import ClientConfig, KvPoolClient, VersionMismatch
from kvpool.messages import RemovedMatches
from kvpool.store import KvPoolStore, MooncakeError


@pytest.fixture(scope="module")
def store(pool):
    s = KvPoolStore()
    assert s.setup("localhost", "P2PHANDSHAKE", 0, 0, "tcp", "", pool.master, pool_key=pool.key,
                   operation_timeout=30) == 0
    yield s
    s.close()


def test_remove_by_regex_removes_exactly_the_matching_keys(store):
    for i in range(12):
        assert store.put(f"rx/req-a/{i}", b"a%d" % i) == 0
        assert store.put(f"rx/req-b/{i}", b"b%d" % i) == 0
    assert store.remove_by_regex(r"^rx/req-a/1[0-9]?$") == 3  # 1, 10, 11
    for i in range(12):
        assert store.is_exist(f"rx/req-a/{i}") == (0 if i in (1, 10, 11) else 1)
        assert store.get(f"rx/req-b/{i}") == b"b%d" % i
    assert store.remove_by_regex("req-a/[0-9]") == 9  # a search, as Mooncake's std::regex_search
    assert store.remove_by_regex("^rx/none$") == 0


def test_a_key_being_read_is_kept_unless_forced(store, pool):
    assert store.put("rx/leased/1", b"one") == 0
    assert store.put("rx/leased/2", b"two") == 0
    with KvPoolClient(ClientConfig(pool.master, pool_key=pool.key, operation_timeout=30)) as c:
        assert bytes(c.get("rx/leased/1")) == b"one"  # a read lease (5 s) keeps it
        assert c.remove_matching("^rx/leased/") == RemovedMatches(1, 1, True)
        assert c.exists("rx/leased/1")
        started = time.monotonic()
        assert c.remove_matching("^rx/leased/", force=True) == RemovedMatches(1, 0, True)
        assert time.monotonic() - started < 25  # within the operation timeout, once the lease ended
        assert not c.exists("rx/leased/1")


def test_hostile_patterns_are_refused_or_bounded(store):
    long_key = "a" * 4000 + "!"
    assert store.put(long_key, b"x") == 0
    started = time.monotonic()
    assert store.remove_by_regex(r"^(a+)+$") == 0  # exponential for a backtracking engine; RE2 is linear
    assert time.monotonic() - started < 20
    assert store.is_exist(long_key) == 1
    assert store.remove_by_regex("((a{1000}){1000}){1000}") == MooncakeError.INVALID_PARAMS  # expands too far
    assert store.remove_by_regex(r"(x)\1") == MooncakeError.INVALID_PARAMS  # no backreferences in RE2
    assert store.remove_by_regex("(unclosed") == MooncakeError.INVALID_PARAMS
    assert store.remove_by_regex("y" * 1025) == MooncakeError.INVALID_PARAMS
    assert store.remove_by_regex("") == MooncakeError.INVALID_PARAMS
    assert store.remove_by_regex(long_key[:1000]) == 1  # the store still serves


def test_a_client_of_protocol_2_3_is_refused_before_it_could_remove_by_pattern(pool):
    # a master of protocol 2.5 serves clients of 2.4 and 2.5, which all remove by pattern; a 2.3 client is refused
    with pytest.raises(VersionMismatch, match="protocol 2.3"):
        KvPoolClient(ClientConfig(pool.master, pool_key=pool.key, protocol=(2, 3))).close()
