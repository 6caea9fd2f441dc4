package io.kvpool.cli;

import io.kvpool.nativemem.HugePageMode;
import java.io.PrintStream;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code kvpool local}: runs a pool on this machine until Ctrl-C. */
@Command(name = "local", description = "Run a master and storage nodes as local processes until Ctrl-C.")
final class LocalCommand implements Callable<Integer> {
  /** The least memory a storage node accepts (one page for its one segment). */
  static final long MIN_MEMORY = 4096;

  @Spec
  CommandSpec spec;
  @Option(names = "--storage-nodes", paramLabel = "N", defaultValue = "3",
      description = "Storage nodes, 1..64 (default: ${DEFAULT-VALUE}).")
  int nodes;
  @Option(names = "--memory", paramLabel = "SIZE", defaultValue = "256MiB", converter = Converters.Size.class,
      description = "Native memory per storage node, e.g. 64MiB or 4GiB (default: ${DEFAULT-VALUE}).")
  long memory;
  @Option(names = "--huge-pages", paramLabel = "MODE", defaultValue = "none",
      description = "none, transparent or explicit (default: ${DEFAULT-VALUE}).")
  HugePageMode hugePages;
  @Option(names = "--node-ttl", paramLabel = "DURATION", defaultValue = "10s", converter = Converters.Time.class,
      description = "A storage node silent this long is dead (default: ${DEFAULT-VALUE}).")
  Duration nodeTtl;
  @Option(names = "--lease-ttl", paramLabel = "DURATION", defaultValue = "5s", converter = Converters.Time.class,
      description = "Read lease of a get, as KVPOOL_LEASE_TTL (default: ${DEFAULT-VALUE}).")
  Duration leaseTtl;
  @Option(names = "--pool-id", paramLabel = "ID", defaultValue = "local",
      description = "The pool's name (default: ${DEFAULT-VALUE}).")
  String poolId;

  @Option(names = "--secret-dir", paramLabel = "DIR",
      description = "Folder of the pool's keys (cluster-key, client-key, admin-token): every connection must then"
          + " prove them; 'new' makes one with random keys.")
  String secretDir;
  @Option(names = "--tls-dir", paramLabel = "DIR",
      description = "Folder with tls.crt, tls.key (PKCS#8) and ca.crt: every connection runs TLS 1.3; 'new' makes"
          + " one with openssl.")
  String tlsDir;

  private final PrintStream out;

  LocalCommand(PrintStream out) {
    this.out = out;
  }

  @Override
  public Integer call() throws InterruptedException {
    Checks.range(spec, "--storage-nodes", nodes, 1, 64);
    requireMemory(spec, memory);
    Checks.positive(spec, "--node-ttl", nodeTtl);
    Checks.positive(spec, "--lease-ttl", leaseTtl);
    if (poolId.isBlank()) {
      throw Checks.usage(spec, "--pool-id must not be empty");
    }
    LocalPoolConfig.Builder builder = LocalPool.builder().poolId(poolId).storageNodes(nodes)
        .memoryPerNode(Long.toString(memory)).nodeTtl(Converters.text(nodeTtl))
        .leaseTtl(Converters.text(leaseTtl))
        .storageOption("--huge-pages", hugePages.name().toLowerCase(Locale.ROOT));
    if (secretDir != null) {
      String dir = "new".equals(secretDir) ? LocalSecrets.keys().toString() : secretDir;
      builder.masterOption("--secret-dir", dir).storageOption("--secret-dir", dir);
      out.println("keys in " + dir + " (clients: --key-file " + dir + "/client-key)");
    }
    if (tlsDir != null) {
      String dir = "new".equals(tlsDir) ? LocalSecrets.tls().toString() : tlsDir;
      builder.masterOption("--tls-dir", dir).storageOption("--tls-dir", dir);
      out.println("TLS from " + dir + " (clients: --tls-ca " + dir + "/ca.crt)");
    }
    LocalPoolConfig config = builder.build();
    out.println("starting " + nodes + " storage nodes of " + StatusTable.bytes(memory) + " and a master; logs in "
        + config.logDir());
    // the pool's shutdown hook stops every process on Ctrl-C; this thread only has to wait
    LocalPool pool = config.start();
    ProcessTable.print(pool, out);
    out.println();
    out.println("master " + pool.masterAddress() + "  (admin http://" + pool.adminAddress() + "/status)");
    out.println("try:   ./kvpool put --master " + pool.masterAddress() + " hello --value world");
    out.println("       ./kvpool stat --admin " + pool.adminAddress());
    out.println("Ctrl-C stops the pool.");
    new CountDownLatch(1).await();
    return 0;
  }

  /** Checked here so that a bad size fails at once, not after every storage node refused it. */
  static void requireMemory(CommandSpec spec, long memory) {
    if (memory < MIN_MEMORY) {
      throw Checks.usage(spec, "--memory must be at least 4KiB (" + MIN_MEMORY + " bytes) per storage node, got "
          + memory + " bytes");
    }
  }
}
