"""Release and wire protocol version of this client (PROTOCOL.md: protocol 2.5, release 0.2.0)."""

from __future__ import annotations

RELEASE = "0.2.0"
PROTOCOL_MAJOR = 2
PROTOCOL_MINOR = 5


def incompatibility(local_release: str, local_major: int, local_minor: int,
                    peer_release: str, peer_major: int, peer_minor: int) -> str | None:
    """None when the two can talk (same major, minors at most one apart); else the reason naming both versions."""
    if peer_major != local_major or abs(peer_minor - local_minor) > 1:
        return (f"protocol version mismatch: local release {local_release} speaks protocol {local_major}.{local_minor},"
                f" peer release {peer_release} speaks protocol {peer_major}.{peer_minor} (same major and minors at"
                f" most one apart are required; upgrade or downgrade one side)")
    return None
