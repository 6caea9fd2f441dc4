package io.kvpool.storage;

import io.kvpool.admin.AdminJson;
import io.kvpool.admin.StorageStatus;
import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A storage node in a JVM of its own, started as production starts it: {@code java -cp ...
 * StorageNodeMain} with its command-line options, ready once it printed its {@code KVPOOL_READY}
 * line (registered with its master). Output goes to a log file that a restart appends to, for the
 * failure report.
 */
final class StorageNodeJvm implements AutoCloseable {
  private static final Pattern READY = Pattern.compile("^KVPOOL_READY storage .* admin=(\\S+)");

  private final Process process;
  private final Path log;
  private final String admin;

  private StorageNodeJvm(Process process, Path log, String admin) {
    this.process = process;
    this.log = log;
    this.admin = admin;
  }

  /** Starts {@code StorageNodeMain} with {@code args}; returns once it is registered. */
  static StorageNodeJvm start(List<String> args, Path log, Duration timeout)
      throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(List.of("-Xmx256m", "-XX:+UseSerialGC", "-cp"));
    command.add(System.getProperty("java.class.path"));
    command.add(StorageNodeMain.class.getName());
    command.addAll(args);
    long logStart = Files.exists(log) ? Files.size(log) : 0;
    Process process =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
            .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
            .start();
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      String output = Files.readString(log, StandardCharsets.UTF_8).substring((int) logStart);
      Matcher ready = READY.matcher("");
      for (String line : output.lines().toList()) {
        if (ready.reset(line).find()) {
          return new StorageNodeJvm(process, log, ready.group(1));
        }
      }
      if (!process.isAlive() || System.nanoTime() > deadline) {
        process.destroyForcibly().waitFor();
        throw new IllegalStateException(
            "storage node did not become ready (exit "
                + process.exitValue()
                + "); its log:\n"
                + output);
      }
      Thread.sleep(50); // polling the child's log: the only sign of readiness it gives
    }
  }

  /** The node's {@code /status}, as the operator and the CLI read it. */
  StorageStatus status() throws IOException, InterruptedException {
    HttpResponse<String> reply =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create("http://" + admin + "/status"))
                    .timeout(Duration.ofSeconds(10))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    return AdminJson.read(reply.body(), StorageStatus.class);
  }

  /** SIGKILL: no shutdown hook, no inventory file, writes cut wherever they are. */
  void kill() throws InterruptedException {
    process.destroyForcibly();
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      throw new IllegalStateException("storage node " + process.pid() + " outlived kill -9");
    }
  }

  /** The last lines of the log (of every process of this node so far). */
  String logTail(int lines) {
    try {
      List<String> all = Files.readAllLines(log, StandardCharsets.UTF_8);
      return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
    } catch (IOException e) {
      return "(log " + log + " unreadable: " + e + ")";
    }
  }

  @Override
  public void close() throws InterruptedException {
    if (process.isAlive()) {
      process.destroy();
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        kill();
      }
    }
  }
}
