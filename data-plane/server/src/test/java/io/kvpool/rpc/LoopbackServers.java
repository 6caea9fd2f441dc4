package io.kvpool.rpc;

import io.kvpool.common.VersionInfo;
import io.kvpool.protocol.Role;
import io.kvpool.security.PoolSecrets;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.IOException;

/**
 * Real servers of the tests: an {@link RpcServer} of pool "pool" on 127.0.0.1, any free port, no
 * secrets, started.
 */
final class LoopbackServers {
  private LoopbackServers() {}

  static RpcServer start(String name, Role role, RpcServer.RequestHandler handler)
      throws IOException {
    return start(name, role, handler, ServerLimits.DEFAULTS, new PrometheusRegistry());
  }

  static RpcServer start(
      String name,
      Role role,
      RpcServer.RequestHandler handler,
      ServerLimits limits,
      PrometheusRegistry metrics)
      throws IOException {
    RpcServer.Identity id = new RpcServer.Identity(VersionInfo.CURRENT, role, () -> "pool", name);
    RpcServer server =
        new RpcServer(name, "127.0.0.1", 0, id, handler, limits, PoolSecrets.none(), metrics);
    server.start();
    return server;
  }
}
