package io.kvpool.master;

import io.kvpool.common.HostPort;
import io.kvpool.common.VersionInfo;
import io.kvpool.events.KvEventsConfig;
import io.kvpool.process.Addresses;
import io.kvpool.process.ProcessConfig;
import io.kvpool.rpc.ServerLimitOptions;
import io.kvpool.security.PoolSecrets;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * Process entry point of a kvpool master. Every option can also come from the environment or the
 * config directory (see {@link ProcessConfig} and the table in data-plane/README.md). Prints one
 * {@code KVPOOL_READY} line once it serves (as leader or standby).
 */
@Command(
    name = "kvpool-master",
    mixinStandardHelpOptions = true,
    versionProvider = VersionLine.class,
    description =
        "A kvpool master: metadata, placement, leases, eviction; leader election on a Kubernetes Lease.")
public final class MasterMain implements Callable<Integer> {
  private static final Logger LOG = LoggerFactory.getLogger(MasterMain.class);

  @Spec CommandSpec spec;

  @Option(
      names = "--pool-id",
      descriptionKey = "KVPOOL_POOL_ID",
      required = true,
      description = "Pool this master serves (KVPOOL_POOL_ID)")
  String poolId;

  @Option(
      names = "--host",
      descriptionKey = "KVPOOL_BIND_HOST",
      defaultValue = "127.0.0.1",
      description = "Address to listen on, e.g. 0.0.0.0 or :: (KVPOOL_BIND_HOST)")
  String host;

  @Option(
      names = "--advertise-host",
      descriptionKey = "KVPOOL_ADVERTISE_HOST",
      description =
          "Host peers dial: the pod IP or DNS name; default: the bind host, or this machine's address"
              + " when binding a wildcard (KVPOOL_ADVERTISE_HOST)")
  String advertiseHost;

  @Option(
      names = "--port",
      descriptionKey = "KVPOOL_MASTER_PORT",
      defaultValue = "0",
      description = "RPC port, 0 picks one (KVPOOL_MASTER_PORT)")
  int port;

  @Option(
      names = "--admin-port",
      descriptionKey = "KVPOOL_MASTER_ADMIN_PORT",
      defaultValue = "0",
      description = "Admin HTTP port (KVPOOL_MASTER_ADMIN_PORT)")
  int adminPort;

  @Option(
      names = "--node-ttl",
      descriptionKey = "KVPOOL_NODE_TTL",
      defaultValue = "10s",
      description = "A storage node silent this long is dead (KVPOOL_NODE_TTL)")
  Duration nodeTtl;

  @Option(
      names = "--lease-ttl",
      descriptionKey = "KVPOOL_LEASE_TTL",
      defaultValue = "5s",
      description = "Read lease of a get (KVPOOL_LEASE_TTL)")
  Duration leaseTtl;

  @Option(
      names = "--pending-timeout",
      descriptionKey = "KVPOOL_PENDING_TIMEOUT",
      defaultValue = "30s",
      description =
          "A put not ended within this is revoked; also the write grants' lifetime (KVPOOL_PENDING_TIMEOUT)")
  Duration pendingTimeout;

  @Option(
      names = "--high-watermark",
      descriptionKey = "KVPOOL_HIGH_WATERMARK",
      defaultValue = "0.90",
      description = "Usage above which eviction runs (KVPOOL_HIGH_WATERMARK)")
  double highWatermark;

  @Option(
      names = "--evict-ratio",
      descriptionKey = "KVPOOL_EVICT_RATIO",
      defaultValue = "0.10",
      description = "Share of used bytes one eviction round frees (KVPOOL_EVICT_RATIO)")
  double evictRatio;

  @Option(
      names = "--tombstone-ttl",
      descriptionKey = "KVPOOL_TOMBSTONE_TTL",
      defaultValue = "10m",
      description =
          "How long deleted objects are remembered against returning replicas (KVPOOL_TOMBSTONE_TTL)")
  Duration tombstoneTtl;

  @Option(
      names = "--recovery-quiet",
      descriptionKey = "KVPOOL_RECOVERY_QUIET",
      defaultValue = "3s",
      description =
          "A new leader that finds no record of the previous leader's storage nodes on the Lease ends lease"
              + " recovery once no storage node registered for this long; at most one node TTL (KVPOOL_RECOVERY_QUIET)")
  Duration recoveryQuiet;

