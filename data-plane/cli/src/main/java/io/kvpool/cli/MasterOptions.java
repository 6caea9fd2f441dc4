package io.kvpool.cli;

import io.kvpool.client.AuthenticationException;
import io.kvpool.client.ClientConfig;
import io.kvpool.client.ConnectionFailedException;
import io.kvpool.client.KvPoolClient;
import io.kvpool.common.HostPort;
import io.kvpool.protocol.PoolKey;
import io.kvpool.protocol.TlsContext;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;

/**
 * {@code --master} and {@code --timeout} of the commands that talk to a pool, and how they connect.
 */
final class MasterOptions {
  static final String ENV = "KVPOOL_MASTER_ADDRESS";

  /** Longest wait for one master's handshake before calling the endpoint dead or not a master. */
  private static final Duration PROBE = Duration.ofSeconds(5);

  /** Longest single exchange (request, reply and value) of the client. */
  private static final Duration EXCHANGE = Duration.ofSeconds(10);

  @Option(
      names = "--master",
      paramLabel = "HOST:PORT[,HOST:PORT...]",
      descriptionKey = ENV,
      description =
          "The pool's master RPC endpoints (every master, or one; the leader is found among them), as "
              + "'kvpool local' prints them. Default: the environment variable "
              + ENV
              + " (the pool's <pool>-client "
              + "ConfigMap gives it to pods that use envFrom).")
  String master;

  @Option(
      names = "--timeout",
      paramLabel = "DURATION",
      defaultValue = "30s",
      converter = Converters.Time.class,
      description =
          "Longest the operation may take, waiting out a master failover included (default: "
              + "${DEFAULT-VALUE}).")
  Duration timeout;

  @Option(
      names = "--key-file",
      paramLabel = "FILE",
      descriptionKey = "KVPOOL_CLIENT_KEY_FILE",
      description =
          "File with the pool's client key, for a pool that authenticates (default: the environment"
              + " variable KVPOOL_CLIENT_KEY_FILE; or the key itself in KVPOOL_CLIENT_KEY).")
  Path keyFile;

  @Option(
      names = "--tls-ca",
      paramLabel = "FILE",
      descriptionKey = "KVPOOL_TLS_CA",
      description =
          "The pool's CA certificate, for a pool that runs TLS (default: the environment variable"
              + " KVPOOL_TLS_CA).")
  Path tlsCa;

  /** The endpoints given, or a usage error saying how to give them. */
  List<HostPort> endpoints(CommandSpec spec) {
    if (master == null || master.isBlank()) {
      throw Checks.usage(
          spec,
          "needs --master HOST:PORT[,HOST:PORT...] (or the environment variable "
              + ENV
              + "): the master RPC address that 'kvpool local' prints");
    }
    try {
      return HostPort.parseList(master);
    } catch (IllegalArgumentException e) {
      throw Checks.usage(spec, "--master: " + e.getMessage());
    }
  }

  /**
   * A client of the pool, once a master answered (else a one-line failure without waiting out the
   * timeout).
   */
  KvPoolClient connect(CommandSpec spec) {
    List<HostPort> endpoints = endpoints(spec);
    Checks.positive(spec, "--timeout", timeout);
    Duration probe = timeout.compareTo(PROBE) < 0 ? timeout : PROBE;
    PoolKey key = key(spec);
    ClientConfig config =
        ClientConfig.builder()
            .clientId("kvpool-cli")
            .poolKey(key)
            .tls(tlsCa == null ? null : TlsContext.trusting(tlsCa))
            .masters(endpoints)
            .failFastConnect(probe)
            .timeout(timeout.compareTo(EXCHANGE) < 0 ? timeout : EXCHANGE)
            .operationTimeout(timeout)
            .build();
    try {
      return KvPoolClient.connect(config);
    } catch (ConnectionFailedException e) {
      throw new CommandFailedException(e.getMessage());
    } catch (AuthenticationException e) {
      throw new CommandFailedException(
          e.getMessage()
              + (key != null
                  ? ""
                  : " (give it with --key-file FILE, e.g."
                      + " the client-key file that 'kvpool local' prints, or KVPOOL_CLIENT_KEY_FILE)"));
    }
  }

  /**
   * The client key: from --key-file (its bytes, PROTOCOL.md "Key material"), else
   * KVPOOL_CLIENT_KEY, else none.
   */
  private PoolKey key(CommandSpec spec) {
    if (keyFile != null) {
      try {
        return PoolKey.read(keyFile);
      } catch (IOException e) {
        throw Checks.usage(
            spec, "--key-file " + keyFile + ": cannot read it (" + e.getMessage() + ")");
      } catch (IllegalArgumentException e) {
        throw Checks.usage(spec, "--key-file " + keyFile + ": " + e.getMessage());
      }
    }
    String key = System.getenv("KVPOOL_CLIENT_KEY");
    try {
      return key == null || key.isBlank() ? null : PoolKey.parse(key);
    } catch (IllegalArgumentException e) {
      throw Checks.usage(spec, "KVPOOL_CLIENT_KEY: " + e.getMessage());
    }
  }
}
