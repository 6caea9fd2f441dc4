package io.kvpool.cli;

import java.io.PrintStream;
import picocli.CommandLine;

/**
 * Commands another module adds to {@code kvpool}, found with {@link java.util.ServiceLoader} on the
 * class path (a {@code META-INF/services/io.kvpool.cli.CommandPlugin} entry): the benchmark module
 * ({@code data-plane/bench}) adds {@code kvpool bench} this way, so the product CLI carries no
 * benchmark code and none of its dependencies.
 */
public interface CommandPlugin {

  /**
   * The command to add under {@code kvpool}, with its own subcommands; it prints its results to
   * {@code out}. The {@code kvpool} command line then sets the error handling, option defaults and
   * streams of the whole tree.
   */
  CommandLine command(PrintStream out);
}
