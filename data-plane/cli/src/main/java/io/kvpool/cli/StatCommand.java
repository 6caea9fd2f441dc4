package io.kvpool.cli;

import io.kvpool.client.KvPoolClient;
import io.kvpool.client.PoolStats;
import io.kvpool.common.HostPort;
import java.io.PrintStream;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code kvpool stat}: the per-node status table from the master's admin API; with only {@code
 * --master}, the pool totals the RPC {@code Stats} call returns.
 */
@Command(name = "stat", description = "Print the pool's nodes, capacity, usage and counters.")
final class StatCommand implements Callable<Integer> {
  static final String ADMIN_ENV = "KVPOOL_MASTER_ADMIN_ADDRESS";

  @Spec CommandSpec spec;
  @Mixin MasterOptions master;

  @Option(
      names = "--admin",
      paramLabel = "HOST:PORT",
      converter = Converters.Endpoint.class,
      descriptionKey = ADMIN_ENV,
      description =
          "The master's admin HTTP address: prints the per-node table. "
              + "Default: the environment variable "
              + ADMIN_ENV
              + " (from the pool's <pool>-client ConfigMap).")
  HostPort admin;

  private final PrintStream out;

  StatCommand(PrintStream out) {
    this.out = out;
  }

  @Override
  public Integer call() {
    if (admin != null) {
      out.print(StatusTable.render(new AdminApi(admin).masterStatus()));
      return 0;
    }
    if (master.master == null || master.master.isBlank()) {
      throw Checks.usage(
          spec,
          "needs --admin HOST:PORT (the per-node table) or --master HOST:PORT (pool totals),"
              + " or the environment variable "
              + ADMIN_ENV
              + " or "
              + MasterOptions.ENV);
    }
    try (KvPoolClient client = master.connect(spec)) {
      PoolStats stats = client.stats();
      out.println(StatusTable.summary(stats));
      out.println("(per-node details: kvpool stat --admin HOST:PORT, the master's admin address)");
    }
    return 0;
  }
}
