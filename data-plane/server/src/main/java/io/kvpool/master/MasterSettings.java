package io.kvpool.master;

import io.kvpool.events.KvEventsConfig;
import io.kvpool.rpc.ServerLimits;
import io.kvpool.security.PoolSecrets;
import java.util.Optional;

/**
 * How one master process runs: its pool settings, where it listens and what it advertises, who may
 * use its mutating admin endpoints, and how it takes part in leader election.
 *
 * @param advertiseHost the host peers dial (a pod IP or DNS name), never a wildcard
 * @param secrets the pool's keys (peers authenticate when there are any) and the admin token
 * @param election empty: a sole master that leads from the start
 * @param limits what one peer of its RPC server may take (deadlines, caps)
 * @param events empty: no KV events (the default); else where and how the master publishes them
 */
public record MasterSettings(
    MasterConfig config,
    String host,
    int port,
    int adminPort,
    String advertiseHost,
    PoolSecrets secrets,
    Optional<LeaseElection> election,
    ServerLimits limits,
    Optional<KvEventsConfig> events) {
  public MasterSettings {
    secrets = secrets == null ? PoolSecrets.none() : secrets;
    election = election == null ? Optional.empty() : election;
    limits = limits == null ? ServerLimits.DEFAULTS : limits;
    events = events == null ? Optional.empty() : events;
  }

  public MasterSettings(
      MasterConfig config,
      String host,
      int port,
      int adminPort,
      String advertiseHost,
      PoolSecrets secrets,
      Optional<LeaseElection> election,
      ServerLimits limits) {
    this(config, host, port, adminPort, advertiseHost, secrets, election, limits, Optional.empty());
  }

  public MasterSettings withEvents(KvEventsConfig eventsConfig) {
    return new MasterSettings(
        config,
        host,
        port,
        adminPort,
        advertiseHost,
        secrets,
        election,
        limits,
        Optional.of(eventsConfig));
  }

  public MasterSettings(
      MasterConfig config,
      String host,
      int port,
      int adminPort,
      String advertiseHost,
      PoolSecrets secrets,
      Optional<LeaseElection> election) {
    this(config, host, port, adminPort, advertiseHost, secrets, election, ServerLimits.DEFAULTS);
  }

  /** A sole master on {@code host} (tests, local pools). */
  public static MasterSettings local(MasterConfig config, String host, int port, int adminPort) {
    return new MasterSettings(
        config, host, port, adminPort, host, PoolSecrets.none(), Optional.empty());
  }
}