  @Option(
      names = "--placement-ramp",
      descriptionKey = "KVPOOL_PLACEMENT_RAMP",
      defaultValue = "on",
      description =
          "on: a node that joins or restarts empty takes its fair share of puts, growing to 1.5x over"
              + " a minute; off: power of two choices alone (KVPOOL_PLACEMENT_RAMP)")
  PlacementRamp placementRamp;

  @Option(
      names = "--leader-lease",
      descriptionKey = "KVPOOL_LEADER_LEASE",
      defaultValue = "",
      description =
          "Name of the Kubernetes Lease to elect the leader on; empty: a sole master (KVPOOL_LEADER_LEASE)")
  String leaderLease;

  @Option(
      names = "--namespace",
      descriptionKey = "POD_NAMESPACE",
      defaultValue = "default",
      description = "Namespace of the Lease and the master pods (POD_NAMESPACE)")
  String namespace;

  @Option(
      names = "--pod-name",
      descriptionKey = "POD_NAME",
      defaultValue = "",
      description = "This master's pod; the leader labels it kvpool.io/role=leader (POD_NAME)")
  String podName;

  @Option(
      names = "--master-replicas",
      descriptionKey = "KVPOOL_MASTER_REPLICAS",
      defaultValue = "1",
      description = "Masters of the pool, pods <statefulset>-0..N-1 (KVPOOL_MASTER_REPLICAS)")
  int masterReplicas;

  @Option(
      names = "--election-lease",
      descriptionKey = "KVPOOL_ELECTION_LEASE_DURATION",
      defaultValue = "8s",
      description =
          "Lease duration of the election; a failover takes about this long (KVPOOL_ELECTION_LEASE_DURATION)")
  Duration electionLease;

  @Option(
      names = "--tls-dir",
      descriptionKey = "KVPOOL_TLS_DIR",
      defaultValue = "",
      description =
          "Folder with tls.crt, tls.key (PKCS#8) and ca.crt: every connection, in and out, uses TLS 1.3"
              + " (KVPOOL_TLS_DIR)")
  String tlsDir;

  @Mixin ServerLimitOptions serverLimits = new ServerLimitOptions();

  @Option(
      names = "--secret-dir",
      descriptionKey = "KVPOOL_SECRET_DIR",
      defaultValue = "",
      description =
          "Folder with the pool's secret files (admin-token, cluster-key, client-key) (KVPOOL_SECRET_DIR)")
  String secretDir;

  @Option(
      names = "--events-port",
      descriptionKey = "KVPOOL_EVENTS_PORT",
      defaultValue = "-1",
      description =
          "Port of the KV-event ZMQ PUB socket (vLLM's KV-event format, docs/events.md); -1: no events,"
              + " 0: any free port (KVPOOL_EVENTS_PORT)")
  int eventsPort;

  @Option(
      names = "--events-replay-port",
      descriptionKey = "KVPOOL_EVENTS_REPLAY_PORT",
      defaultValue = "-1",
      description =
          "Port of the KV-event replay ROUTER socket; -1: none, 0: any free port (KVPOOL_EVENTS_REPLAY_PORT)")
  int eventsReplayPort;

  @Option(
      names = "--events-medium",
      descriptionKey = "KVPOOL_EVENTS_MEDIUM",
      defaultValue = "",
      description =
          "The medium every KV event names; default pool:<pool id> (KVPOOL_EVENTS_MEDIUM)")
  String eventsMedium;

  @Option(
      names = "--events-model",
      descriptionKey = "KVPOOL_EVENTS_MODEL",
      defaultValue = "",
      description =
          "The model in the KV-event topic kv@pool:<pool id>@<model> (KVPOOL_EVENTS_MODEL)")
  String eventsModel;

  public static void main(String[] args) {
    Addresses.followMovingNames();
    int code = ProcessConfig.commandLine(new MasterMain(), System.getenv()).execute(args);
    if (code != 0) {
      System.exit(code);
    }
  }

