package io.kvpool.cli;

import io.kvpool.client.KvPoolClient;
import io.kvpool.client.PoolStats;
import io.kvpool.common.HostPort;
import java.io.PrintStream;
import java.util.Optional;
import java.util.Set;

/**
 * {@code kvpool stat}: the per-node status table from the master's admin API; with only
 * {@code --master}, the pool totals the RPC {@code Stats} call returns.
 */
final class StatCommand implements Command {

  @Override
  public String name() {
    return "stat";
  }

  @Override
  public String usage() {
    return "stat (--admin HOST:PORT | --master HOST:PORT)";
  }

  @Override
  public String summary() {
    return "print the pool's nodes, capacity, usage and counters";
  }

  @Override
  public Set<String> options() {
    return Set.of("admin", "master");
  }

  @Override
  public int run(CliArguments args, PrintStream out) {
    args.positionals();
    Optional<HostPort> admin = args.endpoint("admin");
    if (admin.isPresent()) {
      out.print(StatusTable.render(new AdminApi(admin.get()).status()));
      return 0;
    }
    try (KvPoolClient client = ClientCommands.connect(args)) {
      PoolStats stats = client.stats();
      out.println(StatusTable.summary(stats));
      out.println("(per-node details: kvpool stat --admin HOST:PORT, the master's admin address)");
    }
    return 0;
  }
}
