package io.kvpool.cli;

import io.kvpool.client.KvPoolClient;
import java.io.PrintStream;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code kvpool rm}: removes keys, or every object with {@code --all}. */
@Command(
    name = "rm",
    description = "Remove keys, or every object with --all. Exit code 1 when a key was not found.")
final class RemoveCommand implements Callable<Integer> {

  @Spec CommandSpec spec;
  @Mixin MasterOptions master;

  @Parameters(arity = "0..*", paramLabel = "KEY", description = "Keys to remove.")
  List<String> keys = List.of();

  @Option(names = "--all", description = "Remove every object that is not under a read lease.")
  boolean all;

  private final PrintStream out;

  RemoveCommand(PrintStream out) {
    this.out = out;
  }

  @Override
  public Integer call() {
    if (all == !keys.isEmpty()) {
      throw Checks.usage(spec, "give one or more keys, or --all (not both)");
    }
    keys.forEach(key -> Checks.key(spec, key));
    try (KvPoolClient client = master.connect(spec)) {
      if (all) {
        out.println("removed " + client.removeAll() + " objects");
        return 0;
      }
      int missing = 0;
      for (String key : keys) {
        if (client.remove(key)) {
          out.println("removed " + key);
        } else {
          out.println("not found " + key);
          missing++;
        }
      }
      return missing == 0 ? 0 : ErrorReport.FAILED;
    }
  }
}
