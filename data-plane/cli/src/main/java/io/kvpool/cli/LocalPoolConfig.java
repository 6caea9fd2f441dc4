package io.kvpool.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * How to start a {@link LocalPool}. Sizes and durations stay in the data plane's text form ({@code
 * 256MiB}, {@code 3s}) because they are handed to the child processes' command lines.
 */
public record LocalPoolConfig(
    String poolId,
    int masters,
    Optional<Election> election,
    int storageNodes,
    String bindHost,
    String advertiseHost,
    String memoryPerNode,
    String nodeTtl,
    String leaseTtl,
    String heartbeat,
    List<String> masterOptions,
    List<String> storageOptions,
    Optional<Path> memoryDirs,
    List<String> jvmOptions,
    Map<String, String> childEnv,
    String classpath,
    Path logDir,
    Duration readyTimeout) {

  /**
   * Leader election of the masters on a Lease of a reachable API server: the kube config file to
   * reach it, the namespace and the Lease name. Required with more than one master.
   */
  public record Election(
      Path kubeconfig,
      String namespace,
      String leaseName,
      String leaseDuration,
      String masterPodPrefix) {
    /** Without pods: masters name themselves by process, nobody is labelled. */
    public Election(Path kubeconfig, String namespace, String leaseName, String leaseDuration) {
      this(kubeconfig, namespace, leaseName, leaseDuration, "");
    }
  }

  /**
   * Small heaps and a serial collector: the values live in native segments, and the machine is
   * shared.
   */
  static final List<String> DEFAULT_JVM_OPTIONS =
      List.of("-Xms32m", "-Xmx512m", "-XX:+UseSerialGC", "-XX:+ExitOnOutOfMemoryError");

  public static Builder builder() {
    return new Builder();
  }

  /** Starts the pool this configuration describes. */
  public LocalPool start() {
    return LocalPool.start(this);
  }

  public static final class Builder {
    private String poolId = "local";
    private int masters = 1;
    private Election election;
    private int storageNodes = 3;
    private String bindHost = "127.0.0.1";
    private String advertiseHost = "127.0.0.1";
    private String memoryPerNode = "256MiB";
    private String nodeTtl = "10s";
    private String leaseTtl = "5s";
    private String heartbeat = "1s";
    private final List<String> masterOptions = new ArrayList<>();
    private final List<String> storageOptions = new ArrayList<>();
    private Path memoryDirs;
    private List<String> jvmOptions = childJvmOptionsFromEnvironment();
    private final Map<String, String> childEnv = new LinkedHashMap<>();
    private final String classpath = System.getProperty("java.class.path");
    private final Duration readyTimeout = Duration.ofSeconds(60);

    public Builder poolId(String poolId) {
      this.poolId = poolId;
      return this;
    }

    /**
     * Masters electing a leader on {@code election}'s Lease; one master without election needs
     * none.
     */
    public Builder masters(int masters, Election election) {
      if (masters < 1 || (masters > 1 && election == null)) {
        throw new IllegalArgumentException(
            masters + " masters need a leader election (an API server to elect on)");
      }
      this.masters = masters;
      this.election = election;
      return this;
    }

    public Builder storageNodes(int storageNodes) {
      if (storageNodes < 1) {
        throw new IllegalArgumentException(
            "a pool needs at least 1 storage node, got " + storageNodes);
      }
      this.storageNodes = storageNodes;
      return this;
    }

    /**
     * Where every process listens (e.g. {@code 0.0.0.0}) and the address it advertises to its
     * peers.
     */
    public Builder hosts(String bind, String advertise) {
      this.bindHost = bind;
      this.advertiseHost = advertise;
      return this;
    }

    public Builder memoryPerNode(String memoryPerNode) {
      this.memoryPerNode = memoryPerNode;
      return this;
    }

    public Builder nodeTtl(String nodeTtl) {
      this.nodeTtl = nodeTtl;
      return this;
    }

    public Builder leaseTtl(String leaseTtl) {
      this.leaseTtl = leaseTtl;
      return this;
    }

    public Builder heartbeat(String heartbeat) {
      this.heartbeat = heartbeat;
      return this;
    }

    /** Extra master flags, e.g. {@code --high-watermark 0.8}. */
    public Builder masterOption(String name, String value) {
      masterOptions.add(name);
      masterOptions.add(value);
      return this;
    }

    /**
     * An environment variable for every child process (e.g. where the Ascend runtime library is).
     */
    public Builder childEnv(String name, String value) {
      childEnv.put(name, value);
      return this;
    }

    /** Extra storage-node flags, e.g. {@code --huge-pages transparent}. */
    public Builder storageOption(String name, String value) {
      storageOptions.add(name);
      storageOptions.add(value);
      return this;
    }

    /**
     * Gives every storage node {@code --memory-dir root} (each keeps its files in {@code root/<node
     * id>}), so that a node stopped with SIGTERM and started again adopts the replicas in its
     * memory files (a warm restart). {@code root} should be on tmpfs (/dev/shm): the files hold the
     * nodes' whole memory. The folder must exist.
     */
    public Builder memoryDirs(Path root) {
      this.memoryDirs = root;
      return this;
    }

    /**
     * Child JVM flags instead of the defaults; {@code KVPOOL_CHILD_JAVA_OPTS}, when set, still wins
     * (e.g. to attach a profiler).
     */
    public Builder jvmOptions(List<String> options) {
      String fromEnv = System.getenv("KVPOOL_CHILD_JAVA_OPTS");
      if (fromEnv == null || fromEnv.isBlank()) {
        this.jvmOptions = List.copyOf(options);
      }
      return this;
    }

    public LocalPoolConfig build() {
      Path dir;
      try {
        dir = Files.createTempDirectory("kvpool-" + poolId + "-");
      } catch (IOException e) {
        throw new UncheckedIOException("cannot create a temporary folder for the pool's logs", e);
      }
      return new LocalPoolConfig(
          poolId,
          masters,
          Optional.ofNullable(election),
          storageNodes,
          bindHost,
          advertiseHost,
          memoryPerNode,
          nodeTtl,
          leaseTtl,
          heartbeat,
          List.copyOf(masterOptions),
          List.copyOf(storageOptions),
          Optional.ofNullable(memoryDirs),
          withExtraJvmOptions(jvmOptions),
          Map.copyOf(childEnv),
          classpath,
          dir,
          readyTimeout);
    }

    public LocalPool start() {
      return build().start();
    }

    /**
     * {@code options} followed by those of {@code KVPOOL_CHILD_EXTRA_JAVA_OPTS}, which every child
     * JVM gets after its own (the later of two values of one flag wins): e.g. the test suites'
     * C1-only JIT for their short-lived pools.
     */
    private static List<String> withExtraJvmOptions(List<String> options) {
      String fromEnv = System.getenv("KVPOOL_CHILD_EXTRA_JAVA_OPTS");
      if (fromEnv == null || fromEnv.isBlank()) {
        return options;
      }
      List<String> all = new ArrayList<>(options);
      all.addAll(List.of(fromEnv.strip().split("\\s+")));
      return List.copyOf(all);
    }

    /**
     * {@code KVPOOL_CHILD_JAVA_OPTS} replaces the default child JVM flags (e.g. to attach a
     * profiler).
     */
    private static List<String> childJvmOptionsFromEnvironment() {
      String fromEnv = System.getenv("KVPOOL_CHILD_JAVA_OPTS");
      if (fromEnv == null || fromEnv.isBlank()) {
        return DEFAULT_JVM_OPTIONS;
      }
      return List.of(fromEnv.strip().split("\\s+"));
    }
  }
}
