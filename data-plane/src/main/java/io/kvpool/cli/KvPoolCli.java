package io.kvpool.cli;

import io.kvpool.bench.BenchmarkFailedException;
import io.kvpool.client.KvPoolException;
import java.io.PrintStream;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The {@code kvpool} command: a local pool for trying the product ({@code demo}, {@code local}), single
 * operations against a pool ({@code put}, {@code get}, {@code rm}, {@code stat}) and {@code bench}.
 * Exit codes: 0 success, 1 the operation failed, 2 the command line is wrong.
 */
public final class KvPoolCli {

  private static final List<Command> COMMANDS = List.of(new DemoCommand(), new LocalCommand(), new PutCommand(),
      new GetCommand(), new RemoveCommand(), new StatCommand(), new BenchCommand());

  private final PrintStream out;
  private final PrintStream err;

  KvPoolCli(PrintStream out, PrintStream err) {
    this.out = out;
    this.err = err;
  }

  public static void main(String[] args) {
    int code = new KvPoolCli(System.out, System.err).run(args);
    System.out.flush();
    System.exit(code);
  }

  int run(String[] args) {
    if (args.length == 0 || List.of("help", "-h", "--help").contains(args[0])) {
      printUsage(args.length == 0 ? err : out);
      return args.length == 0 ? 2 : 0;
    }
    Optional<Command> command = COMMANDS.stream().filter(c -> c.name().equals(args[0])).findFirst();
    if (command.isEmpty()) {
      err.println("kvpool: unknown command '" + args[0] + "'");
      printUsage(err);
      return 2;
    }
    Command c = command.get();
    try {
      List<String> rest = Arrays.asList(args).subList(1, args.length);
      return c.run(CliArguments.parse(c.name(), rest, c.options(), c.flags()), out);
    } catch (UsageException e) {
      err.println("kvpool " + c.name() + ": " + e.getMessage());
      err.println("usage: kvpool " + c.usage());
      return 2;
    } catch (KvPoolException | PoolProcessException | BenchmarkFailedException | AdminApi.AdminApiException
        | DemoCommand.DemoFailedException e) {
      err.println("kvpool " + c.name() + ": " + e.getMessage());
      return 1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      err.println("kvpool " + c.name() + ": interrupted");
      return 1;
    } catch (Exception e) {
      err.println("kvpool " + c.name() + ": failed: " + e);
      e.printStackTrace(err);
      return 1;
    }
  }

  private void printUsage(PrintStream stream) {
    stream.println("usage: kvpool COMMAND [OPTIONS]");
    stream.println();
    for (Command c : COMMANDS) {
      stream.printf(Locale.ROOT, "  %-8s %s%n           kvpool %s%n", c.name(), c.summary(), c.usage());
    }
    stream.println();
    stream.println("Sizes: 4096, 64KiB, 1MiB, 4GiB. Durations: 500ms, 5s, 2m.");
  }
}
