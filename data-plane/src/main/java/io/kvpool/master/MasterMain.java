package io.kvpool.master;

import io.kvpool.common.CommandLine;
import java.io.IOException;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Process entry point of a kvpool master. */
public final class MasterMain {
  private static final Logger LOG = LoggerFactory.getLogger(MasterMain.class);

  private MasterMain() {
  }

  public static void main(String[] args) throws Exception {
    Master master;
    try {
      CommandLine cl = CommandLine.parse("kvpool-master", args, Set.of("pool-id", "host", "port", "admin-port",
          "node-ttl", "lease-ttl", "pending-timeout", "high-watermark", "evict-ratio"));
      MasterConfig config = new MasterConfig(cl.required("pool-id"),
          cl.getDuration("node-ttl", Duration.ofSeconds(10)), cl.getDuration("lease-ttl", Duration.ofSeconds(5)),
          cl.getDuration("pending-timeout", Duration.ofSeconds(30)), cl.getDouble("high-watermark", 0.90),
          cl.getDouble("evict-ratio", 0.10));
      String host = cl.get("host", "127.0.0.1");
      try {
        master = new Master(config, host, cl.getInt("port", 0), cl.getInt("admin-port", 0));
      } catch (IOException e) {
        System.err.println("kvpool-master: cannot listen on " + host + " (--port " + cl.get("port", "0")
            + ", --admin-port " + cl.get("admin-port", "0") + "): " + e.getMessage());
        System.exit(1);
        return;
      }
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage());
      System.exit(2);
      return;
    }
    master.start();
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      master.close();
      stopped.countDown();
    }, "master-shutdown"));
    LOG.info("event=master_started pool={} rpc={} admin={}", master.status().get("poolId"), master.rpcEndpoint(),
        master.adminEndpoint());
    System.out.println("KVPOOL_READY master rpc=" + master.rpcEndpoint() + " admin=" + master.adminEndpoint());
    System.out.flush();
    stopped.await();
  }
}
