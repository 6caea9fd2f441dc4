"""PROTOCOL.md, "Test vectors", against this client: the key it reads from the documented key file, the key id, the
HANDSHAKE request body it encodes, the server proof it checks and the client proof it sends are the documented bytes
(ProtocolTestVectorsTest checks the same block against the Java code)."""

import re
from pathlib import Path

from kvpool.auth import PoolKey
from kvpool.codec import BodyWriter
from kvpool.messages import HandshakePrefix, encode_handshake

PROTOCOL = Path(__file__).resolve().parents[2] / "PROTOCOL.md"


def _vectors() -> dict:
    doc = PROTOCOL.read_text(encoding="utf-8")
    block = re.search(r"\n## Test vectors\n.*?```\n(.*?)```", doc, re.S).group(1)
    vectors: dict = {}
    name = None
    for line in block.splitlines():
        if line.startswith(" "):
            vectors[name] += line.strip()
        elif line.strip():
            name, value = (part.strip() for part in line.split(" = ", 1))
            vectors[name] = value
    return {k: bytes.fromhex(v) for k, v in vectors.items()}


def test_the_documented_key_id_handshake_body_and_proofs_are_this_clients(tmp_path):
    v = _vectors()
    key_file = tmp_path / "client-key"
    key_file.write_bytes(v["key file"])
    key = PoolKey.from_file(str(key_file))
    assert key.id.hex() == v["key id"].hex()
    assert PoolKey(v["key"]).id == v["key id"]

    body = bytes(encode_handshake(HandshakePrefix("0.2.0", 2, 2, 1, "doc", "client-1"), v["client nonce"],
                                  key_id=key.id).buf)
    assert body.hex() == v["H"].hex()
    assert key.server_proof(body, v["server nonce"]).hex() == v["server proof"].hex()
    proof = key.client_proof(body, v["server nonce"])
    assert proof.hex() == v["client proof"].hex()
    assert bytes(BodyWriter().bytes(proof).buf) == b"\x00\x20" + proof  # the AUTH body
