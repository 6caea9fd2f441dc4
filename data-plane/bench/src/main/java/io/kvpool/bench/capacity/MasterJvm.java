package io.kvpool.bench.capacity;

import io.kvpool.bench.BenchmarkFailedException;
import io.kvpool.cli.ReadyLine;
import io.kvpool.common.HostPort;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One real master process ({@code io.kvpool.master.MasterMain}, without election: it leads at once)
 * in a JVM of the heap the bench chose. Its output goes to a log file through this process, which
 * reads its ready line from the stream as it comes.
 */
final class MasterJvm implements AutoCloseable {
  static final String POOL_ID = "capacity";
  private static final Duration READY_TIMEOUT = Duration.ofMinutes(2);

  private final Process process;
  private final Path log;
  private final HostPort rpc;
  private final Thread reaper;

  private MasterJvm(Process process, Path log, HostPort rpc, Thread reaper) {
    this.process = process;
    this.log = log;
    this.rpc = rpc;
    this.reaper = reaper;
  }

  /**
   * Starts a master with {@code -Xmx heap}; returns once it serves. The node TTL is long enough for
   * heartbeats to survive full collections of a heap of many gigabytes.
   */
  static MasterJvm start(String heap, Path log) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(
        List.of(
            "-Xmx" + heap,
            "-XX:+UseG1GC",
            "-XX:+ExitOnOutOfMemoryError",
            "-cp",
            System.getProperty("java.class.path"),
            "io.kvpool.master.MasterMain",
            "--pool-id",
            POOL_ID,
            "--host",
            "127.0.0.1",
            "--advertise-host",
            "127.0.0.1",
            "--port",
            "0",
            "--admin-port",
            "0",
            "--node-ttl",
            "60s"));
    Process p;
    try {
      p = new ProcessBuilder(command).redirectErrorStream(true).start();
    } catch (IOException e) {
      throw new BenchmarkFailedException("cannot start a master: " + e.getMessage(), e);
    }
    // a bench stopped with Ctrl-C (or a test JVM ending) leaves no master behind
    Thread reaper = new Thread(p::destroyForcibly, "master-reaper-" + p.pid());
    Runtime.getRuntime().addShutdownHook(reaper);
    CompletableFuture<HostPort> ready = new CompletableFuture<>();
    Thread pump = new Thread(() -> pump(p, log, ready), "master-log-" + p.pid());
    pump.setDaemon(true);
    pump.start();
    try {
      return new MasterJvm(p, log, ready.get(READY_TIMEOUT.toSeconds(), TimeUnit.SECONDS), reaper);
    } catch (ExecutionException | TimeoutException e) {
      p.destroyForcibly();
      throw new BenchmarkFailedException(
          "the master did not print its ready line within "
              + READY_TIMEOUT.toSeconds()
              + " s ("
              + (e.getCause() == null ? e : e.getCause().getMessage())
              + "; log "
              + log
              + ")",
          e);
    } catch (InterruptedException e) {
      p.destroyForcibly();
      Thread.currentThread().interrupt();
      throw new BenchmarkFailedException("interrupted while a master started", e);
    }
  }

  /** Copies the child's output to its log; completes {@code ready} with its RPC endpoint. */
  private static void pump(Process p, Path log, CompletableFuture<HostPort> ready) {
    try (BufferedReader in =
            new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        Writer out = Files.newBufferedWriter(log, StandardCharsets.UTF_8)) {
      String line;
      while ((line = in.readLine()) != null) {
        out.write(line);
        out.write('\n');
        out.flush();
        if (!ready.isDone()) {
          ReadyLine.parse(line).ifPresent(r -> ready.complete(HostPort.parse(r.require("rpc"))));
        }
      }
      ready.completeExceptionally(
          new IOException("the master exited before it served (exit code " + p.waitFor() + ")"));
    } catch (IOException e) {
      ready.completeExceptionally(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      ready.completeExceptionally(e);
    }
  }

  HostPort rpc() {
    return rpc;
  }

  long pid() {
    return process.pid();
  }

  Path log() {
    return log;
  }

  boolean isAlive() {
    return process.isAlive();
  }

  /** CPU time the master process used so far (user + system, all its threads). */
  Duration cpu() {
    return process
        .toHandle()
        .info()
        .totalCpuDuration()
        .orElseThrow(
            () -> new BenchmarkFailedException("the OS does not report the master's CPU time"));
  }

  /** SIGKILL, as a crashed pod: nothing is handed over. */
  void kill() {
    process.destroyForcibly();
    try {
      Runtime.getRuntime().removeShutdownHook(reaper);
    } catch (IllegalStateException shuttingDown) {
      // the hook runs anyway, on a process already gone
    }
    try {
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        throw new BenchmarkFailedException("master " + process.pid() + " survived SIGKILL");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new BenchmarkFailedException("interrupted while killing a master", e);
    }
  }

  @Override
  public void close() {
    if (process.isAlive()) {
      kill();
    }
  }
}
