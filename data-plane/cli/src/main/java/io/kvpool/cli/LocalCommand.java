package io.kvpool.cli;

import io.kvpool.nativemem.HugePageMode;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code kvpool local}: runs a pool on this machine until Ctrl-C. */
@Command(
    name = "local",
    description = "Run a master and storage nodes as local processes until Ctrl-C.")
final class LocalCommand implements Callable<Integer> {
  /** How the printed commands to try start (tests run them). */
  static final String TRY = "try:   ";

  static final String AND = "       ";

  @Spec CommandSpec spec;

  @Option(
      names = "--storage-nodes",
      paramLabel = "N",
      defaultValue = "3",
      description = "Storage nodes, 1..64 (default: ${DEFAULT-VALUE}).")
  int nodes;

  @Option(
      names = "--memory",
      paramLabel = "SIZE",
      defaultValue = "256MiB",
      converter = Converters.Size.class,
      description =
          "Native memory per storage node, e.g. 64MiB or 4GiB (default: ${DEFAULT-VALUE}).")
  long memory;

  @Option(
      names = "--huge-pages",
      paramLabel = "MODE",
      defaultValue = "none",
      description = "none, transparent or explicit (default: ${DEFAULT-VALUE}).")
  HugePageMode hugePages;

  @Option(
      names = "--node-ttl",
      paramLabel = "DURATION",
      defaultValue = "10s",
      converter = Converters.Time.class,
      description = "A storage node silent this long is dead (default: ${DEFAULT-VALUE}).")
  Duration nodeTtl;

  @Option(
      names = "--lease-ttl",
      paramLabel = "DURATION",
      defaultValue = "5s",
      converter = Converters.Time.class,
      description = "Read lease of a get, as KVPOOL_LEASE_TTL (default: ${DEFAULT-VALUE}).")
  Duration leaseTtl;

  @Option(
      names = "--pool-id",
      paramLabel = "ID",
      defaultValue = "local",
      description = "The pool's name (default: ${DEFAULT-VALUE}).")
  String poolId;

  @Option(
      names = "--secret-dir",
      paramLabel = "DIR",
      description =
          "Folder of the pool's keys (cluster-key, client-key, admin-token) that every connection must"
              + " prove (default, or 'new': a new folder of random keys that only this user can read).")
  String secretDir;

  @Option(
      names = "--no-auth",
      description =
          "Run without authentication: any process that reaches the pool's ports may use it (a trusted"
              + " machine only).")
  boolean noAuth;

  @Option(
      names = "--tls-dir",
      paramLabel = "DIR",
      description =
          "Folder with tls.crt, tls.key (PKCS#8) and ca.crt: every connection runs TLS 1.3; 'new' makes"
              + " one with openssl.")
  String tlsDir;

  @Option(
      names = "--memory-dir",
      paramLabel = "DIR",
      description =
          "Folder (tmpfs, e.g. /dev/shm/kvpool) for the storage nodes' memory files: a pool stopped with"
              + " Ctrl-C and started again with the same folder comes back with its values, no byte copied (warm"
              + " restarts). Default: anonymous memory, gone with the pool.")
  String memoryDir;

  @Option(
      names = "--disk",
      paramLabel = "SIZE",
      converter = Converters.Size.class,
      description =
          "A disk tier of this size per storage node, e.g. 2GiB: values evicted from memory move there and"
              + " are read back from it (default: none).")
  Long disk;

  @Option(
      names = "--disk-dir",
      paramLabel = "DIR",
      description =
          "Folder of the storage nodes' disk tiers (each in a folder named after its node id); a pool"
              + " started again with the same folder keeps what its tiers hold. Default with --disk: a new temporary"
              + " folder.")
  String diskDir;

  @Option(
      names = "--events-port",
      paramLabel = "PORT",
      description =
          "Publish the pool's KV events (vLLM's format, docs/events.md) on this port; the replay socket"
              + " listens on --events-replay-port. Default: no events.")
  Integer eventsPort;

  @Option(
      names = "--events-replay-port",
      paramLabel = "PORT",
      description = "Port of the KV events' replay socket. Default: --events-port + 1.")
  Integer eventsReplayPort;

  @Option(
      names = "--events-model",
      paramLabel = "NAME",
      defaultValue = "",
      description = "The model named in the KV-event topic kv@pool:<pool id>@<model>.")
  String eventsModel;

  private final PrintStream out;

  LocalCommand(PrintStream out) {
    this.out = out;
  }

