package io.kvpool.bench.compare;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Mooncake Store with its SSD offload for the disk-3x workload, driven by {@code bench/agent.py}
 * (its {@code --offload-dir} says which flags and variables turn the offload on, and why) in a
 * private network namespace where only loopback exists, as the standard workloads' Mooncake target:
 * a master, storage processes with the pool's memory and disk cap each, clients with no segment of
 * their own, protocol tcp.
 */
final class MooncakeOffload implements AutoCloseable {
  /** The configuration, as the report says it. */
  static final String CONFIGURATION =
      "mooncake_master --enable_offload=true --default_kv_lease_ttl=1000 (a value is not evicted"
          + " within its lease, 10 s by default); each storage process setup(...,"
          + " enable_ssd_offload=True, ssd_offload_path=DIR) with the bucket backend,"
          + " MOONCAKE_OFFLOAD_HEARTBEAT_INTERVAL_SECONDS=1 (default 10),"
          + " MOONCAKE_OFFLOAD_BUCKET_KEYS_LIMIT=1 (default 500),"
          + " MOONCAKE_OFFLOAD_BUCKET_MAX_TOTAL_SIZE = the tier cap with the fifo policy,"
          + " MOONCAKE_OFFLOAD_LOCAL_BUFFER_SIZE_BYTES=64 MiB (default 1.25 GiB)";

  private static final ObjectMapper JSON = new ObjectMapper();

  private final AgentTarget agent;
  private final Path folder;
  private final int valueBytes;
  private long lastRetries;

  private MooncakeOffload(AgentTarget agent, Path folder, int valueBytes) {
    this.agent = agent;
    this.folder = folder;
    this.valueBytes = valueBytes;
  }

  /** Mooncake Store cannot run here; the message says why. */
  static final class Unavailable extends Exception {
    Unavailable(String reason) {
      super(reason);
    }
  }

  /** What the offload folders hold: regular files and bytes allocated ({@code du -s -B1}). */
  record FolderUsage(long files, long bytes) {}

  /** Starts the agent; {@link Unavailable} says why it cannot. */
  static MooncakeOffload start(
      Path venv,
      Path agentScript,
      Path folder,
      int storageProcesses,
      long memoryPerProcess,
      long diskPerProcess,
      int clients,
      int valueBytes)
      throws InterruptedException, Unavailable {
    Path python = venv.resolve("bin/python");
    if (!Files.isExecutable(venv.resolve("bin/mooncake_master"))) {
      throw new Unavailable(
          "mooncake_master is not installed in "
              + venv
              + " (pip install mooncake-transfer-engine-non-cuda; the setup step does it)");
    }
    Path unshare = CompareSuite.which("unshare");
    Path ip = CompareSuite.which("ip");
    if (unshare == null || ip == null) {
      throw new Unavailable(
          "unshare or ip is missing: Mooncake's ports listen on all addresses, so it runs only in"
              + " a private network namespace");
    }
    try {
      Files.createDirectories(folder);
      List<String> command =
          List.of(
              unshare.toString(),
              "-rn",
              "--",
              "sh",
              "-c",
              "ip link set lo up && exec \"$0\" \"$@\"",
              python.toString(),
              agentScript.toString(),
              "agent",
              "--kind",
              "mooncake",
              "--workers",
              Integer.toString(clients),
              "--buffer-bytes",
              Integer.toString(valueBytes),
              "--segment-bytes",
              Long.toString(memoryPerProcess),
              "--storage-procs",
              Integer.toString(storageProcesses),
              "--offload-dir",
              folder.resolve("offload").toString(),
              "--disk-bytes",
              Long.toString(diskPerProcess),
              "--log",
              folder.resolve("mooncake.log").toString());
      AgentTarget agent =
          AgentTarget.start(
              "mooncake-ssd",
              Target.Family.PEER,
              "Mooncake Store with SSD offload",
              command,
              Map.of(),
              folder.resolve("mooncake-agent.log"),
              Map.of());
      return new MooncakeOffload(agent, folder.resolve("offload"), valueBytes);
    } catch (IOException | RuntimeException e) {
      throw new Unavailable("its agent did not start: " + e.getMessage());
    }
  }

  /**
   * Puts keys {@code from} to {@code to}, each tried again for up to {@code retrySeconds} while
   * Mooncake refuses it for want of space (memory held by values not yet offloaded).
   */
  TierWorkload.Pass put(String prefix, long from, long to, int clients, double retrySeconds)
      throws IOException {
    JsonNode r =
        agent.command(phase("tier-put", prefix, from, to, clients).put("retry", retrySeconds));
    lastRetries = r.get("retries").asLong();
    return pass(r);
  }

  /** How many times the last put pass tried a put again. */
  long lastRetries() {
    return lastRetries;
  }

  /** Gets keys {@code from} to {@code to}: hits, misses (not found), wrong values, failures. */
  TierWorkload.Pass get(String prefix, long from, long to, int clients) throws IOException {
    return pass(agent.command(phase("tier-get", prefix, from, to, clients)));
  }

  private ObjectNode phase(String op, String prefix, long from, long to, int clients) {
    return JSON.createObjectNode()
        .put("op", op)
        .put("clients", clients)
        .put("size", valueBytes)
        .put("keys", 0)
        .put("prefix", prefix)
        .put("from", from)
        .put("to", to);
  }

  private static TierWorkload.Pass pass(JsonNode r) {
    return new TierWorkload.Pass(
        r.get("hits").asLong(),
        r.get("misses").asLong(),
        r.get("wrong").asLong(),
        r.get("failures").asLong(),
        r.get("bytes").asLong(),
        r.get("wall_ns").asLong());
  }

  /** The folder of the storage processes' offload folders. */
  Path folder() {
    return folder;
  }

  /** What the offload folders hold now. */
  FolderUsage folderUsage() throws IOException, InterruptedException {
    long files;
    try (Stream<Path> walk = Files.walk(folder)) {
      files = walk.filter(Files::isRegularFile).count();
    }
    long bytes = TierDiskUsage.du(folder, "-B1");
    return new FolderUsage(files, bytes);
  }

  @Override
  public void close() {
    agent.close();
  }
}
