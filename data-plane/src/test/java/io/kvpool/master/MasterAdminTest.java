package io.kvpool.master;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kvpool.common.VersionInfo;
import io.kvpool.protocol.RegisterNode;
import io.kvpool.protocol.SegmentInfo;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The master's admin HTTP API over a real socket. */
class MasterAdminTest {
  private final HttpClient http = HttpClient.newHttpClient();
  private Master master;

  @BeforeEach
  void start() throws Exception {
    master = new Master(MasterConfig.defaults("admin-pool"), "127.0.0.1", 0, 0).start();
    master.metadata().register(new RegisterNode("n1", "127.0.0.1:9", List.of(new SegmentInfo(0, 1 << 20)), List.of()),
        VersionInfo.CURRENT);
  }

  @AfterEach
  void stop() {
    master.close();
  }

  private HttpResponse<String> send(String method, String path) throws Exception {
    HttpRequest req = HttpRequest.newBuilder(URI.create("http://" + master.adminEndpoint() + path))
        .method(method, HttpRequest.BodyPublishers.noBody()).build();
    return http.send(req, HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void healthAndReadiness() throws Exception {
    assertThat(send("GET", "/health").statusCode()).isEqualTo(200);
    assertThat(send("GET", "/ready").statusCode()).isEqualTo(200);
    assertThat(send("GET", "/nope").statusCode()).isEqualTo(404);
  }

  @Test
  void metricsUsePrometheusTextWithTheDocumentedNames() throws Exception {
    String body = send("GET", "/metrics").body();
    for (String name : List.of("kvpool_capacity_bytes 1048576", "kvpool_used_bytes 0", "kvpool_objects 0",
        "kvpool_puts_total", "kvpool_gets_total", "kvpool_get_hits_total", "kvpool_get_misses_total",
        "kvpool_evictions_total", "kvpool_leases_active", "kvpool_version_mismatch_total",
        "kvpool_build_info{protocol=\"1.0\",release=\"0.1.0\"} 1", "kvpool_node_capacity_bytes{node=\"n1\"} 1048576",
        "# TYPE kvpool_puts_total counter")) {
      assertThat(body).contains(name);
    }
  }

  @Test
  void statusDescribesPoolAndNodes() throws Exception {
    JsonNode status = new ObjectMapper().readTree(send("GET", "/status").body());
    assertThat(status.path("poolId").asText()).isEqualTo("admin-pool");
    assertThat(status.path("viewNumber").asLong()).isEqualTo(1);
    assertThat(status.path("releaseVersion").asText()).isEqualTo("0.1.0");
    assertThat(status.path("protocolVersion").asText()).isEqualTo("1.0");
    assertThat(status.path("capacityBytes").asLong()).isEqualTo(1 << 20);
    JsonNode node = status.path("nodes").get(0);
    assertThat(node.path("id").asText()).isEqualTo("n1");
    assertThat(node.path("state").asText()).isEqualTo("ALIVE");
    assertThat(node.path("version").asText()).isEqualTo("0.1.0");
    assertThat(node.has("lastHeartbeatMillisAgo")).isTrue();
    assertThat(status.path("counters").has("versionMismatches")).isTrue();
  }

  @Test
  void drainIsAPostOnAKnownNode() throws Exception {
    assertThat(send("GET", "/nodes/n1/drain").statusCode()).isEqualTo(405);
    assertThat(send("POST", "/nodes/ghost/drain").statusCode()).isEqualTo(404);
    assertThat(send("POST", "/nodes/n1/drain").statusCode()).isEqualTo(200);
    assertThat(master.metadata().snapshot().nodes().get(0).state()).isEqualTo("DRAINING");
  }
}
