package io.kvpool.client;

import io.kvpool.common.HostPort;
import io.kvpool.protocol.ConnectionSecurity;
import io.kvpool.protocol.Handshake;
import io.kvpool.protocol.HandshakeException;
import io.kvpool.protocol.RpcConnection;
import java.io.IOException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The fail-fast connect ({@link ClientConfig.Builder#failFastConnect}): one handshake with each
 * master endpoint until one answers (as leader or standby); when none does, a failure that names
 * each endpoint's problem.
 */
final class EndpointProbe {
  private EndpointProbe() {}

  static void anyAnswers(
      List<HostPort> endpoints,
      Handshake local,
      ConnectionSecurity security,
      Duration handshakeTimeout) {
    List<String> problems = new ArrayList<>();
    for (HostPort endpoint : endpoints) {
      if (endpoint.toSocketAddress().isUnresolved()) {
        problems.add("cannot resolve host '" + endpoint.host() + "'");
        continue;
      }
      try (RpcConnection ignored =
          RpcConnection.open(endpoint, local, 0, security, handshakeTimeout)) {
        return;
      } catch (HandshakeException e) {
        throw Failures.translate(
            e, endpoint, "connecting to master " + endpoint); // a refusal is an answer
      } catch (ConnectException e) {
        problems.add("nothing listens on " + endpoint + " (" + e.getMessage() + ")");
      } catch (SocketTimeoutException e) {
        problems.add(
            endpoint
                + " accepted the connection but did not answer the kvpool handshake within "
                + handshakeTimeout.toMillis()
                + " ms (is it the admin port? the master's RPC port is needed)");
      } catch (IOException e) {
        problems.add(endpoint + " does not speak the kvpool protocol (" + e.getMessage() + ")");
      }
    }
    throw new ConnectionFailedException(
        "no master answers at "
            + endpoints.stream().map(HostPort::toString).collect(Collectors.joining(","))
            + ": "
            + String.join("; ", problems));
  }
}
