package io.kvpool.master;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kvpool.admin.AdminJson;
import io.kvpool.admin.MasterStatus;
import io.kvpool.common.VersionInfo;
import io.kvpool.protocol.RegisterNode;
import io.kvpool.protocol.SegmentInfo;
import io.kvpool.security.PoolSecrets;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The master's admin HTTP API over a real socket. */
class MasterAdminTest {
  private final HttpClient http = HttpClient.newHttpClient();
  private Master master;

  private static final String TOKEN = "admin-secret-token";

  @BeforeEach
  void start() throws Exception {
    MasterSettings local =
        MasterSettings.local(MasterConfig.defaults("admin-pool"), "127.0.0.1", 0, 0);
    Path secrets = Files.createTempDirectory("kvpool-admin-secrets");
    Files.writeString(secrets.resolve("admin-token"), TOKEN);
    master =
        new Master(
                new MasterSettings(
                    local.config(),
                    "127.0.0.1",
                    0,
                    0,
                    "127.0.0.1",
                    PoolSecrets.fromDirectory(secrets.toString()),
                    local.election()))
            .start();
    master
        .metadata()
        .register(
            new RegisterNode("n1", "127.0.0.1:9", List.of(new SegmentInfo(0, 1 << 20)), 0, false),
            VersionInfo.CURRENT,
            new Object(),
            () -> true);
  }

  @AfterEach
  void stop() {
    master.close();
  }

  private HttpResponse<String> send(String method, String path) throws Exception {
    return send(method, path, null);
  }

  private HttpResponse<String> send(String method, String path, String token) throws Exception {
    HttpRequest.Builder req =
        HttpRequest.newBuilder(URI.create("http://" + master.adminEndpoint() + path))
            .method(method, HttpRequest.BodyPublishers.noBody());
    if (token != null) {
      req.header("Authorization", "Bearer " + token);
    }
    return http.send(req.build(), HttpResponse.BodyHandlers.ofString());
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
    for (String name :
        List.of(
            "kvpool_capacity_bytes 1048576",
            "kvpool_used_bytes 0",
            "kvpool_objects 0",
            "kvpool_puts_total",
            "kvpool_gets_total",
            "kvpool_get_hits_total",
            "kvpool_get_misses_total",
            "kvpool_evictions_total",
            "kvpool_version_mismatch_total",
            "kvpool_master_leader 1",
            "kvpool_build_info{protocol=\""
                + VersionInfo.CURRENT.protocol()
                + "\",release=\""
                + VersionInfo.CURRENT.release()
                + "\"} 1",
            "kvpool_node_capacity_bytes{node=\"n1\"} 1048576",
            "# TYPE kvpool_puts_total counter",
            "kvpool_evicted_bytes_total 0",
            "kvpool_capacity_misses_total 0",
            "kvpool_capacity_misses_per_second 0",
            "kvpool_evicted_bytes_per_second 0",
            "kvpool_get_miss_ratio 0",
            "kvpool_tier_capacity_bytes{tier=\"memory\"} 1048576",
            "kvpool_tier_used_bytes{tier=\"memory\"} 0",
            "kvpool_tier_fullness_ratio{tier=\"memory\"} 0")) {
      assertThat(body).contains(name);
    }
  }

  @Test
  void statusIsTheSharedVersionedDocument() throws Exception {
    MasterStatus status = AdminJson.read(send("GET", "/status").body(), MasterStatus.class);
    assertThat(status.poolId()).isEqualTo("admin-pool");
    assertThat(status.role()).isEqualTo("LEADER");
    assertThat(status.view()).isPositive();
    assertThat(status.leader().endpoint()).isEqualTo(master.rpcEndpoint().toString());
    assertThat(status.releaseVersion()).isEqualTo(VersionInfo.CURRENT.release());
    assertThat(status.protocolVersion()).isEqualTo(VersionInfo.CURRENT.protocol());
    assertThat(status.capacityBytes()).isEqualTo(1 << 20);
    MasterStatus.NodeStatus node = status.nodes().get(0);
    assertThat(node.id()).isEqualTo("n1");
    assertThat(node.state()).isEqualTo("ALIVE");
    assertThat(status.aliveNodes()).isEqualTo(1);
    JsonNode raw = new ObjectMapper().readTree(send("GET", "/status").body());
    assertThat(raw.path("apiVersion").asText()).isEqualTo(AdminJson.API_VERSION);
    assertThat(raw.path("counters").has("versionMismatches")).isTrue();
    MasterStatus.CacheSignals signals = status.cacheSignals();
    assertThat(signals.windowSeconds()).isEqualTo(60);
    assertThat(signals.tiers()).containsExactly(new MasterStatus.Tier("memory", 1 << 20, 0, 0));
    assertThat(raw.path("cacheSignals").has("capacityMissesPerSecond")).isTrue();
  }

  @Test
  void mutatingEndpointsNeedTheAdminToken() throws Exception {
    assertThat(send("POST", "/nodes/n1/drain").statusCode()).isEqualTo(401);
    assertThat(send("POST", "/nodes/n1/drain", "wrong").statusCode()).isEqualTo(401);
    assertThat(send("POST", "/step-down").statusCode()).isEqualTo(401);
    assertThat(master.metadata().snapshot().nodes().get(0).state()).isEqualTo(NodeState.ALIVE);
  }

  @Test
  void drainIsAPostOnAKnownNode() throws Exception {
    assertThat(send("GET", "/nodes/n1/drain", TOKEN).statusCode()).isEqualTo(405);
    assertThat(send("POST", "/nodes/ghost/drain", TOKEN).statusCode()).isEqualTo(404);
    assertThat(send("POST", "/nodes/n1/drain", TOKEN).statusCode()).isEqualTo(200);
    assertThat(master.metadata().snapshot().nodes().get(0).state()).isEqualTo(NodeState.DRAINING);
  }
}
