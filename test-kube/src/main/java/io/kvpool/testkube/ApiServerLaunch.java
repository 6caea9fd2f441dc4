package io.kvpool.testkube;

import io.fabric8.kubeapitest.KubeAPIServer;
import io.fabric8.kubeapitest.KubeAPIServerConfigBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.function.IntFunction;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one way the project starts kube-api-test's kube-apiserver + etcd, with retries: kube-api-test
 * picks free ports by opening and closing a socket, so on a busy machine another program can take a
 * port before the server binds it, and the server exits at once. Each attempt runs in a working
 * folder of its own (certificates, kubeconfig, the binaries behind small wrappers that write each
 * process's own output to a file there and its pid next to it); an attempt whose etcd or
 * kube-apiserver exits before the start completed is given up at once (not after kube-api-test's
 * whole startup timeout), its processes' output is logged, and the next attempt picks new ports.
 */
final class ApiServerLaunch {
  /**
   * Attempts of a start: a lost port race is rare; three in a row means something else is wrong.
   */
  static final int ATTEMPTS = 3;

  private static final int OUTPUT_LINES = 40;
  private static final long WATCH_MILLIS = 100;
  private static final Logger LOG = LoggerFactory.getLogger(ApiServerLaunch.class);
  private static final List<String> WRAPPED = List.of("etcd", "kube-apiserver");

  /** An attempt that failed: why, and the last lines its etcd and kube-apiserver wrote. */
  record FailedAttempt(int attempt, String reason, String output) {}

  /**
   * A started server, its working folder (delete it after stopping the server) and the attempts
   * before it.
   */
  record Launched(KubeAPIServer server, Path workDir, List<FailedAttempt> failures) {}

  private ApiServerLaunch() {}

  /**
   * Starts a server from {@code binaries} within {@code attempts} attempts; {@code extraFlags}
   * gives kube-apiserver flags per attempt (1-based; tests use them to make an attempt fail).
   * Throws {@link KubeTestSetupException} with every attempt's reason and output when none started.
   */
  static Launched start(KubeBinaries binaries, int attempts, IntFunction<List<String>> extraFlags) {
    List<FailedAttempt> failures = new ArrayList<>();
    for (int attempt = 1; attempt <= attempts; attempt++) {
      Duration timeout = readinessTimeout();
      Path workDir = workDirFor(binaries);
      KubeAPIServer server =
          new KubeAPIServer(
              KubeAPIServerConfigBuilder.anAPIServerConfig()
                  .withTestDir(workDir.toString())
                  .withApiServerVersion(binaries.version())
                  .withOfflineMode(true)
                  .withUpdateKubeConfig(false)
                  .withWaitForEtcdHealthCheckOnStartup(true)
                  .withStartupTimeout((int) timeout.toMillis())
                  // all addresses: pods of the test kubelet reach it from their own network
                  // namespaces
                  .withApiServerFlag("--bind-address", "0.0.0.0")
                  .withApiServerFlags(extraFlags.apply(attempt))
                  .build());
      String reason;
      try (ExitWatch watch = new ExitWatch(workDir, Thread.currentThread())) {
        RuntimeException failure = null;
        try {
          server.start();
        } catch (RuntimeException e) {
          failure = e;
        }
        boolean ended = watch.stop();
        if (failure == null && !ended) {
          return new Launched(server, workDir, List.copyOf(failures));
        }
        reason =
            !ended
                ? failure.getMessage()
                : "etcd or kube-apiserver ended during the start"
                    + " (kube-api-test then stops the other: their output below says which one failed)";
      }
      stopQuietly(server);
      FailedAttempt failed = new FailedAttempt(attempt, reason, output(workDir));
      failures.add(failed);
      LOG.warn(
          "kube-apiserver start attempt {}/{} failed: {}{}{}",
          attempt,
          attempts,
          reason,
          attempt < attempts ? " (trying again with new ports)" : "",
          failed.output());
      deleteTree(workDir);
    }
    StringBuilder message =
        new StringBuilder(
            "kube-apiserver "
                + binaries.version()
                + " from "
                + binaries.binaryDir()
                + " did not start in "
                + attempts
                + " attempts (re-run 'bash "
                + KubeBinaries.BINARIES_SCRIPT
                + "' if the binaries are broken):");
    for (FailedAttempt f : failures) {
      message
          .append("\n--- attempt ")
          .append(f.attempt())
          .append(": ")
          .append(f.reason())
          .append(f.output());
    }
    throw new KubeTestSetupException(message.toString());
  }

  /**
   * The startup timeout of an attempt beginning now; near midnight, after waiting for it to pass
   * (see {@link ReadinessTimeout}).
   */
  private static Duration readinessTimeout() {
    Duration delay = ReadinessTimeout.delayBeforeStart(LocalTime.now());
    if (!delay.isZero()) {
      LOG.info(
          "waiting {} ms for midnight to pass before starting kube-apiserver", delay.toMillis());
      try {
        Thread.sleep(delay.toMillis()); // a wait for the wall clock itself, not for another process
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new KubeTestSetupException("Interrupted while waiting for midnight to pass", e);
      }
    }
    return ReadinessTimeout.of(LocalTime.now());
  }

  /**
   * A new working folder whose {@code k8s/<version>-linux-amd64} holds kubectl (a link) and
   * wrappers of etcd and kube-apiserver that record their pid and send their output to {@code
   * <name>.log} in the folder ({@code exec}: the process kube-api-test holds and stops is the
   * binary itself).
   */
  private static Path workDirFor(KubeBinaries binaries) {
    try {
      Path workDir = Files.createTempDirectory("kvpool-kube-api-");
      Path versionDir = workDir.resolve("k8s").resolve(binaries.binaryDir().getFileName());
      Files.createDirectories(versionDir);
      Files.createSymbolicLink(
          versionDir.resolve("kubectl"), binaries.binaryDir().resolve("kubectl"));
      for (String name : WRAPPED) {
        Path wrapper = versionDir.resolve(name);
        Files.writeString(
            wrapper,
            "#!/bin/sh\necho $$ > "
                + quoted(workDir.resolve(name + ".pid"))
                + "\nexec "
                + quoted(binaries.binaryDir().resolve(name))
                + " \"$@\" >> "
                + quoted(workDir.resolve(name + ".log"))
                + " 2>&1\n",
            StandardCharsets.UTF_8);
        Files.setPosixFilePermissions(wrapper, PosixFilePermissions.fromString("rwx------"));
      }
      return workDir;
    } catch (IOException e) {
      throw new KubeTestSetupException(
          "Cannot prepare a working folder for kube-api-test under "
              + System.getProperty("java.io.tmpdir")
              + ": "
              + e.getMessage(),
          e);
    }
  }

  private static String quoted(Path path) {
    return "'" + path.toString().replace("'", "'\\''") + "'";
  }

  /** The last lines etcd and kube-apiserver of this folder wrote, each under its name. */
  static String output(Path workDir) {
    StringBuilder out = new StringBuilder();
    for (String name : WRAPPED) {
      Path log = workDir.resolve(name + ".log");
      out.append("\n----- ")
          .append(name)
          .append(" output (last ")
          .append(OUTPUT_LINES)
          .append(" lines) -----\n");
      try {
        List<String> lines =
            Files.exists(log) ? Files.readAllLines(log, StandardCharsets.UTF_8) : List.of();
        if (lines.isEmpty()) {
          out.append("(none: it did not start, or wrote nothing)\n");
        }
        lines
            .subList(Math.max(0, lines.size() - OUTPUT_LINES), lines.size())
            .forEach(line -> out.append(line).append('\n'));
      } catch (IOException | UncheckedIOException e) {
        out.append("(cannot read ").append(log).append(": ").append(e.getMessage()).append(")\n");
      }
    }
    return out.toString();
  }

  private static void stopQuietly(KubeAPIServer server) {
    try {
      server.stop();
    } catch (RuntimeException e) {
      LOG.debug("stopping a failed kube-apiserver start: {}", e.toString());
    }
  }

  static void deleteTree(Path root) {
    try (Stream<Path> paths = Files.walk(root)) {
      // Files.walk does not follow the kubectl link, so only the link itself is deleted.
      for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(path);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot delete the kube-api-test working folder " + root, e);
    }
  }

  /**
   * Watches one attempt's etcd and kube-apiserver (children of this JVM, by the pids their wrappers
   * wrote) while it starts, and interrupts the starting thread when one exits: kube-api-test would
   * otherwise poll a dead server until its startup timeout.
   */
  private static final class ExitWatch implements AutoCloseable {
    private final Path workDir;
    private final Thread starter;
    private final Thread watcher;
    private boolean ended;
    private boolean stopped;

    ExitWatch(Path workDir, Thread starter) {
      this.workDir = workDir;
      this.starter = starter;
      this.watcher = new Thread(this::watch, "kube-apiserver-start-watch");
      watcher.setDaemon(true);
      watcher.start();
    }

    /** Finds each process by its pid file (written as it starts) and follows its exit. */
    private void watch() {
      List<String> found = new ArrayList<>();
      while (found.size() < WRAPPED.size()) {
        for (String name : WRAPPED) {
          if (!found.contains(name)) {
            pid(name)
                .flatMap(ProcessHandle::of)
                .ifPresent(
                    p -> {
                      found.add(name);
                      p.onExit().thenRun(this::ended);
                    });
          }
        }
        try {
          Thread.sleep(WATCH_MILLIS); // until the wrappers wrote their pids: no event to wait on
        } catch (InterruptedException stop) {
          return;
        }
      }
    }

    private synchronized void ended() {
      if (!stopped && !ended) {
        ended = true;
        starter.interrupt();
      }
    }

    private Optional<Long> pid(String name) {
      try {
        String text = Files.readString(workDir.resolve(name + ".pid")).strip();
        return text.isEmpty() ? Optional.empty() : Optional.of(Long.parseLong(text));
      } catch (IOException | NumberFormatException notYet) {
        return Optional.empty();
      }
    }

    /**
     * Stops watching; whether a process ended during the start (the interrupt is then cleared).
     * Which one ended first is not known here: the callbacks of kube-api-test, which stops one when
     * the other ends, run before these.
     */
    synchronized boolean stop() {
      if (!stopped) {
        stopped = true; // from here on nobody is interrupted
        if (ended) {
          // ours, not the caller's: kube-api-test re-asserts the interrupt it was stopped with
          Thread.interrupted();
        }
        watcher.interrupt();
      }
      return ended;
    }

    @Override
    public void close() {
      stop();
    }
  }
}
