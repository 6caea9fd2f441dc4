import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))

from pool import LocalPool  # noqa: E402

from kvpool import ClientConfig, KvPoolClient  # noqa: E402

_POOLS: list = []


def start_pool(**options: str) -> LocalPool:
    pool = LocalPool(**options)
    _POOLS.append(pool)
    return pool


@pytest.fixture(scope="session")
def pool():
    """A pool shared by the tests that leave it healthy: 3 storage nodes of 256 MiB."""
    p = start_pool()
    yield p
    p.stop()
    _POOLS.remove(p)


@pytest.fixture
def client(pool):
    c = KvPoolClient(ClientConfig(pool.master, replicas=2, timeout=20, operation_timeout=60))
    yield c
    c.close()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.failed and _POOLS:
        report.sections.append(("kvpool process logs", "".join(p.log_tails() for p in _POOLS)))
