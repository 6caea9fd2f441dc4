package io.kvpool.cli;

import java.io.PrintStream;
import java.util.Set;
import java.util.concurrent.CountDownLatch;

/** {@code kvpool local}: runs a pool on this machine until Ctrl-C. */
final class LocalCommand implements Command {

  static final Set<String> HUGE_PAGES = Set.of("none", "transparent", "explicit");

  @Override
  public String name() {
    return "local";
  }

  @Override
  public String usage() {
    return "local [--storage-nodes 3] [--memory 256MiB] [--huge-pages none|transparent|explicit] [--node-ttl 10s] "
        + "[--pool-id local]";
  }

  @Override
  public String summary() {
    return "run a master and storage nodes as local processes until Ctrl-C";
  }

  @Override
  public Set<String> options() {
    return Set.of("storage-nodes", "memory", "huge-pages", "node-ttl", "pool-id");
  }

  @Override
  public int run(CliArguments args, PrintStream out) throws InterruptedException {
    args.positionals();
    int nodes = args.integer("storage-nodes", 3, 1, 64);
    long memory = args.size("memory", "256MiB");
    args.duration("node-ttl", "10s");
    LocalPoolConfig config = LocalPool.builder().poolId(args.option("pool-id", "local")).storageNodes(nodes)
        .memoryPerNode(Long.toString(memory)).nodeTtl(args.option("node-ttl", "10s"))
        .storageOption("--huge-pages", args.choice("huge-pages", "none", HUGE_PAGES)).build();
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
}
