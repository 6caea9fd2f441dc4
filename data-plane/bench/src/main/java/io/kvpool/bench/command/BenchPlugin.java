package io.kvpool.bench.command;

import io.kvpool.cli.CommandPlugin;
import java.io.PrintStream;
import picocli.CommandLine;

/**
 * Adds {@code kvpool bench} and its subcommands ({@code failover}, {@code chaos}, {@code compare},
 * {@code master-capacity}, {@code ramp}) to the {@code kvpool} command when this module is on the
 * class path (registered in {@code META-INF/services/io.kvpool.cli.CommandPlugin}).
 */
public final class BenchPlugin implements CommandPlugin {

  @Override
  public CommandLine command(PrintStream out) {
    return new CommandLine(new BenchCommand(out))
        .addSubcommand(new FailoverBenchCommand(out))
        .addSubcommand(new ChaosCommand(out))
        .addSubcommand(new CompareCommand(out))
        .addSubcommand(new MasterCapacityCommand(out))
        .addSubcommand(new RampBenchCommand(out));
  }
}
