package io.kvpool.testkube.kubelet;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Probe;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.HttpURLConnection;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A container's process, started inside its pod's network namespace with a private mount namespace
 * in which the pod's volumes and the image's folders are bind-mounted at their paths, and its
 * output appended to a log file. Probes are answered the way a kubelet asks them: HTTP GET or a TCP
 * connect to the pod's address.
 */
final class ContainerProcess {
  private static final String IP = findIp();

  private final Process process;
  private final String podIp;
  private final Container container;

  private ContainerProcess(Process process, String podIp, Container container) {
    this.process = process;
    this.podIp = podIp;
    this.container = container;
  }

  static ContainerProcess start(
      String netns,
      String podIp,
      Container container,
      List<String> argv,
      Map<String, String> env,
      List<PodVolumes.Mount> mounts,
      Path hostsFile,
      Path log) {
    StringBuilder script = new StringBuilder("set -e\n");
    // a mount over a folder that holds volume sources (a pod's emptyDir at /tmp) goes last, or it
    // hides them
    List<PodVolumes.Mount> ordered = new ArrayList<>(mounts);
    ordered.add(new PodVolumes.Mount(hostsFile, "/etc/hosts", false));
    ordered.sort(java.util.Comparator.comparing(m -> hidesASource(m, ordered)));
    for (PodVolumes.Mount m : ordered) {
      String target = quote(m.target());
      if (java.nio.file.Files.isRegularFile(m.source())) {
        // a file (the termination message): its mount point must be a file; the host gets an empty
        // one if missing
        script
            .append("[ -e ")
            .append(target)
            .append(" ] || { mkdir -p \"$(dirname ")
            .append(target)
            .append(")\" && touch ")
            .append(target)
            .append("; }\n");
      } else {
        script.append("mkdir -p ").append(target).append('\n');
      }
      script
          .append("mount --bind ")
          .append(quote(m.source().toString()))
          .append(' ')
          .append(target)
          .append('\n');
      if (m.readOnly()) {
        script.append("mount -o remount,bind,ro ").append(target).append('\n');
      }
    }
    script.append("exec \"$@\"\n");
    List<String> command =
        new ArrayList<>(
            List.of(IP, "netns", "exec", netns, "/bin/sh", "-c", script.toString(), "container"));
    command.addAll(argv);
    ProcessBuilder builder =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    builder.environment().clear();
    builder.environment().putAll(env);
    try {
      return new ContainerProcess(builder.start(), podIp, container);
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot start container " + container.getName() + ": " + e.getMessage(), e);
    }
  }

  private static boolean hidesASource(PodVolumes.Mount m, List<PodVolumes.Mount> all) {
    Path target = Path.of(m.target());
    return all.stream().anyMatch(o -> o.source().startsWith(target));
  }

  boolean alive() {
    return process.isAlive();
  }

  /** The container's exit code once it ended. */
  Integer exitCodeIfEnded() {
    return process.isAlive() ? null : process.exitValue();
  }

  int exitCode() {
    return process.exitValue();
  }

  long pid() {
    return process.pid();
  }

  /** SIGKILL, as when a container is killed by the OOM killer or {@code kill -9}. */
  void kill() {
    process.destroyForcibly();
    waitFor(Duration.ofSeconds(10));
  }

  /** SIGTERM, then SIGKILL after the grace period, as a kubelet stops a container. */
  void stop(Duration grace) {
    process.destroy();
    if (!waitFor(grace)) {
      process.destroyForcibly();
      waitFor(Duration.ofSeconds(10));
    }
  }

  private boolean waitFor(Duration timeout) {
    try {
      return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /** The readiness probe's answer now; a container without one is ready while it runs. */
  boolean ready() {
    Probe probe = container.getReadinessProbe();
    if (!alive()) {
      return false;
    }
    if (probe == null) {
      return true;
    }
    try {
      if (probe.getHttpGet() != null) {
        int port = port(probe.getHttpGet().getPort());
        String path = probe.getHttpGet().getPath() == null ? "/" : probe.getHttpGet().getPath();
        HttpURLConnection c =
            (HttpURLConnection)
                URI.create("http://" + host() + ":" + port + path).toURL().openConnection();
        c.setConnectTimeout(1000);
        c.setReadTimeout(2000);
        try {
          int code = c.getResponseCode();
          return code >= 200 && code < 400;
        } finally {
          c.disconnect();
        }
      }
      if (probe.getTcpSocket() != null) {
        try (Socket s = new Socket()) {
          s.connect(new InetSocketAddress(podIp, port(probe.getTcpSocket().getPort())), 1000);
          return true;
        }
      }
      return true; // exec probes are not run by the test kubelet
    } catch (IOException e) {
      return false;
    }
  }

  private String host() {
    return podIp.contains(":") ? "[" + podIp + "]" : podIp;
  }

  private int port(IntOrString port) {
    if (port.getIntVal() != null) {
      return port.getIntVal();
    }
    for (ContainerPort p :
        container.getPorts() == null ? List.<ContainerPort>of() : container.getPorts()) {
      if (port.getStrVal().equals(p.getName())) {
        return p.getContainerPort();
      }
    }
    throw new IllegalStateException(
        "probe port " + port.getStrVal() + " is not a port of container " + container.getName());
  }

  private static String quote(String s) {
    return "'" + s.replace("'", "'\\''") + "'";
  }

  private static String findIp() {
    for (String candidate : List.of("/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip")) {
      if (Path.of(candidate).toFile().canExecute()) {
        return candidate;
      }
    }
    return "ip";
  }
}
