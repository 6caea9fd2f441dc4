package io.kvpool.cli;

import java.io.File;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * One data-plane JVM of a local pool. Its stdout and stderr go straight to a log file (the OS
 * writes them, so a slow or busy parent never blocks the child), and readiness is the KVPOOL_READY
 * line in it.
 */
public final class PoolProcess {

  private static final Duration POLL = Duration.ofMillis(20);
  private static final Duration GRACEFUL_STOP = Duration.ofSeconds(5);

  private final String name;
  private final Process process;
  private final Path logFile;

  /**
   * Where this process's lines start in the log: a restarted process appends to its predecessor's
   * log.
   */
  private final long logStart;

  private PoolProcess(String name, Process process, Path logFile, long logStart) {
    this.name = name;
    this.process = process;
    this.logFile = logFile;
    this.logStart = logStart;
  }

  /**
   * Starts a process whose output goes to {@code logFile}; a log left by an earlier process of the
   * same role (a restart) is kept and appended to, so that what happened before the restart can
   * still be read.
   */
  static PoolProcess launch(
      String name, List<String> command, Map<String, String> env, Path logFile) {
    try {
      long logStart = Files.exists(logFile) ? Files.size(logFile) : 0;
      Files.writeString(
          logFile,
          "# " + String.join(" ", command) + System.lineSeparator(),
          StandardOpenOption.CREATE,
          StandardOpenOption.APPEND);
      ProcessBuilder builder = new ProcessBuilder(command);
      builder.environment().putAll(env);
      Process process =
          builder
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()))
              .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
              .start();
      return new PoolProcess(name, process, logFile, logStart);
    } catch (IOException e) {
      throw new PoolProcessException(
          "cannot start " + name + " with command " + command + ": " + e.getMessage(), e);
    }
  }

  /** Waits for the ready line; fails fast when the process exits first. */
  ReadyLine awaitReady(Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      Optional<ReadyLine> ready =
          readLog().lines().map(ReadyLine::parse).flatMap(Optional::stream).findFirst();
      if (ready.isPresent()) {
        return ready.get();
      }
      if (!process.isAlive()) {
        throw new PoolProcessException(
            name
                + " exited with code "
                + process.exitValue()
                + " before printing "
                + ReadyLine.MARKER
                + lastLogLine()
                + " (log "
                + logFile
                + ")",
            "last log lines:\n" + logTail(30));
      }
      if (System.nanoTime() > deadline) {
        throw new PoolProcessException(
            name
                + " did not print "
                + ReadyLine.MARKER
                + " within "
                + timeout
                + lastLogLine()
                + " (log "
                + logFile
                + ")",
            "last log lines:\n" + logTail(30));
      }
      sleep(POLL);
    }
  }

  public String name() {
    return name;
  }

  public long pid() {
    return process.pid();
  }

  /** The OS process, e.g. to read its CPU time. */
  public ProcessHandle handle() {
    return process.toHandle();
  }

  public boolean isAlive() {
    return process.isAlive();
  }

  public Path logFile() {
    return logFile;
  }

  /** The exit code, or empty while the process runs. */
  public Optional<Integer> exitCode() {
    return process.isAlive() ? Optional.empty() : Optional.of(process.exitValue());
  }

  /** SIGKILL, as a crashed machine would: no shutdown hooks, no goodbye to the master. */
  public void kill() {
    process.destroyForcibly();
    awaitExit(GRACEFUL_STOP);
  }

  /**
   * SIGSTOP: the process stays, silent (a hung or partitioned node); {@link #resume} continues it.
   */
  public void suspend() {
    signal("STOP");
  }

  /** SIGCONT after {@link #suspend}. */
  public void resume() {
    signal("CONT");
  }

  private void signal(String name) {
    try {
      Process kill =
          new ProcessBuilder("kill", "-" + name, Long.toString(process.pid())).inheritIO().start();
      if (kill.waitFor() != 0) {
        throw new PoolProcessException("kill -" + name + " " + process.pid() + " failed");
      }
    } catch (IOException e) {
      throw new PoolProcessException(
          "cannot send SIG" + name + " to " + this + ": " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new PoolProcessException("interrupted while signalling " + this, e);
    }
  }

  /** Asks for a clean shutdown (SIGTERM), then kills after a grace period. */
  public void stop() {
    if (!process.isAlive()) {
      return;
    }
    process.destroy();
    if (!awaitExit(GRACEFUL_STOP)) {
      kill();
    }
  }

  void requestStop() {
    process.destroy();
  }

  boolean awaitExit(Duration timeout) {
    try {
      return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
      return false;
    }
  }

  /** The last lines of the process log, for error messages and failed tests. */
  public String logTail(int lines) {
    String log = readTail(64 * 1024);
    List<String> all = log.lines().toList();
    return String.join(
        System.lineSeparator(), all.subList(Math.max(0, all.size() - lines), all.size()));
  }

  /**
   * {@code ": <the last log line>"}, e.g. the process's own error message, or empty for an empty
   * log.
   */
  private String lastLogLine() {
    List<String> lines =
        logTail(5).lines().filter(l -> !l.isBlank() && !l.startsWith("# ")).toList();
    return lines.isEmpty() ? "" : ": " + lines.get(lines.size() - 1).strip();
  }

  /** This process's part of the log. */
  private String readLog() {
    try (RandomAccessFile file = new RandomAccessFile(logFile.toFile(), "r")) {
      byte[] bytes = new byte[(int) Math.max(0, file.length() - logStart)];
      file.seek(logStart);
      file.readFully(bytes);
      return new String(bytes, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new PoolProcessException(
          "cannot read log of " + name + " at " + logFile + ": " + e.getMessage(), e);
    }
  }

  private String readTail(int maxBytes) {
    try (RandomAccessFile file = new RandomAccessFile(logFile.toFile(), "r")) {
      long start = Math.max(0, file.length() - maxBytes);
      byte[] bytes = new byte[(int) (file.length() - start)];
      file.seek(start);
      file.readFully(bytes);
      return new String(bytes, StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "(log " + logFile + " unreadable: " + e.getMessage() + ")";
    }
  }

  private static void sleep(Duration duration) {
    try {
      Thread.sleep(duration.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new PoolProcessException(
          "interrupted while waiting for a pool process to become ready", e);
    }
  }

  @Override
  public String toString() {
    return name + "(pid=" + process.pid() + (process.isAlive() ? "" : ", exited") + ")";
  }
}
