package io.kvpool.storage;

import io.kvpool.common.HostPort;
import io.kvpool.master.VersionLine;
import io.kvpool.nativemem.HugePageMode;
import io.kvpool.process.Addresses;
import io.kvpool.process.ProcessConfig;
import io.kvpool.rpc.ServerLimitOptions;
import io.kvpool.security.PoolSecrets;
import io.kvpool.storage.disk.DiskTier;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * Process entry point of a kvpool storage node. Every option can also come from the environment or
 * the config directory (see {@link ProcessConfig} and the table in data-plane/README.md). Prints
 * one {@code KVPOOL_READY} line once registered.
 */
@Command(
    name = "kvpool-storage",
    mixinStandardHelpOptions = true,
    versionProvider = VersionLine.class,
    description = "A kvpool storage node: values in native memory, served straight to clients.")
public final class StorageNodeMain implements Callable<Integer> {
  @Option(
      names = "--master",
      descriptionKey = "KVPOOL_MASTER_ADDRESS",
      required = true,
      description =
          "Master endpoints HOST:PORT[,HOST:PORT...] or the pool's master Service (KVPOOL_MASTER_ADDRESS)")
  String masters;

  @Option(
      names = "--node-id",
      descriptionKey = "KVPOOL_NODE_ID",
      required = true,
      description = "This node's id, stable across restarts (the pod name) (KVPOOL_NODE_ID)")
  String nodeId;

  @Option(
      names = "--pool-id",
      descriptionKey = "KVPOOL_POOL_ID",
      defaultValue = "",
      description =
          "Refuse a master of another pool; empty: learn the pool from the master (KVPOOL_POOL_ID)")
  String poolId;

  @Option(
      names = "--host",
      descriptionKey = "KVPOOL_BIND_HOST",
      defaultValue = "127.0.0.1",
      description = "Address to listen on, e.g. 0.0.0.0 or :: (KVPOOL_BIND_HOST)")
  String host;

  @Option(
      names = "--advertise-host",
      descriptionKey = "KVPOOL_ADVERTISE_HOST",
      description = "Host clients and peers dial: the pod IP or DNS name (KVPOOL_ADVERTISE_HOST)")
  String advertiseHost;

  @Option(
      names = "--port",
      descriptionKey = "KVPOOL_STORAGE_PORT",
      defaultValue = "0",
      description = "RPC port, 0 picks one (KVPOOL_STORAGE_PORT)")
  int port;

  @Option(
      names = "--admin-port",
      descriptionKey = "KVPOOL_STORAGE_ADMIN_PORT",
      defaultValue = "0",
      description = "Admin HTTP port (KVPOOL_STORAGE_ADMIN_PORT)")
  int adminPort;

  @Option(
      names = "--memory",
      descriptionKey = "KVPOOL_MEMORY_PER_NODE",
      defaultValue = "256MiB",
      converter = ProcessConfig.SizeConverter.class,
      description = "Native memory this node offers, e.g. 4GiB (KVPOOL_MEMORY_PER_NODE)")
  long memory;

  @Option(
      names = "--segments",
      descriptionKey = "KVPOOL_SEGMENTS",
      defaultValue = "1",
      description = "Memory segments the memory is split into (KVPOOL_SEGMENTS)")
  int segments;

  @Option(
      names = "--heartbeat",
      descriptionKey = "KVPOOL_HEARTBEAT",
      defaultValue = "1s",
      description = "Heartbeat interval (KVPOOL_HEARTBEAT)")
  Duration heartbeat;

  @Option(
      names = "--huge-pages",
      descriptionKey = "KVPOOL_HUGE_PAGES",
      defaultValue = "none",
      description = "none, transparent or explicit (KVPOOL_HUGE_PAGES)")
  HugePageMode hugePages;

  @Option(
      names = "--transport",
      descriptionKey = "KVPOOL_TRANSPORT_PROTOCOL",
      defaultValue = "tcp",
      description =
          "tcp, rdma or ascend: ascend opens the Ascend device backend (KVPOOL_TRANSPORT_PROTOCOL)")
  String transport;

  @Option(
      names = "--device-count",
      descriptionKey = "KVPOOL_DEVICE_COUNT",
      defaultValue = "0",
      description = "Devices the node uses (KVPOOL_DEVICE_COUNT)")
  int deviceCount;

  @Option(
      names = "--visible-devices-env",
      descriptionKey = "KVPOOL_VISIBLE_DEVICES_ENV",
      defaultValue = "ASCEND_VISIBLE_DEVICES",
      description =
          "Environment variable in which the device plugin lists the allocated devices; they are reported"
              + " in /status (KVPOOL_VISIBLE_DEVICES_ENV)")
  String visibleDevicesEnv;

  @Option(
      names = "--secret-dir",
      descriptionKey = "KVPOOL_SECRET_DIR",
      defaultValue = "",
      description =
          "Folder with the pool's secret files (cluster-key, client-key); peers must then authenticate"
              + " (KVPOOL_SECRET_DIR)")
  String secretDir;

  @Option(
      names = "--tls-dir",
      descriptionKey = "KVPOOL_TLS_DIR",
      defaultValue = "",
      description =
          "Folder with tls.crt, tls.key (PKCS#8) and ca.crt: every connection, in and out, uses TLS 1.3"
              + " (KVPOOL_TLS_DIR)")
  String tlsDir;

