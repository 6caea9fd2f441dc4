package io.kvpool.storage;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvpool.admin.StorageStatus;
import io.kvpool.client.ClientConfig;
import io.kvpool.client.KvPoolClient;
import io.kvpool.common.HostPort;
import io.kvpool.master.Master;
import io.kvpool.master.MasterConfig;
import io.kvpool.master.MasterSettings;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A storage node follows the newest master view and refuses an older master; pools run on IPv6 with
 * bracketed endpoints; a node whose device backend cannot open says why on /ready and never
 * registers.
 */
class FencingAndAddressingTest {
  private static final Duration T = Duration.ofSeconds(10);

  private static long await(java.util.function.BooleanSupplier condition)
      throws InterruptedException {
    long t0 = System.nanoTime();
    long deadline = t0 + T.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("condition not met within " + T);
      }
      Thread.sleep(20);
    }
    return (System.nanoTime() - t0) / 1_000_000;
  }

  @Test
  void aNodeRefusesAMasterWithAnOlderViewThanTheOneItFollows() throws Exception {
    MasterConfig config = MasterConfig.defaults("fence");
    try (Master older = new Master(MasterSettings.local(config, "127.0.0.1", 0, 0)).start()) {
      await(
          () ->
              System.currentTimeMillis()
                  > older.status().view()); // the next leader's view is strictly later
      Master newer = new Master(MasterSettings.local(config, "127.0.0.1", 0, 0)).start();
      StorageConfig sc =
          StorageConfig.builder(List.of(newer.rpcEndpoint(), older.rpcEndpoint()), "n1", 1 << 20)
              .heartbeat(Duration.ofMillis(100))
              .build();
      try (StorageNode node = new StorageNode(sc).start(T)) {
        long followed = newer.status().view();
        assertThat(node.status().masterView()).isEqualTo(followed);
        newer.close(); // the newer leader goes away; only the deposed one is left
        // the node tries the older master over and over meanwhile: there is nothing to wait on
        Thread.sleep(1_500);
        assertThat(older.status().nodes()).as("the older master never got the node").isEmpty();
        assertThat(node.status().masterView()).isEqualTo(followed);
      } finally {
        newer.close();
      }
    }
  }

  @Test
  void aPoolOnIpv6PutsAndGetsWithBracketedEndpoints() throws Exception {
    MasterConfig config = MasterConfig.defaults("v6");
    try (Master master =
        new Master(
                new MasterSettings(
                    config,
                    "::",
                    0,
                    0,
                    "::1",
                    io.kvpool.security.PoolSecrets.none(),
                    java.util.Optional.empty()))
            .start()) {
      HostPort masterAt = HostPort.parse("[::1]:" + master.rpcEndpoint().port());
      StorageConfig sc =
          StorageConfig.builder(List.of(masterAt), "n6", 4 << 20)
              .address("::", "::1")
              .heartbeat(Duration.ofMillis(200))
              .build();
      try (StorageNode node = new StorageNode(sc).start(T);
          KvPoolClient client =
              KvPoolClient.connect(ClientConfig.builder().master(masterAt.toString()).build())) {
        assertThat(node.endpoint()).startsWith("[::1]:");
        assertThat(master.status().nodes().get(0).endpoint()).isEqualTo(node.endpoint());
        assertThat(master.status().leader().endpoint()).startsWith("[::1]:");
        ByteBuffer v = ByteBuffer.allocateDirect(5000);
        for (int i = 0; i < v.capacity(); i++) {
          v.put(i, (byte) i);
        }
        client.put("v6", v, 1);
        assertThat(client.get("v6")).isEqualTo(v);
      }
    }
  }

  @Test
  void ascendWithoutItsRuntimeFailsReadinessNamingTheLibrary() throws Exception {
    try (Master master =
        new Master(MasterSettings.local(MasterConfig.defaults("npu"), "127.0.0.1", 0, 0)).start()) {
      StorageConfig ascend =
          StorageConfig.builder(List.of(master.rpcEndpoint()), "npu-1", 1 << 20)
              .heartbeat(Duration.ofMillis(200))
              .transport(new StorageConfig.Transport("ascend", 1))
              .build();
      // this JVM has no Ascend runtime (KVPOOL_ASCEND_LIB unset, no driver): as on a node without
      // the mounts.
      // DeviceBackendIT starts a node process with the stand-in runtime, which registers.
      {
        try (StorageNode node = new StorageNode(ascend).start(T)) {
          StorageStatus status = node.status();
          assertThat(status.transport().ready()).isFalse();
          assertThat(status.transport().message())
              .contains("libascendcl.so")
              .contains("/usr/local/Ascend/driver");
          var http = java.net.http.HttpClient.newHttpClient();
          var ready =
              http.send(
                  java.net.http.HttpRequest.newBuilder(
                          java.net.URI.create("http://" + node.adminEndpoint() + "/ready"))
                      .build(),
                  java.net.http.HttpResponse.BodyHandlers.ofString());
          assertThat(ready.statusCode()).isEqualTo(503);
          assertThat(ready.body()).contains("libascendcl.so");
          assertThat(master.status().nodes()).isEmpty();
        }
      }
    }
  }
}
