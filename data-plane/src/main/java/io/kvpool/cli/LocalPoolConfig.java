package io.kvpool.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * How to start a {@link LocalPool}. Sizes and durations stay in the data plane's text form
 * ({@code 256MiB}, {@code 3s}) because they are handed to the child processes' command lines.
 */
public record LocalPoolConfig(
    String poolId,
    int storageNodes,
    String memoryPerNode,
    String nodeTtl,
    String leaseTtl,
    String heartbeat,
    List<String> masterOptions,
    List<String> storageOptions,
    List<String> jvmOptions,
    String classpath,
    Path logDir,
    Duration readyTimeout) {

  /** Small heaps and a serial collector: the values live in native segments, and the machine is shared. */
  static final List<String> DEFAULT_JVM_OPTIONS = List.of("-Xms32m", "-Xmx512m", "-XX:+UseSerialGC",
      "-XX:+ExitOnOutOfMemoryError");

  public static Builder builder() {
    return new Builder();
  }

  /** Starts the pool this configuration describes. */
  public LocalPool start() {
    return LocalPool.start(this);
  }

  public static final class Builder {
    private String poolId = "local";
    private int storageNodes = 3;
    private String memoryPerNode = "256MiB";
    private String nodeTtl = "10s";
    private String leaseTtl = "5s";
    private String heartbeat = "1s";
    private final List<String> masterOptions = new ArrayList<>();
    private final List<String> storageOptions = new ArrayList<>();
    private final List<String> jvmOptions = childJvmOptionsFromEnvironment();
    private final String classpath = System.getProperty("java.class.path");
    private final Duration readyTimeout = Duration.ofSeconds(60);

    public Builder poolId(String poolId) {
      this.poolId = poolId;
      return this;
    }

    public Builder storageNodes(int storageNodes) {
      if (storageNodes < 1) {
        throw new IllegalArgumentException("a pool needs at least 1 storage node, got " + storageNodes);
      }
      this.storageNodes = storageNodes;
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

    /** Extra storage-node flags, e.g. {@code --huge-pages transparent}. */
    public Builder storageOption(String name, String value) {
      storageOptions.add(name);
      storageOptions.add(value);
      return this;
    }

    public LocalPoolConfig build() {
      Path dir;
      try {
        dir = Files.createTempDirectory("kvpool-" + poolId + "-");
      } catch (IOException e) {
        throw new UncheckedIOException("cannot create a temporary folder for the pool's logs", e);
      }
      return new LocalPoolConfig(poolId, storageNodes, memoryPerNode, nodeTtl, leaseTtl, heartbeat,
          List.copyOf(masterOptions), List.copyOf(storageOptions), jvmOptions, classpath, dir, readyTimeout);
    }

    public LocalPool start() {
      return build().start();
    }

    /** {@code KVPOOL_CHILD_JAVA_OPTS} replaces the default child JVM flags (e.g. to attach a profiler). */
    private static List<String> childJvmOptionsFromEnvironment() {
      String fromEnv = System.getenv("KVPOOL_CHILD_JAVA_OPTS");
      if (fromEnv == null || fromEnv.isBlank()) {
        return DEFAULT_JVM_OPTIONS;
      }
      return List.of(fromEnv.strip().split("\\s+"));
    }
  }
}
