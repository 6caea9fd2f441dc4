package io.kvpool.cli;

import io.kvpool.master.VersionLine;
import io.kvpool.process.Addresses;
import io.kvpool.process.ProcessConfig;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.Charset;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.Spec;

/**
 * The {@code kvpool} command: a local pool for trying the product ({@code demo}, {@code local}),
 * single operations against a pool ({@code put}, {@code get}, {@code rm}, {@code stat}), and the
 * commands of modules on the class path that implement {@link CommandPlugin} ({@code bench}, from
 * {@code data-plane/bench}). Exit codes: 0 success, 1 the operation failed, 2 the command line is
 * wrong; every error is one line on stderr (see {@link ErrorReport}). Options that name an
 * environment variable ({@code --master}: {@code KVPOOL_MASTER_ADDRESS}) take their default from
 * it, as the data-plane mains do ({@link ProcessConfig}).
 */
@Command(
    name = "kvpool",
    scope = ScopeType.INHERIT,
    mixinStandardHelpOptions = true,
    versionProvider = VersionLine.class,
    sortOptions = false,
    usageHelpAutoWidth = true,
    description =
        "kvpool: a KV-cache pool for LLM inference. Run a local pool, store and read values, measure.",
    footer = {
      "",
      "Sizes: 4096, 64KiB, 1MiB, 4GiB. Durations: 500ms, 5s, 2m.",
      "Exit codes: 0 success, 1 the operation failed, 2 the command line is wrong.",
      "'kvpool COMMAND --help' lists a command's options."
    })
public final class KvPoolCli implements Callable<Integer> {
  /** Set (to anything) to print the stack trace of an error the CLI did not expect. */
  static final String DEBUG_ENV = "KVPOOL_DEBUG";

  @Spec CommandSpec spec;

  private final PrintStream out;
  private final PrintStream err;
  private final Map<String, String> env;

  public KvPoolCli(PrintStream out, PrintStream err) {
    this(out, err, System.getenv());
  }

  /** With {@code env} instead of the process environment (tests). */
  public KvPoolCli(PrintStream out, PrintStream err, Map<String, String> env) {
    this.out = out;
    this.err = err;
    this.env = Map.copyOf(env);
  }

  public static void main(String[] args) {
    quietLibraryLogs();
    Addresses.followMovingNames();
    int code = new KvPoolCli(System.out, System.err).run(args);
    System.out.flush();
    System.exit(code);
  }

  /** Runs one command line; returns the exit code. */
  public int run(String... args) {
    return commandLine().execute(args);
  }

  /**
   * The whole command tree, with the plugins' commands; for running it and for reading its options
   * (tests).
   */
  public CommandLine commandLine() {
    CommandLine cl = new CommandLine(this);
    cl.addSubcommand(new DemoCommand(out));
    cl.addSubcommand(new LocalCommand(out));
    cl.addSubcommand(new PutCommand(out));
    cl.addSubcommand(new GetCommand(out, err));
    cl.addSubcommand(new RemoveCommand(out));
    cl.addSubcommand(new StatCommand(out));
    plugins().forEach(plugin -> cl.addSubcommand(plugin.command(out)));
    cl.addSubcommand(new CommandLine.HelpCommand());
    ErrorReport errors = new ErrorReport(env.containsKey(DEBUG_ENV));
    cl.setOut(writer(out));
    cl.setErr(writer(err));
    cl.setDefaultValueProvider(new ProcessConfig(env));
    cl.setCaseInsensitiveEnumValuesAllowed(true);
    cl.setParameterExceptionHandler(errors);
    cl.setExecutionExceptionHandler(errors);
    return cl;
  }

  /**
   * The commands of other modules on the class path ({@code bench}), by class name: the same order
   * on every run.
   */
  private static List<CommandPlugin> plugins() {
    return ServiceLoader.load(CommandPlugin.class).stream()
        .map(ServiceLoader.Provider::get)
        .sorted(Comparator.comparing(p -> p.getClass().getName()))
        .toList();
  }

  private static PrintWriter writer(PrintStream stream) {
    return new PrintWriter(new OutputStreamWriter(stream, Charset.defaultCharset()), true);
  }

  /** No command: the list of commands, on stderr, as a usage error. */
  @Override
  public Integer call() {
    PrintWriter errors = spec.commandLine().getErr();
    errors.print(spec.commandLine().getUsageMessage());
    errors.flush();
    return ErrorReport.USAGE;
  }

  /**
   * Libraries the CLI runs in-process (the Kubernetes client, the test API server of {@code bench
   * failover}) log at INFO to stderr; a command's output is its own lines. {@code
   * -Dorg.slf4j.simpleLogger.defaultLogLevel=info} (in {@code KVPOOL_JAVA_OPTS}) brings their logs
   * back.
   */
  private static void quietLibraryLogs() {
    if (System.getProperty("org.slf4j.simpleLogger.defaultLogLevel") == null) {
      System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
      // the Kubernetes client's event loop warns when a busy machine delays it; that is no error of
      // the command
      System.setProperty("org.slf4j.simpleLogger.log.io.vertx", "error");
    }
  }
}
