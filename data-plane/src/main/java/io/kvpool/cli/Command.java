package io.kvpool.cli;

import java.io.PrintStream;
import java.util.Set;

/** One {@code kvpool} subcommand. */
interface Command {

  String name();

  /** Synopsis, e.g. {@code get --master HOST:PORT KEY [--out FILE]}. */
  String usage();

  /** One sentence for the command list. */
  String summary();

  /** Options that take a value. */
  Set<String> options();

  /** Options that stand alone, such as {@code --all}. */
  default Set<String> flags() {
    return Set.of();
  }

  /** Runs the command; returns the process exit code. */
  int run(CliArguments args, PrintStream out) throws Exception;
}
