package io.kvpool.bench.ramp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class NodeShareTest {

  @Test
  void fairShareIsTheNodesPartOfTheEligibleCapacity() {
    Map<String, Long> replicas = new LinkedHashMap<>();
    replicas.put("node-1", 100L);
    replicas.put("node-2", 100L);
    replicas.put("node-3", 200L);
    Map<String, Long> capacity = Map.of("node-1", 100L, "node-2", 100L, "node-3", 200L);

    List<NodeShare> shares = NodeShare.of(replicas, capacity, Map.of("node-1", 0.5));

    assertThat(shares).extracting(NodeShare::node).containsExactly("node-1", "node-2", "node-3");
    assertThat(shares.get(0).share()).isCloseTo(0.25, within(1e-9));
    assertThat(shares.get(0).fairShare()).isCloseTo(0.25, within(1e-9));
    assertThat(shares.get(2).fairShare()).isCloseTo(0.5, within(1e-9));
    assertThat(shares).allSatisfy(s -> assertThat(s.ratio()).isCloseTo(1.0, within(1e-9)));
    assertThat(shares.get(0).fill()).isEqualTo(0.5);
    assertThat(shares.get(1).fill()).isZero();
  }

  @Test
  void aNodeTakingTwiceItsFairShareHasRatioTwo() {
    Map<String, Long> replicas = new LinkedHashMap<>();
    replicas.put("old", 50L);
    replicas.put("new", 50L);
    Map<String, Long> capacity = Map.of("old", 300L, "new", 100L);

    List<NodeShare> shares = NodeShare.of(replicas, capacity, Map.of());

    assertThat(shares.get(1).ratio()).isCloseTo(2.0, within(1e-9));
    assertThat(shares.get(0).ratio()).isCloseTo(0.5 / 0.75, within(1e-9));
  }

  @Test
  void aNodeThatIsNotEligibleHasNoRatioAndAnEmptyIntervalNoShare() {
    Map<String, Long> replicas = new LinkedHashMap<>();
    replicas.put("alive", 0L);
    replicas.put("registering", 0L);

    List<NodeShare> shares = NodeShare.of(replicas, Map.of("alive", 10L), Map.of());

    assertThat(shares.get(0).share()).isZero();
    assertThat(shares.get(0).ratio()).isZero();
    assertThat(shares.get(1).fairShare()).isZero();
    assertThat(shares.get(1).ratio()).isNaN();
  }

  @Test
  void writtenBytesAreReadFromThePrometheusText() {
    String page =
        "# HELP kvpool_storage_write_bytes_total Bytes written into segments\n"
            + "# TYPE kvpool_storage_write_bytes_total counter\n"
            + "kvpool_storage_writes_total 3.0\n"
            + "kvpool_storage_write_bytes_total 1.2582912E7\n";

    assertThat(NodeWrites.parse(page)).hasValue(12_582_912L);
    assertThat(NodeWrites.parse("kvpool_storage_writes_total 3.0\n")).isEmpty();
  }
}
