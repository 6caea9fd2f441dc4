"""PROTOCOL.md, "Key material": a key file is read as bytes, less leading and trailing ASCII whitespace, never decoded
as text; a key given as text is its UTF-8 bytes. The Java servers and client read keys by the same rule
(PoolSecretsTest), so a key has one meaning everywhere."""

import hashlib

import pytest

from kvpool.auth import PoolKey
from kvpool.config import ClientConfig


def _documented_id(key: bytes) -> bytes:
    return hashlib.sha256(b"kvpool-key-id" + key).digest()[:8]


def test_a_key_file_is_its_bytes_less_ascii_whitespace_around_them(tmp_path):
    # not UTF-8 (0xff), and a control byte (0x1c) that str.strip() would take for whitespace
    key = b"binary-key-0123456789abcdef-\xff\x00\xc3\x1c"
    path = tmp_path / "client-key"
    path.write_bytes(b" \t\n\x0b\x0c\r" + key + b"\r\n")
    assert PoolKey.from_file(str(path)).id == _documented_id(key)
    config = ClientConfig.from_env({"KVPOOL_MASTER_ADDRESS": "127.0.0.1:1", "KVPOOL_CLIENT_KEY_FILE": str(path)})
    assert config.pool_key.id == _documented_id(key)
    assert ClientConfig("127.0.0.1:1", pool_key=path.read_bytes()).pool_key.id == _documented_id(key)


def test_text_keys_are_their_utf8_bytes_and_only_ascii_whitespace_is_trimmed():
    text = "cluster-key-\u00c4\u00d6\u00dc-0123456789abcdefghij"
    assert PoolKey(f"  {text}\r\n").id == _documented_id(text.encode("utf-8"))
    nbsp_ended = "nbsp-ended-key-0123456789abcdefghij\u00a0"  # U+00A0 is whitespace to str.strip(), not ASCII
    assert PoolKey(nbsp_ended).id == _documented_id(nbsp_ended.encode("utf-8"))


def test_a_short_key_is_refused_and_a_blank_one_is_none():
    with pytest.raises(ValueError, match="at least 32 bytes.*has 31"):
        PoolKey(b"  only-31-bytes-of-key-material!!\n")
    assert ClientConfig("127.0.0.1:1", pool_key=b" \n").pool_key is None
    assert ClientConfig("127.0.0.1:1", pool_key="").pool_key is None
