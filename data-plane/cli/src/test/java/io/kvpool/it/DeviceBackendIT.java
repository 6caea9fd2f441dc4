package io.kvpool.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.kvpool.cli.AdminApi;
import io.kvpool.cli.StorageNodeProcess;
import io.kvpool.client.KvPoolClient;
import java.nio.ByteBuffer;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Storage nodes of an {@code ascend} TransferEngine open the Ascend device backend at start: with
 * the test-only stand-in runtime ({@code KVPOOL_ASCEND_LIB}) they become ready, report the backend
 * in /status, and serve. (Without a runtime a node stays unready naming the library:
 * FencingAndAddressingTest.)
 */
class DeviceBackendIT {
  @RegisterExtension
  final LocalPoolExtension pool =
      new LocalPoolExtension(
          b ->
              b.storageNodes(2)
                  .memoryPerNode("64MiB")
                  .storageOption("--transport", "ascend")
                  .storageOption("--device-count", "1")
                  .childEnv("KVPOOL_ASCEND_LIB", System.getProperty("kvpool.ascendStandIn"))
                  .childEnv("ASCEND_VISIBLE_DEVICES", "3"));

  @Test
  void nodesOpenTheAscendBackendAndServe() {
    for (StorageNodeProcess node : pool.pool().storageNodes()) {
      JsonNode transport = new AdminApi(node.adminAddress()).status().path("transport");
      assertThat(transport.path("protocol").asText()).isEqualTo("ascend");
      assertThat(transport.path("backend").asText()).isEqualTo("ascend");
      assertThat(transport.path("ready").asBoolean()).as(transport.toString()).isTrue();
      assertThat(new AdminApi(node.adminAddress()).statusCode("/ready")).isEqualTo(200);
    }
    // the master learns each node's transport and the devices the device plugin allocated (the
    // visibility variable)
    for (JsonNode node : pool.masterAdmin().status().path("nodes")) {
      assertThat(node.path("transport").asText()).isEqualTo("ascend");
      assertThat(node.path("devices").toString()).isEqualTo("[\"ascend:3\"]");
    }
    KvPoolClient client = pool.newClient("it-ascend");
    ByteBuffer v = Values.random(100_000, new SplittableRandom(4));
    client.put("npu/1", v, 2);
    assertThat(client.get("npu/1")).isEqualTo(v);
  }
}
