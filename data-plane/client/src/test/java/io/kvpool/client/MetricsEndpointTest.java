package io.kvpool.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvpool.master.Master;
import io.kvpool.master.MasterConfig;
import io.kvpool.master.MasterSettings;
import io.kvpool.storage.StorageConfig;
import io.kvpool.storage.StorageNode;
import io.prometheus.metrics.config.EscapingScheme;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The /metrics endpoints of master and storage node, and the Java client's registry: every metric
 * family by its name and type, exactly (dashboards and alerts depend on the names: a rename must
 * change this test and the documented list in data-plane/README.md together), and the latency
 * histograms of every request served and every exchange made.
 */
class MetricsEndpointTest {
  private static final Pattern TYPE = Pattern.compile("^# TYPE (\\S+) (\\S+)$", Pattern.MULTILINE);

  /** The master's metric families and their types. */
  static final Map<String, String> MASTER =
      families(
          "kvpool_auth_failures_total counter",
          "kvpool_body_budget_available_bytes gauge",
          "kvpool_build_info gauge",
          "kvpool_capacity_bytes gauge",
          "kvpool_commit_waits_total counter",
          "kvpool_connections gauge",
          "kvpool_control_body_budget_available_bytes gauge",
          "kvpool_connections_closed_total counter",
          "kvpool_connections_refused_total counter",
          "kvpool_evictions_total counter",
          "kvpool_extents_total counter",
          "kvpool_get_hits_total counter",
          "kvpool_get_misses_total counter",
          "kvpool_gets_total counter",
          "kvpool_master_leader gauge",
          "kvpool_master_view gauge",
          "kvpool_node_commits_total counter",
          "kvpool_node_capacity_bytes gauge",
          "kvpool_node_silent gauge",
          "kvpool_node_up gauge",
          "kvpool_node_used_bytes gauge",
          "kvpool_objects gauge",
          "kvpool_objects_lost_total counter",
          "kvpool_objects_pending gauge",
          "kvpool_objects_recovered_total counter",
          "kvpool_objects_under_replicated gauge",
          "kvpool_pending_expired_total counter",
          "kvpool_puts_total counter",
          "kvpool_removed_by_pattern_total counter",
          "kvpool_repair_failures_total counter",
          "kvpool_repaired_bytes_total counter",
          "kvpool_repairs_total counter",
          "kvpool_rpc_server_duration_seconds histogram",
          "kvpool_spills_total counter",
          "kvpool_rpc_server_errors_total counter",
          "kvpool_sessions_accepted_total counter",
          "kvpool_tombstones gauge",
          "kvpool_tombstones_dropped_total counter",
          "kvpool_used_bytes gauge",
          "kvpool_version_mismatch_total counter",
          "kvpool_evicted_bytes_total counter",
          "kvpool_capacity_misses_total counter",
          "kvpool_evicted_bytes_per_second gauge",
          "kvpool_capacity_misses_per_second gauge",
          "kvpool_get_miss_ratio gauge",
          "kvpool_tier_capacity_bytes gauge",
          "kvpool_tier_used_bytes gauge",
          "kvpool_tier_objects gauge",
          "kvpool_tier_fullness_ratio gauge");

  /** A storage node's metric families and their types. */
  static final Map<String, String> STORAGE =
      families(
          "kvpool_auth_failures_total counter",
          "kvpool_body_budget_available_bytes gauge",
          "kvpool_build_info gauge",
          "kvpool_connections gauge",
          "kvpool_connections_closed_total counter",
          "kvpool_connections_refused_total counter",
          "kvpool_control_body_budget_available_bytes gauge",
          "kvpool_rpc_server_duration_seconds histogram",
          "kvpool_rpc_server_errors_total counter",
          "kvpool_sessions_accepted_total counter",
          "kvpool_storage_capacity_bytes gauge",
          "kvpool_storage_commits_total counter",
          "kvpool_storage_device_ready gauge",
          "kvpool_storage_extent_writes_cut_total counter",
          "kvpool_storage_objects gauge",
          "kvpool_storage_read_bytes_total counter",
          "kvpool_storage_reads_total counter",
          "kvpool_storage_refused_total counter",
          "kvpool_storage_registered gauge",
          "kvpool_storage_replies_aborted_total counter",
          "kvpool_storage_replies_from_files_total counter",
          "kvpool_storage_tombstones gauge",
          "kvpool_storage_write_bytes_total counter",
          "kvpool_storage_writes_total counter",
          "kvpool_version_mismatch_total counter");

