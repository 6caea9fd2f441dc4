"""The Python client and the Java client (through the kvpool CLI) read each other's values."""

import os
import random

from pool import kvpool_cli


def test_java_put_python_get(pool, client, tmp_path):
    value = os.urandom((3 << 20) + 17)
    source = tmp_path / "from-java.bin"
    source.write_bytes(value)
    key = f"interop/java/{random.getrandbits(32)}"
    done = kvpool_cli("put", "--master", pool.master, "--key-file", pool.key_file, key, "--file", str(source))
    assert done.returncode == 0, done.stderr.decode()
    assert bytes(client.get(key)) == value


def test_python_put_java_get(pool, client, tmp_path):
    value = os.urandom((2 << 20) + 5)
    key = f"interop/python/{random.getrandbits(32)}"
    assert client.put(key, value)
    target = tmp_path / "from-python.bin"
    done = kvpool_cli("get", "--master", pool.master, "--key-file", pool.key_file, key, "--out", str(target))
    assert done.returncode == 0, done.stderr.decode()
    assert target.read_bytes() == value


def test_java_reads_a_multi_region_value_as_one(pool, client, tmp_path):
    from kvpool import Regions
    parts = [os.urandom(4096) for _ in range(9)]
    key = f"interop/regions/{random.getrandbits(32)}"
    client.put_regions(key, Regions([memoryview(p) for p in parts]))
    target = tmp_path / "regions.bin"
    done = kvpool_cli("get", "--master", pool.master, "--key-file", pool.key_file, key, "--out", str(target))
    assert done.returncode == 0, done.stderr.decode()
    assert target.read_bytes() == b"".join(parts)
