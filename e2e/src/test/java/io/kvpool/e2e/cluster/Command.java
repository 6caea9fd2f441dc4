package io.kvpool.e2e.cluster;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** Runs a program with a deadline and collects its output (standard error merged in). */
public final class Command {
  /** Exit code and output of a finished command. */
  public record Result(int exitCode, String output) {
    public boolean ok() {
      return exitCode == 0;
    }
  }

  private Command() {}

  /**
   * Runs {@code command}; with {@code echo} every line is also written to the suite's log as it
   * comes. A command still running at the deadline is stopped with its child processes, and that is
   * an error.
   */
  public static Result run(
      List<String> command, Map<String, String> env, Duration limit, boolean echo) {
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
    builder.environment().putAll(env);
    Process process;
    try {
      process = builder.start();
    } catch (IOException e) {
      throw new IllegalStateException(
          "cannot start " + String.join(" ", command) + ": " + e.getMessage(), e);
    }
    StringBuilder output = new StringBuilder();
    Thread reader =
        new Thread(
            () -> {
              try (BufferedReader lines =
                  new BufferedReader(
                      new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = lines.readLine()) != null; ) {
                  synchronized (output) {
                    output.append(line).append('\n');
                  }
                  if (echo) {
                    E2eLog.info(line);
                  }
                }
              } catch (IOException ignored) {
                // the process was stopped
              }
            },
            "output of " + Path.of(command.get(0)).getFileName());
    reader.setDaemon(true);
    reader.start();
    try {
      if (!process.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS)) {
        stop(process);
        throw new IllegalStateException(
            String.join(" ", command)
                + " did not finish within "
                + E2eLog.seconds(limit)
                + "; its output:\n"
                + output);
      }
      reader.join(TimeUnit.SECONDS.toMillis(10));
    } catch (InterruptedException e) {
      stop(process);
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while running " + String.join(" ", command), e);
    }
    synchronized (output) {
      return new Result(process.exitValue(), output.toString());
    }
  }

  /** Runs a bash script of the repository with its output in the log; fails when it fails. */
  public static String script(Path script, Duration limit, String... args) {
    List<String> command = new java.util.ArrayList<>(List.of("bash", script.toString()));
    command.addAll(List.of(args));
    Result result = run(command, Map.of(), limit, true);
    if (!result.ok()) {
      throw new IllegalStateException(
          script.getFileName()
              + " failed with exit code "
              + result.exitCode()
              + "; the end of its output:\n"
              + lastLines(result.output(), 40));
    }
    return result.output();
  }

  /** The last {@code count} lines of {@code text}: a failed script's reason is at its end. */
  static String lastLines(String text, int count) {
    List<String> lines = text.lines().toList();
    return String.join("\n", lines.subList(Math.max(0, lines.size() - count), lines.size()));
  }

  private static void stop(Process process) {
    process.descendants().forEach(ProcessHandle::destroy);
    process.destroy();
    try {
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
