package io.kvpool.storage;

import io.kvpool.common.CommandLine;
import io.kvpool.common.HostPort;
import io.kvpool.nativemem.HugePageMode;
import java.io.IOException;
import java.time.Duration;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.CountDownLatch;

/** Process entry point of a kvpool storage node. */
public final class StorageNodeMain {
  private StorageNodeMain() {
  }

  public static void main(String[] args) throws Exception {
    StorageConfig config;
    try {
      CommandLine cl = CommandLine.parse("kvpool-storage", args, Set.of("master", "node-id", "host", "port",
          "admin-port", "memory", "segments", "heartbeat", "huge-pages", "pool-id"));
      String huge = cl.get("huge-pages", "none").toUpperCase(Locale.ROOT);
      HugePageMode mode;
      try {
        mode = HugePageMode.valueOf(huge);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("--huge-pages must be none, transparent or explicit, got '" + huge + "'");
      }
      config = new StorageConfig(HostPort.parse(cl.required("master")), cl.required("node-id"),
          cl.get("host", "127.0.0.1"), cl.getInt("port", 0), cl.getInt("admin-port", 0),
          cl.getSize("memory", 256L << 20), cl.getInt("segments", 1), cl.getDuration("heartbeat", Duration.ofSeconds(1)),
          mode, cl.get("pool-id", ""));
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage());
      System.exit(2);
      return;
    }
    StorageNode node;
    try {
      node = new StorageNode(config);
    } catch (IOException | RuntimeException e) {
      // port in use, or the memory could not be mapped: say which, without a stack trace
      System.err.println("kvpool-storage: cannot start node " + config.nodeId() + " with " + config.memoryBytes()
          + " bytes on " + config.host() + ":" + config.port() + ": " + e.getMessage());
      System.exit(1);
      return;
    }
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      node.close();
      stopped.countDown();
    }, "storage-shutdown"));
    try {
      node.start(Duration.ofSeconds(60));
    } catch (IOException e) {
      System.err.println(e.getMessage());
      System.exit(1);
    }
    System.out.println("KVPOOL_READY storage node=" + config.nodeId() + " rpc=" + node.rpcEndpoint() + " admin="
        + node.adminEndpoint());
    System.out.flush();
    stopped.await();
  }
}
