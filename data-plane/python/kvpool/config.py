"""Client settings: explicit arguments, or the environment an inference pod gets from the pool's client
ConfigMap (``envFrom: <pool>-client``): KVPOOL_MASTER_ADDRESS, KVPOOL_POOL_ID, KVPOOL_OBJECT_REPLICAS,
KVPOOL_LEASE_TTL, KVPOOL_RELEASE; this client's own KVPOOL_CLIENT_ID, KVPOOL_CLIENT_TIMEOUT,
KVPOOL_CLIENT_OPERATION_TIMEOUT and KVPOOL_CLIENT_EXTENTS; and the pool's client key (KVPOOL_CLIENT_KEY, or a file
named by KVPOOL_CLIENT_KEY_FILE, e.g. the ``client-key`` of the pool's Secret mounted into the pod)."""

from __future__ import annotations

import os
import re
import secrets
from dataclasses import dataclass, field
from typing import Mapping

from . import version
from .auth import PoolKey
from .connection import Endpoint

_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$")


def parse_duration(text: str) -> float:
    """Seconds of a duration in the data plane's text form: ``5s``, ``500ms``, ``2m``, ``1h`` (plain numbers are
    seconds)."""
    m = _DURATION.match(str(text))
    if not m:
        raise ValueError(f"duration '{text}' is not like 5s, 500ms, 2m or 1h")
    scale = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0, None: 1.0}[m.group(2)]
    return float(m.group(1)) * scale


def default_client_id() -> str:
    """A client id of its own for each client that is not given one: ``python-client-<pid>-<6 hex digits>``. The
    master limits the extents one client id holds (8), so clients sharing one id would take each other's share."""
    return f"python-client-{os.getpid()}-{secrets.token_hex(3)}"


def parse_flag(text: str) -> bool:
    """A setting that is on or off: ``true``/``1``/``yes``/``on`` or ``false``/``0``/``no``/``off`` (any case)."""
    value = str(text).strip().lower()
    if value in ("1", "true", "yes", "on"):
        return True
    if value in ("0", "false", "no", "off", ""):
        return False
    raise ValueError(f"'{text}' is neither true nor false (true, 1, yes, on / false, 0, no, off)")


