package io.kvpool.operator.it;

import com.sun.net.httpserver.HttpServer;
import io.kvpool.admin.AdminJson;
import io.kvpool.admin.MasterStatus;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A leader's admin API on 127.0.0.1 serving a {@code /status} document of the shared admin-api type
 * that the test sets: which storage nodes the leader counts alive. For status rules that need a
 * leader in a given state, where a real master (PoolStatusTest) could not be put in that state on
 * demand.
 */
final class FakeMaster implements AutoCloseable {
  private final HttpServer server;
  private volatile String document;

  private FakeMaster(HttpServer server) {
    this.server = server;
  }

  static FakeMaster start(String pool) {
    try {
      HttpServer server =
          HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
      FakeMaster master = new FakeMaster(server);
      master.serving(pool, 0);
      server.createContext(
          "/status",
          exchange -> {
            byte[] body = master.document.getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
          });
      server.start();
      return master;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  URI adminBase() {
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
  }

  /** A serving leader that counts storage nodes {@code <pool>-storage-0 .. alive-1} ALIVE. */
  void serving(String pool, int alive) {
    serve(pool, alive, 0, null);
  }

  /**
   * A serving leader with {@code alive} nodes of 64 MiB holding {@code fullness} of them, reporting
   * cache signals: {@code capacityMisses} capacity misses per second and no eviction.
   */
  void servingWithSignals(String pool, int alive, double fullness, double capacityMisses) {
    long capacity = alive * (64L << 20);
    long used = (long) (capacity * fullness);
    serve(
        pool,
        alive,
        used,
        new MasterStatus.CacheSignals(
            60,
            List.of(new MasterStatus.Tier("memory", capacity, used, 0)),
            0,
            100,
            capacityMisses,
            capacityMisses,
            capacityMisses / 100,
            0,
            (long) (60 * capacityMisses)));
  }

  /** A serving leader with {@code alive} nodes of 64 MiB sharing {@code used} bytes evenly. */
  private void serve(String pool, int alive, long used, MasterStatus.CacheSignals signals) {
    List<MasterStatus.NodeStatus> nodes = new ArrayList<>();
    for (int i = 0; i < alive; i++) {
      nodes.add(
          new MasterStatus.NodeStatus(
              pool + "-storage-" + i,
              "127.0.0." + (i + 1) + ":50052",
              "ALIVE",
              64L << 20,
              used / alive,
              0,
              "0.1.0",
              "2.0",
              100));
    }
    document =
        AdminJson.write(
            new MasterStatus(
                AdminJson.API_VERSION,
                pool,
                "LEADER",
                "SERVING",
                1,
                new MasterStatus.Leader(pool + "-master-0", "127.0.0.1:50051", "127.0.0.1:8080"),
                "0.1.0",
                "2.0",
                new MasterStatus.Recovery(false, 0, List.of()),
                nodes,
                alive * (64L << 20),
                used,
                0,
                null,
                signals,
                null));
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