  /**
   * Labelled counters that appear with their first event (a refusal, a closed connection, a node's
   * COMMIT).
   */
  static final List<String> ON_FIRST_EVENT =
      List.of(
          "kvpool_auth_failures_total",
          "kvpool_connections_closed_total",
          "kvpool_connections_refused_total",
          "kvpool_extents_total",
          "kvpool_node_commits_total",
          "kvpool_removed_by_pattern_total",
          "kvpool_rpc_server_errors_total",
          "kvpool_sessions_accepted_total",
          "kvpool_storage_refused_total");

  /** The Java client's metric families and their types. */
  static final Map<String, String> CLIENT =
      families(
          "kvpool_client_extent_puts_total counter",
          "kvpool_client_location_cache_total counter",
          "kvpool_client_operation_duration_seconds histogram",
          "kvpool_client_put_commits_total counter",
          "kvpool_client_rpc_duration_seconds histogram");

  private Master master;
  private StorageNode node;
  private final PrometheusRegistry clientRegistry = new PrometheusRegistry();
  private KvPoolClient client;

  private static Map<String, String> families(String... lines) {
    Map<String, String> out = new TreeMap<>();
    for (String line : lines) {
      String[] parts = line.split(" ");
      out.put(parts[0], parts[1]);
    }
    return out;
  }

  @BeforeEach
  void start() throws Exception {
    master =
        new Master(MasterSettings.local(MasterConfig.defaults("metrics"), "127.0.0.1", 0, 0))
            .start();
    node =
        new StorageNode(
                StorageConfig.local(master.rpcEndpoint(), "n1", "127.0.0.1", 8L << 20, 1)
                    .withHeartbeat(Duration.ofMillis(200)))
            .start(Duration.ofSeconds(10));
    client =
        KvPoolClient.connect(
            ClientConfig.builder().master(master.rpcEndpoint()).metrics(clientRegistry).build());
    ByteBuffer v = ByteBuffer.allocateDirect(4096);
    client.put("m/one", v, 1);
    client.get("m/one");
    client.get("m/one"); // from the held replica list
    Map<String, ByteBuffer> batch = new LinkedHashMap<>();
    for (int i = 0; i < 4; i++) {
      batch.put("m/batch/" + i, v.duplicate());
    }
    client.putBatch(batch, 1);
    client.getBatch(List.copyOf(batch.keySet()));
    client.exists("m/missing");
  }

  @AfterEach
  void stop() {
    client.close();
    node.close();
    master.close();
  }

  /**
   * Every family exposed is one of {@code expected}, with its type; every one of them is exposed
   * but those that appear with their first event.
   */
  private static void assertFamilies(String exposition, Map<String, String> expected) {
    Map<String, String> exposed = typesOf(exposition);
    assertThat(expected).containsAllEntriesOf(exposed);
    Map<String, String> always = new TreeMap<>(expected);
    ON_FIRST_EVENT.forEach(always::remove);
    assertThat(exposed).containsAllEntriesOf(always);
  }

  private static Map<String, String> typesOf(String exposition) {
    Map<String, String> out = new TreeMap<>();
    Matcher m = TYPE.matcher(exposition);
    while (m.find()) {
      String name = m.group(1);
      out.put(
          m.group(2).equals("counter") && !name.endsWith("_total") ? name + "_total" : name,
          m.group(2));
    }
    return out;
  }

  @Test
  void theMastersMetricNamesAreStableAndEveryRequestIsTimed() throws Exception {
    String body = AdminMetrics.scrape(master.adminEndpoint());
    assertFamilies(body, MASTER);
    for (String op :
        List.of("PUT_START", "COMMIT", "GET_REPLICAS", "EXISTS")) { // the nodes commit the puts
      assertThat(body)
          .contains("kvpool_rpc_server_duration_seconds_bucket{opcode=\"" + op + "\",le=\"0.001\"}")
          .containsPattern(
              "kvpool_rpc_server_duration_seconds_count\\{opcode=\"" + op + "\"} [1-9]")
          .contains("kvpool_rpc_server_duration_seconds_sum{opcode=\"" + op + "\"}");
    }
    assertThat(body)
        .contains("kvpool_node_commits_total{outcome=\"applied\"} 5.0")
        .containsPattern("kvpool_rpc_server_duration_seconds_count\\{opcode=\"HEARTBEAT\"} [1-9]")
        .contains("kvpool_rpc_server_duration_seconds_bucket{opcode=\"GET_REPLICAS\",le=\"+Inf\"}");
  }

