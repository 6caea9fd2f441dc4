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
    """A pool shared by the tests that leave it healthy: 3 storage nodes of 256 MiB, authenticated (as ``./kvpool local``
    is by default): clients need ``pool_key=pool.key``."""
    p = start_pool()
    yield p
    p.stop()
    _POOLS.remove(p)


@pytest.fixture
def client(pool):
    c = KvPoolClient(ClientConfig(pool.master, pool_key=pool.key, replicas=2, timeout=20,
                                      operation_timeout=60))
    yield c
    c.close()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    # the logs of the pools this test used (its fixtures, direct or through others), not of every pool running
    used = [p for p in getattr(item, "funcargs", {}).values() if isinstance(p, LocalPool) and p in _POOLS]
    if report.failed and used:
        report.sections.append(("kvpool process logs", "".join(p.log_tails() for p in used)))