  @Override
  public Integer call() throws InterruptedException {
    Checks.range(spec, "--storage-nodes", nodes, 1, 64);
    Checks.requireMemory(spec, memory);
    Checks.positive(spec, "--node-ttl", nodeTtl);
    Checks.positive(spec, "--lease-ttl", leaseTtl);
    if (poolId.isBlank()) {
      throw Checks.usage(spec, "--pool-id must not be empty");
    }
    LocalPoolConfig.Builder builder =
        LocalPool.builder()
            .poolId(poolId)
            .storageNodes(nodes)
            .memoryPerNode(Long.toString(memory))
            .nodeTtl(Converters.text(nodeTtl))
            .leaseTtl(Converters.text(leaseTtl))
            .storageOption("--huge-pages", hugePages.name().toLowerCase(Locale.ROOT));
    if (noAuth && secretDir != null) {
      throw Checks.usage(
          spec, "--no-auth runs the pool without keys: drop --secret-dir " + secretDir);
    }
    if (memoryDir != null && memoryDir.isBlank()) {
      throw Checks.usage(spec, "--memory-dir must name a folder");
    }
    List<String> clientOptions = new ArrayList<>();
    if (!noAuth) {
      String dir =
          secretDir == null || "new".equals(secretDir) ? LocalSecrets.keys().toString() : secretDir;
      builder.masterOption("--secret-dir", dir).storageOption("--secret-dir", dir);
      Path clientKey = Path.of(dir, "client-key");
      // a folder of the user's without a client key: the cluster key admits clients too
      String keyFile =
          (Files.exists(clientKey) ? clientKey : Path.of(dir, "cluster-key")).toString();
      clientOptions.addAll(List.of("--key-file", keyFile));
      out.println(
          "keys in " + dir + " (clients: --key-file " + keyFile + "; --no-auth runs without)");
    }
    if (tlsDir != null) {
      String dir = "new".equals(tlsDir) ? LocalSecrets.tls().toString() : tlsDir;
      builder.masterOption("--tls-dir", dir).storageOption("--tls-dir", dir);
      String ca = Path.of(dir, "ca.crt").toString();
      clientOptions.addAll(List.of("--tls-ca", ca));
      out.println("TLS from " + dir + " (clients: --tls-ca " + ca + ")");
    }
    if (memoryDir != null) {
      builder.storageOption("--memory-dir", memoryDir);
      out.println(
          "memory files in "
              + memoryDir
              + " (start the pool again with this folder to get its values back)");
    }
    if (diskDir != null && disk == null) {
      throw Checks.usage(
          spec, "--disk-dir needs --disk SIZE, the size of each storage node's disk tier");
    }
    if (disk != null) {
      String dir = diskDir;
      if (dir == null) {
        dir = temporaryDiskFolder().toString();
      }
      builder.storageOption("--disk-size", Long.toString(disk)).storageOption("--disk-dir", dir);
      out.println(
          "disk tiers of "
              + StatusTable.bytes(disk)
              + " per node in "
              + dir
              + (diskDir == null ? " (removed when the pool stops; --disk-dir keeps them)" : ""));
    }
    if (eventsPort != null) {
      Checks.range(spec, "--events-port", eventsPort, 1, 65534);
      int replayPort = eventsReplayPort != null ? eventsReplayPort : eventsPort + 1;
      Checks.range(spec, "--events-replay-port", replayPort, 1, 65535);
      builder
          .masterOption("--events-port", Integer.toString(eventsPort))
          .masterOption("--events-replay-port", Integer.toString(replayPort));
      if (!eventsModel.isEmpty()) {
        builder.masterOption("--events-model", eventsModel);
      }
      out.println(
          "KV events on tcp://127.0.0.1:"
              + eventsPort
              + " (topic kv@pool:"
              + poolId
              + "@"
              + eventsModel
              + "), replay on tcp://127.0.0.1:"
              + replayPort);
    } else if (eventsReplayPort != null) {
      throw Checks.usage(spec, "--events-replay-port needs --events-port");
    }
    LocalPoolConfig config = builder.build();
    out.println(
        "starting "
            + nodes
            + " storage nodes of "
            + StatusTable.bytes(memory)
            + " and a master; logs in "
            + config.logDir());
    // the pool's shutdown hook stops every process on Ctrl-C; this thread only has to wait
    LocalPool pool = config.start();
    ProcessTable.print(pool, out);
    out.println();
    out.println(
        "master " + pool.masterAddress() + "  (admin http://" + pool.adminAddress() + "/status)");
    String connect =
        String.join(
            " ",
            Stream.concat(Stream.of("--master", pool.masterAddress()), clientOptions.stream())
                .toList());
    // put's default of 2 replicas needs 2 storage nodes
    out.println(
        TRY
            + "./kvpool put "
            + connect
            + " hello --value world"
            + (nodes < 2 ? " --replicas 1" : ""));
    out.println(AND + "./kvpool get " + connect + " hello");
    out.println(AND + "./kvpool stat --admin " + pool.adminAddress());
    out.println("Ctrl-C stops the pool.");
    new CountDownLatch(1).await();
    return 0;
  }

  /** A new folder for the disk tiers, deleted with what is in it when this process exits. */
  private static Path temporaryDiskFolder() {
    Path dir;
    try {
      dir = Files.createTempDirectory("kvpool-disk-");
    } catch (java.io.IOException e) {
      throw new CommandFailedException(
          "cannot create a folder for the disk tiers: " + e.getMessage());
    }
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  try (Stream<Path> files = Files.walk(dir)) {
                    for (Path p : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
                      Files.deleteIfExists(p);
                    }
                  } catch (java.io.IOException e) {
                    System.err.println(
                        "kvpool: could not remove the disk tiers' folder "
                            + dir
                            + ": "
                            + e.getMessage());
                  }
                },
                "kvpool-disk-cleanup"));
    return dir;
  }
}