  @Test
  void aStorageNodesMetricNamesAreStableAndEveryRequestIsTimed() throws Exception {
    String body = AdminMetrics.scrape(node.adminEndpoint());
    assertFamilies(body, STORAGE);
    assertThat(body)
        .containsPattern("kvpool_rpc_server_duration_seconds_count\\{opcode=\"WRITE\"} [1-9]")
        .containsPattern("kvpool_rpc_server_duration_seconds_count\\{opcode=\"READ\"} [1-9]")
        .containsPattern("kvpool_rpc_server_duration_seconds_count\\{opcode=\"WRITE_BATCH\"} 1")
        .containsPattern("kvpool_rpc_server_duration_seconds_count\\{opcode=\"READ_BATCH\"} 1")
        .contains("kvpool_storage_commits_total{outcome=\"sent\"} 5.0");
  }

  @Test
  void refusalsAreCountedByOpcodeAndCode() throws Exception {
    try (KvPoolClient other =
        KvPoolClient.connect(
            ClientConfig.builder()
                .master(master.rpcEndpoint())
                .metrics(new PrometheusRegistry())
                .build())) {
      other.put("m/one", ByteBuffer.allocateDirect(16), 1); // kept: the key is stored
    }
    String body = AdminMetrics.scrape(master.adminEndpoint());
    assertThat(body)
        .doesNotContain(
            "kvpool_rpc_server_errors_total{code=\"ALREADY_EXISTS\""); // a per-item status
    io.kvpool.protocol.RpcConnection raw =
        io.kvpool.protocol.RpcConnection.open(
            master.rpcEndpoint(),
            new io.kvpool.protocol.Handshake(
                io.kvpool.common.VersionInfo.CURRENT, io.kvpool.protocol.Role.CLIENT, "", "raw"),
            Duration.ofSeconds(5));
    try (raw;
        io.kvpool.protocol.RpcConnection.Deadline d = raw.deadline(Duration.ofSeconds(5))) {
      raw.call(io.kvpool.protocol.Opcode.READ, null);
    } catch (io.kvpool.protocol.RemoteErrorException expected) {
      assertThat(expected.code()).isEqualTo(io.kvpool.protocol.ErrorCode.UNKNOWN_OPCODE);
    }
    String after = AdminMetrics.scrape(master.adminEndpoint());
    assertThat(after)
        .contains("kvpool_rpc_server_errors_total{code=\"UNKNOWN_OPCODE\",opcode=\"READ\"} 1.0");
    assertThat(typesOf(after)).containsEntry("kvpool_rpc_server_errors_total", "counter");
  }

  @Test
  void theJavaClientTimesEveryExchangeAndOperationInItsRegistry() throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    PrometheusTextFormatWriter.create()
        .write(out, clientRegistry.scrape(), EscapingScheme.UNDERSCORE_ESCAPING);
    String body = out.toString(StandardCharsets.UTF_8);
    assertThat(typesOf(body)).isEqualTo(CLIENT);
    for (String op :
        List.of(
            "PUT_START",
            "GET_REPLICAS",
            "EXISTS",
            "WRITE",
            "READ",
            "WRITE_BATCH",
            "READ_BATCH",
            "STATS")) {
      assertThat(body)
          .containsPattern(
              "kvpool_client_rpc_duration_seconds_count\\{opcode=\"" + op + "\"} [1-9]");
    }
    assertThat(body)
        .contains("kvpool_client_operation_duration_seconds_count{operation=\"get\"} 2")
        .contains("kvpool_client_operation_duration_seconds_count{operation=\"put\"} 1")
        .contains("kvpool_client_operation_duration_seconds_count{operation=\"put_batch\"} 1")
        .contains("kvpool_client_operation_duration_seconds_count{operation=\"get_batch\"} 1")
        .contains("kvpool_client_operation_duration_seconds_count{operation=\"exists\"} 1")
        .contains("kvpool_client_location_cache_total{result=\"hit\"} 1.0")
        .contains("kvpool_client_location_cache_total{result=\"miss\"} 5.0")
        .contains("kvpool_client_put_commits_total{by=\"nodes\"} 5.0")
        .doesNotContain(
            "opcode=\"PUT_END\""); // one master exchange per put: the storage nodes committed them
  }
}
