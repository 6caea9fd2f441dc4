"""The fail-fast connect (``ClientConfig.fail_fast_connect``): one handshake with each master endpoint until one
answers (as leader or standby); when none does, a failure that names each endpoint's problem -- a host that does not
resolve, nothing listening, a port that accepts connections but does not answer the kvpool handshake (such as a
master's admin port), a peer that speaks something else. Without it, the client waits for a leader until the
operation timeout, as every call does during a failover: right for a service, but a wrong address then looks like a
hang. The messages are the Java client's (EndpointProbe)."""

from __future__ import annotations

import socket
import ssl
import time

from .auth import PoolKey
from .connection import Connection
from .errors import ConnectionFailed, HandshakeRefused, KvPoolError, KvPoolTimeout
from .messages import HandshakePrefix


def any_master_answers(endpoints: list, local: HandshakePrefix, key: PoolKey | None, tls: ssl.SSLContext | None,
                       handshake_timeout: float) -> None:
    """Returns once one endpoint answers the handshake; a refusal (version, pool, authentication, TLS) is an answer
    and raises as such; ConnectionFailed naming every endpoint's problem when none answers."""
    problems = []
    millis = round(handshake_timeout * 1000)
    for endpoint in endpoints:
        try:
            socket.getaddrinfo(endpoint.host, endpoint.port, 0, socket.SOCK_STREAM)
        except (socket.gaierror, UnicodeError):
            problems.append(f"cannot resolve host '{endpoint.host}'")
            continue
        deadline = time.monotonic() + handshake_timeout
        try:
            sock = socket.create_connection((endpoint.host, endpoint.port), timeout=handshake_timeout)
        except socket.timeout:
            problems.append(f"{endpoint} did not accept a connection within {millis} ms")
            continue
        except OSError as e:
            problems.append(f"nothing listens on {endpoint} ({e.strerror or e})")
            continue
        try:
            Connection.over(sock, endpoint, local, deadline, key, tls).close()
            return
        except HandshakeRefused:
            raise
        except KvPoolTimeout:
            problems.append(f"{endpoint} accepted the connection but did not answer the kvpool handshake within"
                            f" {millis} ms (is it the admin port? the master's RPC port is needed)")
        except KvPoolError as e:
            problems.append(f"{endpoint} does not speak the kvpool protocol ({e})")
    raise ConnectionFailed(f"no master answers at {','.join(str(e) for e in endpoints)}: {'; '.join(problems)}")