  @Option(
      names = "--memory-dir",
      descriptionKey = "KVPOOL_MEMORY_DIR",
      defaultValue = "",
      description =
          "Node-local folder (tmpfs or hugetlbfs) for the segments' memory files, which outlive the process:"
              + " a clean stop leaves them with an inventory, and the next process of this node id adopts what verifies"
              + " (a warm restart); empty: anonymous memory (KVPOOL_MEMORY_DIR)")
  String memoryDir;

  @Option(
      names = "--disk-size",
      descriptionKey = "KVPOOL_DISK_SIZE",
      defaultValue = "0",
      converter = ProcessConfig.SizeConverter.class,
      description =
          "Size of the node's disk tier, e.g. 20GiB: what its files may occupy on disk, all included; values"
              + " evicted from memory move there and are read back from it; 0: no disk tier (KVPOOL_DISK_SIZE)")
  long diskSize;

  @Option(
      names = "--disk-dir",
      descriptionKey = "KVPOOL_DISK_DIR",
      defaultValue = "",
      description =
          "Folder of the disk tiers (required with --disk-size): this node's is the folder named after its id"
              + " in it; it is rescanned at start, so a restarted node keeps what it holds (KVPOOL_DISK_DIR)")
  String diskDir;

  @Option(
      names = "--disk-file-size",
      descriptionKey = "KVPOOL_DISK_FILE_SIZE",
      defaultValue = "0",
      converter = ProcessConfig.SizeConverter.class,
      description =
          "Size of one disk tier file; 0: 64MiB, smaller for small tiers (KVPOOL_DISK_FILE_SIZE)")
  long diskFileSize;

  @Option(
      names = "--prefault",
      descriptionKey = "KVPOOL_PREFAULT",
      defaultValue = "true",
      arity = "1",
      description =
          "true: touch every page of the segments at start, so that a fresh pool's first puts pay no page"
              + " faults and the memory is there before it is offered; false: pages arrive with the first"
              + " writes (KVPOOL_PREFAULT)")
  boolean prefault;

  @Option(
      names = "--read-serving",
      descriptionKey = "KVPOOL_READ_SERVING",
      defaultValue = "copy",
      description =
          "copy: every reply is copied from the segments into the socket; sendfile: replies of 256KiB or"
              + " more on plaintext connections are sent by the kernel from the segments' memory files"
              + " (needs --memory-dir on tmpfs and no disk tier), without that copy (KVPOOL_READ_SERVING)")
  ReadServing readServing;

  @Mixin ServerLimitOptions serverLimits = new ServerLimitOptions();

  @Option(
      names = "--tombstone-ttl",
      descriptionKey = "KVPOOL_TOMBSTONE_TTL",
      defaultValue = "10m",
      description = "How long deleted objects are remembered (KVPOOL_TOMBSTONE_TTL)")
  Duration tombstoneTtl;

  public static void main(String[] args) {
    Addresses.followMovingNames();
    int code = ProcessConfig.commandLine(new StorageNodeMain(), System.getenv()).execute(args);
    if (code != 0) {
      System.exit(code);
    }
  }

  private DiskTier.Settings diskSettings() {
    if (diskSize == 0) {
      return null;
    }
    if (diskDir.isBlank()) {
      throw new IllegalArgumentException(
          "--disk-size needs --disk-dir, the folder of this node's disk tier");
    }
    DiskTier.Settings s = DiskTier.Settings.of(Path.of(diskDir.trim()).resolve(nodeId), diskSize);
    return diskFileSize > 0 ? s.withFileBytes(diskFileSize) : s;
  }

  @Override
  public Integer call() throws Exception {
    StorageConfig config;
    try {
      config =
          StorageConfig.builder(HostPort.parseList(masters), nodeId, memory)
              .address(host, Addresses.advertised(host, advertiseHost))
              .ports(port, adminPort)
              .segments(segments)
              .heartbeat(heartbeat)
              .hugePages(hugePages)
              .poolId(poolId)
              .transport(
                  new StorageConfig.Transport(
                      transport,
                      deviceCount,
                      StorageConfig.Transport.parseDeviceIds(System.getenv(visibleDevicesEnv))))
              .tombstoneTtl(tombstoneTtl)
              .limits(serverLimits.limits())
              .secrets(PoolSecrets.fromDirectories(secretDir, tlsDir))
              .memoryDir(memoryDir.isBlank() ? null : Path.of(memoryDir.trim()))
              .disk(diskSettings())
              .segmentUse(new StorageConfig.SegmentUse(prefault, readServing))
              .build();
    } catch (IllegalArgumentException e) {
      System.err.println("kvpool-storage: " + e.getMessage());
      return 2;
    }
    StorageNode node;
    try {
      node = new StorageNode(config);
    } catch (IOException | RuntimeException e) {
      // port in use, or the memory could not be mapped: say which, without a stack trace
      System.err.println(
          "kvpool-storage: cannot start node "
              + config.nodeId()
              + " with "
              + config.memoryBytes()
              + " bytes on "
              + config.host()
              + ":"
              + config.port()
              + ": "
              + e.getMessage());
      return 1;
    }
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  node.close();
                  stopped.countDown();
                },
                "storage-shutdown"));
    try {
      node.start(Duration.ofSeconds(60));
    } catch (IOException e) {
      System.err.println("kvpool-storage: " + e.getMessage());
      return 1;
    }
    if (node.deviceReady()) {
      System.out.println(
          "KVPOOL_READY storage node="
              + config.nodeId()
              + " rpc="
              + node.endpoint()
              + " admin="
              + new HostPort(config.advertiseHost(), node.adminEndpoint().port()));
      System.out.flush();
    }
    stopped.await();
    return 0;
  }
}
