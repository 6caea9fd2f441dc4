package io.kvpool.testkube.kubelet;

import io.kvpool.testkube.KubeTestSetupException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A pod network on this machine: a Linux bridge with the host at {@code .1} of a /24, and one
 * network namespace per pod joined to it by a veth pair, with its own address. Every pod can bind
 * the wildcard on the same port, as in a cluster; the host (the test JVM, the API server bound to
 * all addresses) is reachable from pods at {@link #hostAddress()}. Needs root and iproute2, as CI
 * has; names carry this JVM's pid so that parallel test JVMs never collide, and namespaces left by
 * a JVM that died are removed at start.
 */
final class PodNetwork implements AutoCloseable {
  private static final String PREFIX = "kvpk";

  private final String bridge;
  private final String subnet;
  private final BitSet used = new BitSet(256);
  private int lastHost = 1;
  private final List<String> namespaces = new ArrayList<>();

  private PodNetwork(String bridge, String subnet) {
    this.bridge = bridge;
    this.subnet = subnet;
  }

  static PodNetwork create() {
    long pid = ProcessHandle.current().pid();
    removeLeftovers();
    // 10.250-253.x.0/24: far from the real-cluster e2e network (10.244/16) and common home networks
    String subnet = "10." + (250 + (pid / 250) % 4) + "." + (pid % 250) + ".";
    PodNetwork network = new PodNetwork(PREFIX + pid, subnet);
    network.run("ip", "link", "add", network.bridge, "type", "bridge");
    network.run("ip", "addr", "add", network.hostAddress() + "/24", "dev", network.bridge);
    network.run("ip", "link", "set", network.bridge, "up");
    return network;
  }

  /** The host's address on the pod network: where pods reach the API server and the test JVM. */
  String hostAddress() {
    return subnet + "1";
  }

  /** A new network namespace with its own address; the pod's processes run inside it. */
  synchronized Sandbox allocate() {
    // round robin from the last address given, as host-local IPAM does: a replaced pod gets a new
    // address, never
    // the one its predecessor just freed (peers would keep sending to the old interface's MAC until
    // their
    // neighbour entries expire, about 30 s, which no real cluster does)
    int host = used.nextClearBit(lastHost + 1);
    if (host > 254) {
      host = used.nextClearBit(2);
    }
    if (host > 254) {
      throw new IllegalStateException("pod network " + subnet + "0/24 is full");
    }
    used.set(host);
    lastHost = host;
    String namespace = bridge + "-" + host;
    String hostVeth = "kvv" + ProcessHandle.current().pid() % 100_000 + "x" + host;
    String address = subnet + host;
    Sandbox sandbox = new Sandbox(namespace, address, host);
    run("ip", "netns", "add", namespace);
    namespaces.add(namespace);
    try {
      join(sandbox, hostVeth);
    } catch (KubeTestSetupException e) {
      release(sandbox); // the next kubelet pass tries again with a clean slate
      throw e;
    }
    return sandbox;
  }

  private void join(Sandbox sandbox, String hostVeth) {
    String namespace = sandbox.namespace();
    String address = sandbox.address();
    // the kernel removes a deleted namespace's veth pair in the background, so the same name from
    // an earlier
    // network of this JVM (another test class) can still be there for a moment: delete it first
    runQuietly("ip", "link", "del", hostVeth);
    run("ip", "link", "add", hostVeth, "type", "veth", "peer", "name", "eth0", "netns", namespace);
    run("ip", "link", "set", hostVeth, "master", bridge, "up");
    run("ip", "netns", "exec", namespace, "ip", "addr", "add", address + "/24", "dev", "eth0");
    run("ip", "netns", "exec", namespace, "ip", "link", "set", "eth0", "up");
    run("ip", "netns", "exec", namespace, "ip", "link", "set", "lo", "up");
    run("ip", "netns", "exec", namespace, "ip", "route", "add", "default", "via", hostAddress());
  }

  /** Deletes the namespace (its veth goes with it) and frees the address. */
  synchronized void release(Sandbox sandbox) {
    runQuietly("ip", "netns", "del", sandbox.namespace());
    namespaces.remove(sandbox.namespace());
    used.clear(sandbox.host());
  }

  @Override
  public synchronized void close() {
    for (String namespace : List.copyOf(namespaces)) {
      runQuietly("ip", "netns", "del", namespace);
    }
    namespaces.clear();
    runQuietly("ip", "link", "del", bridge);
  }

  /** One pod's network namespace and address. */
  record Sandbox(String namespace, String address, int host) {}

  /** Namespaces and bridges of test JVMs that are gone (killed before their clean-up ran). */
  private static void removeLeftovers() {
    String listed;
    try {
      Process p = new ProcessBuilder("ip", "netns", "list").redirectErrorStream(true).start();
      listed = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      p.waitFor(10, TimeUnit.SECONDS);
    } catch (IOException e) {
      throw new KubeTestSetupException(
          "the test kubelet needs iproute2 ('ip') and root to give each pod its own"
              + " network namespace: "
              + e.getMessage(),
          e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return;
    }
    for (String line : listed.split("\n")) {
      String name = line.split("\\s+")[0];
      if (!name.startsWith(PREFIX) || !name.contains("-")) {
        continue;
      }
      String pid = name.substring(PREFIX.length(), name.indexOf('-'));
      if (pid.chars().allMatch(Character::isDigit)
          && ProcessHandle.of(Long.parseLong(pid)).isEmpty()) {
        runQuietly("ip", "netns", "del", name);
        runQuietly("ip", "link", "del", PREFIX + pid);
      }
    }
  }

  private void run(String... command) {
    String output = exec(command);
    if (output != null) {
      throw new KubeTestSetupException(
          "the test kubelet could not set up the pod network: '"
              + String.join(" ", command)
              + "' failed: "
              + output.strip()
              + " (it needs root and iproute2)",
          null);
    }
  }

  private static void runQuietly(String... command) {
    exec(command);
  }

  /** Null on success, else what the command printed. */
  private static String exec(String... command) {
    try {
      Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
      String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!p.waitFor(30, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        return "timed out";
      }
      return p.exitValue() == 0 ? null : output + " (exit " + p.exitValue() + ")";
    } catch (IOException e) {
      return e.getMessage();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "interrupted";
    }
  }
}
