"""The pool key as the handshake uses it (PROTOCOL.md, "Authentication"): never sent, only proven. Proofs are
HMAC-SHA256 over a label, the exact bytes of the client's HANDSHAKE request body (which hold the client's nonce) and
the server's nonce, so neither side's proof can be replayed on another connection."""

from __future__ import annotations

import hashlib
import hmac

MIN_KEY_BYTES = 32
ID_BYTES = 8
PROOF_BYTES = 32


class PoolKey:
    """A pool secret (the client key of the pool's Secret): its id names it in the handshake."""

    __slots__ = ("_secret", "id")

    def __init__(self, material: str | bytes):
        """``material``: a key file's bytes, or the key as text (its UTF-8 bytes). PROTOCOL.md, "Key material": the
        bytes less leading and trailing ASCII whitespace, at least 32 of them, never decoded."""
        raw = bytes(material) if isinstance(material, (bytes, bytearray, memoryview)) else str(material).encode("utf-8")
        secret = raw.strip()  # bytes.strip(): exactly the ASCII whitespace b" \t\n\x0b\x0c\r"
        if len(secret) < MIN_KEY_BYTES:
            raise ValueError(f"a pool key needs at least {MIN_KEY_BYTES} bytes (after leading and trailing whitespace),"
                             f" this one has {len(secret)}")
        self._secret = secret
        self.id = hashlib.sha256(b"kvpool-key-id" + secret).digest()[:ID_BYTES]

    @classmethod
    def from_file(cls, path: str) -> "PoolKey":
        with open(path, "rb") as f:
            return cls(f.read())

    def _proof(self, label: bytes, request_body: bytes, server_nonce: bytes) -> bytes:
        return hmac.new(self._secret, label + request_body + server_nonce, hashlib.sha256).digest()

    def server_proof(self, request_body: bytes, server_nonce: bytes) -> bytes:
        """What a server holding this key sends in its HANDSHAKE reply."""
        return self._proof(b"kvpool-server-proof", request_body, server_nonce)

    def client_proof(self, request_body: bytes, server_nonce: bytes) -> bytes:
        """What this client sends in AUTH."""
        return self._proof(b"kvpool-client-proof", request_body, server_nonce)

    def __repr__(self) -> str:
        return f"PoolKey(id={self.id.hex()})"  # never the secret
