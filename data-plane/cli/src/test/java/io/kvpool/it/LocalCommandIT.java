package io.kvpool.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvpool.cli.CliRun;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code kvpool local} as a user runs it, a process of its own until it is stopped: authenticated
 * by default with key files only its user can read, the commands it prints to try working as
 * printed, {@code --no-auth} for a pool without keys, and {@code --memory-dir} bringing a stopped
 * pool's values back (warm restarts of its storage nodes).
 */
class LocalCommandIT {
  private static final Duration START = Duration.ofSeconds(180);
  private static final Pattern KEYS =
      Pattern.compile("^keys in (\\S+) \\(clients: --key-file (\\S+);");

  @TempDir Path dir;
  private final List<LocalCommand> started = new ArrayList<>();

  /** One {@code kvpool local} process and what it printed. */
  private static final class LocalCommand {
    private final Process process;
    private final List<String> lines = new CopyOnWriteArrayList<>();
    private final CountDownLatch ready = new CountDownLatch(1);

    LocalCommand(String... args) throws IOException {
      List<String> command =
          new ArrayList<>(
              List.of(
                  Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                  "-Xmx128m",
                  "-cp",
                  System.getProperty("java.class.path"),
                  "io.kvpool.cli.KvPoolCli",
                  "local"));
      command.addAll(Arrays.asList(args));
      process = new ProcessBuilder(command).redirectErrorStream(true).start();
      Thread reader =
          new Thread(
              () -> {
                try (BufferedReader r =
                    new BufferedReader(
                        new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                  for (String line = r.readLine(); line != null; line = r.readLine()) {
                    lines.add(line);
                    if (line.startsWith("Ctrl-C stops the pool")) {
                      ready.countDown();
                    }
                  }
                } catch (IOException ended) {
                  // the process ended; its lines so far are kept
                } finally {
                  ready.countDown();
                }
              },
              "kvpool-local-output");
      reader.setDaemon(true);
      reader.start();
    }

    LocalCommand awaitReady() throws InterruptedException {
      boolean done = ready.await(START.toSeconds(), TimeUnit.SECONDS);
      assertThat(done && lines.stream().anyMatch(l -> l.startsWith("Ctrl-C stops the pool")))
          .as(
              "kvpool local reported a running pool within %s; it printed:%n%s",
              START, String.join("\n", lines))
          .isTrue();
      return this;
    }

    Optional<Matcher> line(Pattern pattern) {
      return lines.stream().map(pattern::matcher).filter(Matcher::find).findFirst();
    }

    /** The commands printed to try, as the arguments after {@code ./kvpool}. */
    List<String[]> hints() {
      List<String[]> out = new ArrayList<>();
      boolean inHints = false;
      for (String line : lines) {
        inHints |= line.startsWith("try:");
        if (inHints && line.contains("./kvpool ")) {
          out.add(
              line.substring(line.indexOf("./kvpool ") + "./kvpool ".length()).strip().split(" +"));
        }
      }
      return out;
    }

    /**
     * Ctrl-C: SIGTERM to the command, whose shutdown hook stops every process of the pool
     * (cleanly).
     */
    void stop() throws InterruptedException {
      List<ProcessHandle> children = process.descendants().toList();
      process.destroy();
      boolean exited = process.waitFor(90, TimeUnit.SECONDS);
      for (ProcessHandle child : children) {
        child.onExit().completeOnTimeout(null, 30, TimeUnit.SECONDS).join();
        child
            .destroyForcibly(); // only if the pool's hook failed to stop it: never leave one behind
      }
      if (!exited) {
        process.destroyForcibly();
      }
      assertThat(exited)
          .as("kvpool local exited on SIGTERM; it printed:%n%s", String.join("\n", lines))
          .isTrue();
    }

    String output() {
      return String.join("\n", lines);
    }
  }

  private LocalCommand start(String... args) throws Exception {
    LocalCommand c = new LocalCommand(args);
    started.add(c);
    return c.awaitReady();
  }

  @AfterEach
  void stopAll() throws InterruptedException {
    for (LocalCommand c : started) {
      if (c.process.isAlive()) {
        c.stop();
      }
    }
  }

  private static CliRun run(String... args) {
    return CliRun.of(args);
  }

  @Test
  void authenticatedByDefaultWithPrivateKeyFilesAndHintsThatWorkAsPrinted() throws Exception {
    LocalCommand pool = start("--storage-nodes", "2", "--memory", "16MiB");

    Matcher keys =
        pool.line(KEYS)
            .orElseThrow(() -> new AssertionError("no 'keys in' line:\n" + pool.output()));
    Path keyDir = Path.of(keys.group(1));
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(keyDir)))
        .isEqualTo("rwx------");
    for (String name : List.of("cluster-key", "client-key", "admin-token")) {
      assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(keyDir.resolve(name))))
          .as(name)
          .isEqualTo("rw-------");
    }
    assertThat(keys.group(2)).isEqualTo(keyDir.resolve("client-key").toString());

    List<String[]> hints = pool.hints();
    assertThat(hints).as("hints printed:%n%s", pool.output()).hasSize(3);
    assertThat(hints.get(0)).contains("put", "--key-file", keyDir.resolve("client-key").toString());
    CliRun put = run(hints.get(0));
    assertThat(put.code()).as("%s%n%s", String.join(" ", hints.get(0)), put.err()).isZero();
    assertThat(put.out()).contains("stored hello");
    CliRun get = run(hints.get(1));
    assertThat(get.code()).as("%s%n%s", String.join(" ", hints.get(1)), get.err()).isZero();
    assertThat(get.out()).isEqualTo("world");
    CliRun stat = run(hints.get(2));
    assertThat(stat.code()).as("%s%n%s", String.join(" ", hints.get(2)), stat.err()).isZero();
    assertThat(stat.out()).contains("node-1", "node-2");

    String master = hints.get(0)[Arrays.asList(hints.get(0)).indexOf("--master") + 1];
    run("put", "--master", master, "unauthenticated", "--value", "x", "--timeout", "5s")
        .failedWith(1, "kvpool put:", "requires authentication", "--key-file");
  }

  @Test
  void noAuthRunsWithoutKeysAndAMemoryDirBringsAStoppedPoolsValuesBack() throws Exception {
    Path memory = dir.resolve("memory");
    String[] args = {
      "--no-auth", "--storage-nodes", "1", "--memory", "16MiB", "--memory-dir", memory.toString()
    };
    LocalCommand first = start(args);
    assertThat(first.line(KEYS)).as("a keys line of a --no-auth pool").isEmpty();
    List<String[]> hints = first.hints();
    assertThat(String.join(" ", hints.get(0)))
        .doesNotContain("--key-file")
        .contains("--replicas 1");
    CliRun put = run(hints.get(0));
    assertThat(put.code()).as("%s%n%s", String.join(" ", hints.get(0)), put.err()).isZero();
    first.stop();
    assertThat(memory.resolve("node-1")).as("the node's memory files").isDirectory();

    LocalCommand second = start(args);
    CliRun get = run(second.hints().get(1));
    assertThat(get.code())
        .as("the value after the restart: %s%n%s", get.err(), second.output())
        .isZero();
    assertThat(get.out()).isEqualTo("world");
  }
}