  @Override
  public Integer call() throws Exception {
    MasterConfig config;
    Optional<LeaseElection> election;
    try {
      config =
          MasterConfig.builder(poolId)
              .ttls(nodeTtl, leaseTtl)
              .pendingTimeout(pendingTimeout)
              .eviction(highWatermark, evictRatio)
              .tombstoneTtl(tombstoneTtl)
              .recoveryQuietPeriod(recoveryQuiet)
              .placementRamp(placementRamp)
              .build();
      election = leaderLease.isBlank() ? Optional.empty() : Optional.of(election());
    } catch (IllegalArgumentException e) {
      System.err.println("kvpool-master: " + e.getMessage());
      return 2;
    }
    String advertise = Addresses.advertised(host, advertiseHost);
    MasterSettings settings =
        new MasterSettings(
            config,
            host,
            port,
            adminPort,
            advertise,
            PoolSecrets.fromDirectories(secretDir, tlsDir),
            election,
            serverLimits.limits());
    if (eventsPort >= 0) {
      try {
        settings =
            settings.withEvents(
                KvEventsConfig.of(
                    poolId, host, eventsPort, eventsReplayPort, eventsMedium, eventsModel));
      } catch (IllegalArgumentException e) {
        System.err.println("kvpool-master: " + e.getMessage());
        return 2;
      }
    } else if (eventsReplayPort >= 0) {
      System.err.println("kvpool-master: --events-replay-port needs --events-port");
      return 2;
    }
    Master master;
    try {
      master = new Master(settings);
    } catch (IOException e) {
      System.err.println(
          "kvpool-master: cannot listen on "
              + host
              + " (port "
              + port
              + ", admin port "
              + adminPort
              + "): "
              + e.getMessage());
      return 1;
    }
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  master.close();
                  stopped.countDown();
                },
                "master-shutdown"));
    master.start();
    followEvictionSettings(master);
    HostPort rpc = new HostPort(advertise, master.rpcEndpoint().port());
    HostPort admin = new HostPort(advertise, master.adminEndpoint().port());
    LOG.info(
        "event=master_started pool={} version={} rpc={} admin={} election={}",
        poolId,
        VersionInfo.CURRENT,
        rpc,
        admin,
        election.map(e -> e.namespace() + "/" + e.leaseName()).orElse("none"));
    System.out.println("KVPOOL_READY master rpc=" + rpc + " admin=" + admin);
    System.out.flush();
    stopped.await();
    return 0;
  }

  /**
   * Eviction settings that come from the config folder (neither a flag nor an environment variable)
   * are re-read while running: the operator changes them in the pool's ConfigMap without restarting
   * the masters.
   */
  private void followEvictionSettings(Master master) {
    String dir = System.getenv(ProcessConfig.CONFIG_DIR_ENV);
    if (dir == null || dir.isBlank() || spec == null) {
      return;
    }
    for (String key :
        List.of(LiveEvictionSettings.HIGH_WATERMARK, LiveEvictionSettings.EVICT_RATIO)) {
      String env = System.getenv(key);
      boolean flag =
          spec.commandLine()
              .getParseResult()
              .hasMatchedOption(
                  key.equals(LiveEvictionSettings.HIGH_WATERMARK)
                      ? "--high-watermark"
                      : "--evict-ratio");
      if (flag || (env != null && !env.isBlank())) {
        LOG.info(
            "event=eviction_settings_fixed key={} reason=\"given as {}\"",
            key,
            flag ? "a flag" : "env");
        return;
      }
    }
    LiveEvictionSettings.follow(
        master::updateEviction, Path.of(dir), highWatermark, evictRatio, Duration.ofSeconds(2));
  }

  private LeaseElection election() {
    List<String> pods = new ArrayList<>();
    if (!podName.isBlank()) {
      String statefulSet = podName.replaceFirst("-\\d+$", "");
      for (int i = 0; i < masterReplicas; i++) {
        pods.add(statefulSet + "-" + i);
      }
    }
    Duration renew = electionLease.multipliedBy(3).dividedBy(4);
    String identityPod = podName.isBlank() ? "master-" + ProcessHandle.current().pid() : podName;
    return new LeaseElection(
        namespace,
        leaderLease,
        podName.isBlank() ? "" : identityPod,
        pods,
        electionLease,
        renew,
        Duration.ofMillis(Math.max(200, Math.min(2000, electionLease.toMillis() / 16))));
  }
}
