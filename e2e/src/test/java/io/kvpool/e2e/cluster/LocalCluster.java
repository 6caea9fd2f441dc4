package io.kvpool.e2e.cluster;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The single-node cluster of {@code e2e/cluster/up.sh} on this machine: node-binaries.sh (a no-op
 * when built), then up.sh; images go in with import-images.sh; {@link #close} runs down.sh. A JVM
 * shutdown hook runs down.sh too, so a run stopped by a timeout or Ctrl-C still leaves nothing
 * behind.
 */
final class LocalCluster implements E2eCluster {
  private static final Pattern KUBECONFIG_LINE = Pattern.compile("export KUBECONFIG=(\\S+)");

  private final Path scripts;
  private final Path kubeconfig;
  private final Teardown teardown;

  private LocalCluster(Path scripts, Path kubeconfig, Teardown teardown) {
    this.scripts = scripts;
    this.kubeconfig = kubeconfig;
    this.teardown = teardown;
  }

  /** down.sh once, from close() or from the shutdown hook, whichever comes first. */
  private static final class Teardown implements Runnable {
    private final Path scripts;
    private final java.util.concurrent.atomic.AtomicBoolean done =
        new java.util.concurrent.atomic.AtomicBoolean();
    private final Thread hook = new Thread(this, "e2e cluster down");

    Teardown(Path scripts) {
      this.scripts = scripts;
      Runtime.getRuntime().addShutdownHook(hook);
    }

    @Override
    public void run() {
      if (done.compareAndSet(false, true)) {
        try {
          Command.script(scripts.resolve("down.sh"), Duration.ofMinutes(5));
        } catch (RuntimeException e) {
          E2eLog.info("down.sh failed: " + e.getMessage());
        }
      }
    }

    void now() {
      run();
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException shuttingDown) {
        // the hook has run or is running; down.sh ran once
      }
    }
  }

  static LocalCluster start(Path repoRoot) {
    Path scripts = repoRoot.resolve("e2e/cluster");
    // Cold, this builds kubelet and friends from the Go module proxy (minutes); warm it only checks
    // them.
    Command.script(scripts.resolve("node-binaries.sh"), Duration.ofMinutes(45));
    Teardown teardown = new Teardown(scripts);
    try {
      String output = Command.script(scripts.resolve("up.sh"), Duration.ofMinutes(10));
      Matcher m = KUBECONFIG_LINE.matcher(output);
      Path kubeconfig = null;
      while (m.find()) {
        kubeconfig = Path.of(m.group(1));
      }
      if (kubeconfig == null || !Files.isReadable(kubeconfig)) {
        throw new IllegalStateException("up.sh did not name a readable kubeconfig");
      }
      return new LocalCluster(scripts, kubeconfig, teardown);
    } catch (RuntimeException e) {
      teardown.now();
      throw e;
    }
  }

  @Override
  public String description() {
    return "the local cluster of e2e/cluster/up.sh";
  }

  @Override
  public Path kubeconfig() {
    return kubeconfig;
  }

  @Override
  public void loadImages(List<Path> tarballs) {
    String[] args = tarballs.stream().map(Path::toString).toArray(String[]::new);
    Command.script(scripts.resolve("import-images.sh"), Duration.ofMinutes(5), args);
  }

  @Override
  public void close() {
    teardown.now();
  }
}
