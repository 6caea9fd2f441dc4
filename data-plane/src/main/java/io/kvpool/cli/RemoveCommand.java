package io.kvpool.cli;

import io.kvpool.client.KvPoolClient;
import java.io.PrintStream;
import java.util.List;
import java.util.Set;

/** {@code kvpool rm}: removes keys, or every object with {@code --all}. */
final class RemoveCommand implements Command {

  @Override
  public String name() {
    return "rm";
  }

  @Override
  public String usage() {
    return "rm --master HOST:PORT (KEY... | --all)";
  }

  @Override
  public String summary() {
    return "remove keys, or every object with --all";
  }

  @Override
  public Set<String> options() {
    return Set.of("master");
  }

  @Override
  public Set<String> flags() {
    return Set.of("all");
  }

  @Override
  public int run(CliArguments args, PrintStream out) {
    List<String> keys = args.positionalList();
    if (args.flag("all") == !keys.isEmpty()) {
      throw new UsageException("give one or more keys, or --all (not both)");
    }
    try (KvPoolClient client = ClientCommands.connect(args)) {
      if (args.flag("all")) {
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
      return missing == 0 ? 0 : 1;
    }
  }
}