@dataclass
class ClientConfig:
    """How to reach a pool. ``masters``: every master endpoint (or the pool's master Service), ``HOST:PORT``
    comma-separated or a list; the client finds and follows the leader among them."""

    masters: list
    pool_id: str = ""
    # this client's name in handshakes, the master's logs and its extent limit (8 per id); default: one of its own
    client_id: str = field(default_factory=default_client_id)
    replicas: int = 1
    timeout: float = 10.0
    operation_timeout: float = 30.0
    retries: int = 3
    lease_ttl: float = 5.0
    # how many keys' replica lists (with their read tokens) the client keeps for gets straight to a storage node, used
    # for at most 80% of lease_ttl; 0 turns it off (every get asks the master first)
    location_cache_entries: int = 65536
    # several reads or writes to one storage node as one READ_BATCH / WRITE_BATCH (nodes that speak protocol 2.1);
    # False sends them pipelined, as protocol 2.0 does
    batch_requests: bool = True
    # the pool's client key (text, bytes or PoolKey); with it the client authenticates and refuses servers that
    # cannot prove the key; without it a pool that authenticates refuses the client
    pool_key: object = None
    # TLS: the pool's CA certificate file (ca.crt of its TLS Secret); None: plaintext
    tls_ca: str | None = None
    # seconds: connecting first tries each master endpoint once with this handshake timeout and fails at once, naming
    # each endpoint's problem (unresolvable host, nothing listening, no kvpool handshake answered, e.g. the admin
    # port), when none answers; None: the connect waits for a leader until the operation timeout, as every call does
    # during a failover (right for a service; a one-shot tool wants the fail-fast connect)
    fail_fast_connect: float | None = None
    # small puts straight into extents the master granted ahead (protocol 2.4, PROTOCOL.md "Extents"): one exchange
    # with a storage node instead of one with the master and one with the node, for puts of one key with one replica,
    # no block metadata and at most 256 KiB; every other put, and any an extent cannot take, goes through PUT_START
    extents: bool = False
    # seconds: after a storage node's connection failed or timed out, every get of the client reads the node's replicas
    # last and every PUT_START asks the master to place the put elsewhere, for this long or until the node answers a
    # read or a write; default the master's default node TTL (a node silent that long is no longer listed)
    failed_node_memory: float = 10.0
    # the version announced in handshakes; only compatibility tests impersonate another release
    release: str = version.RELEASE
    protocol: tuple = field(default=(version.PROTOCOL_MAJOR, version.PROTOCOL_MINOR))

    def __post_init__(self) -> None:
        if isinstance(self.masters, str):
            self.masters = Endpoint.parse_list(self.masters)
        else:
            self.masters = [m if isinstance(m, Endpoint) else Endpoint.parse(str(m)) for m in self.masters]
        if not self.masters:
            raise ValueError("at least one master endpoint is required")
        if not 1 <= int(self.replicas) <= 255:
            raise ValueError(f"replicas must be within 1..255, got {self.replicas}")
        if self.timeout <= 0 or self.operation_timeout <= 0:
            raise ValueError("timeouts must be positive")
        if self.fail_fast_connect is not None and not self.fail_fast_connect > 0:
            raise ValueError(f"fail_fast_connect must be a positive number of seconds, got {self.fail_fast_connect}")
        if not self.failed_node_memory > 0:
            raise ValueError(f"failed_node_memory must be a positive number of seconds, got {self.failed_node_memory}")
        if self.lease_ttl <= 0:
            raise ValueError(f"lease_ttl must be positive, got {self.lease_ttl}")
        if self.location_cache_entries < 0:
            raise ValueError(f"location_cache_entries must be >= 0, got {self.location_cache_entries}")
        if self.retries < 0:
            raise ValueError(f"retries must be >= 0, got {self.retries}")
        self.extents = parse_flag(self.extents) if isinstance(self.extents, str) else bool(self.extents)
        if self.pool_key is not None and not isinstance(self.pool_key, PoolKey):
            material = self.pool_key if isinstance(self.pool_key, (bytes, bytearray)) else str(self.pool_key).encode()
            self.pool_key = PoolKey(material) if material.strip() else None

    def tls_context(self):
        """The TLS context of every connection, or None for plaintext."""
        if not self.tls_ca:
            return None
        from .connection import tls_context
        return tls_context(self.tls_ca)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, **overrides) -> "ClientConfig":
        """Settings from the client ConfigMap's variables; keyword arguments win over them."""
        env = os.environ if env is None else env
        settings: dict = {}
        if env.get("KVPOOL_MASTER_ADDRESS"):
            settings["masters"] = env["KVPOOL_MASTER_ADDRESS"]
        if env.get("KVPOOL_POOL_ID"):
            settings["pool_id"] = env["KVPOOL_POOL_ID"]
        if env.get("KVPOOL_OBJECT_REPLICAS"):
            settings["replicas"] = int(env["KVPOOL_OBJECT_REPLICAS"])
        if env.get("KVPOOL_LEASE_TTL"):
            settings["lease_ttl"] = parse_duration(env["KVPOOL_LEASE_TTL"])
        if env.get("KVPOOL_CLIENT_ID"):
            settings["client_id"] = env["KVPOOL_CLIENT_ID"]
        if env.get("KVPOOL_CLIENT_TIMEOUT"):
            settings["timeout"] = parse_duration(env["KVPOOL_CLIENT_TIMEOUT"])
        if env.get("KVPOOL_CLIENT_OPERATION_TIMEOUT"):
            settings["operation_timeout"] = parse_duration(env["KVPOOL_CLIENT_OPERATION_TIMEOUT"])
        if env.get("KVPOOL_CLIENT_EXTENTS"):
            settings["extents"] = parse_flag(env["KVPOOL_CLIENT_EXTENTS"])
        if env.get("KVPOOL_TLS_CA"):
            settings["tls_ca"] = env["KVPOOL_TLS_CA"]
        elif env.get("KVPOOL_TLS_DIR"):
            settings["tls_ca"] = os.path.join(env["KVPOOL_TLS_DIR"], "ca.crt")
        if env.get("KVPOOL_CLIENT_KEY"):
            settings["pool_key"] = env["KVPOOL_CLIENT_KEY"]
        elif env.get("KVPOOL_CLIENT_KEY_FILE"):
            settings["pool_key"] = PoolKey.from_file(env["KVPOOL_CLIENT_KEY_FILE"])
        settings.update({k: v for k, v in overrides.items() if v is not None})
        if "masters" not in settings:
            raise ValueError("no master address: set KVPOOL_MASTER_ADDRESS (from the pool's client ConfigMap) or"
                             " pass masters='HOST:PORT[,HOST:PORT...]'")
        return cls(**settings)
