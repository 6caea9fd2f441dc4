package io.kvpool.cli;

import io.kvpool.common.HostPort;
import io.kvpool.common.VersionInfo;
import io.kvpool.protocol.Handshake;
import io.kvpool.protocol.ConnectionSecurity;
import io.kvpool.protocol.HandshakeException;
import io.kvpool.protocol.Role;
import io.kvpool.protocol.RpcConnection;
import java.io.IOException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * One handshake with each master endpoint before a command connects its client. The client waits out a failover
 * (it retries until its operation timeout), which is right while a pool elects a new leader but makes a wrong
 * address look like a hang; a one-shot command instead fails at once, saying why, when no endpoint answers at all:
 * an unknown host, nothing listening, or something that is not a kvpool master (such as its admin port).
 */
final class MasterProbe {
  private static final Handshake HELLO = new Handshake(VersionInfo.CURRENT, Role.CLIENT, "", "kvpool-cli");

  private MasterProbe() {
  }

  /**
   * The endpoints whose host resolves, once at least one of them answered a handshake (as leader or standby).
   * Throws {@link CommandFailedException} naming every endpoint's problem otherwise.
   */
  static List<HostPort> answering(List<HostPort> endpoints, ConnectionSecurity security, Duration handshakeTimeout) {
    List<HostPort> resolvable = new ArrayList<>();
    List<String> problems = new ArrayList<>();
    boolean answered = false;
    for (HostPort endpoint : endpoints) {
      if (endpoint.toSocketAddress().isUnresolved()) {
        problems.add("cannot resolve host '" + endpoint.host() + "'");
        continue;
      }
      resolvable.add(endpoint);
      if (answered) {
        continue;
      }
      try (RpcConnection ignored = RpcConnection.open(endpoint, HELLO, 0, security, handshakeTimeout)) {
        answered = true;
      } catch (HandshakeException e) {
        problems.add(e.getMessage());
      } catch (ConnectException e) {
        problems.add("nothing listens on " + endpoint + " (" + e.getMessage() + ")");
      } catch (SocketTimeoutException e) {
        problems.add(endpoint + " accepted the connection but did not answer the kvpool handshake within "
            + handshakeTimeout.toMillis() + " ms (is it the admin port? --master takes the RPC port)");
      } catch (IOException e) {
        problems.add(endpoint + " does not speak the kvpool protocol (" + e.getMessage() + ")");
      }
    }
    if (!answered) {
      throw new CommandFailedException("no master answers at "
          + endpoints.stream().map(HostPort::toString).collect(Collectors.joining(",")) + ": "
          + String.join("; ", problems));
    }
    return resolvable;
  }
}
