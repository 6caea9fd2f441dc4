package io.kvpool.master;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvpool.protocol.ErrorCode;
import io.kvpool.protocol.PutStartResult;
import io.kvpool.protocol.ReplicaGrant;
import io.kvpool.protocol.SliceGrant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class ReplicaPlacementTest {
  @Test
  void replicasLandOnDistinctNodes() {
    PoolFixture f = new PoolFixture(1.0, 0.1).node("a", 1 << 20).node("b", 1 << 20).node("c", 1 << 20);
    for (int i = 0; i < 100; i++) {
      PutStartResult r = f.start("k" + i, 1000, 3);
      assertThat(r.status()).isEqualTo(ErrorCode.OK);
      Set<String> nodes = r.replicas().stream().map(ReplicaGrant::nodeId).collect(Collectors.toSet());
      assertThat(nodes).hasSize(3);
    }
  }

  @Test
  void moreReplicasThanNodesIsRefusedNamingTheCounts() {
    PoolFixture f = new PoolFixture(1.0, 0.1).node("a", 1 << 20).node("b", 1 << 20).settle();
    PutStartResult r = f.start("k", 10, 3);
    assertThat(r.status()).isEqualTo(ErrorCode.NOT_ENOUGH_NODES);
    assertThat(r.message()).contains("only 2 storage node(s) are ALIVE");
  }

  @Test
  void freshEmptyNodeDoesNotReceiveEveryNewPut() {
    PoolFixture f = new PoolFixture(1.0, 0.1).node("a", 64L << 20).node("b", 64L << 20).node("c", 64L << 20);
    for (int i = 0; i < 300; i++) {
      f.put("old" + i, 128 << 10, 1); // ~37 MiB across three nodes: each about 60% full
    }
    f.node("fresh", 64L << 20);
    Map<String, Integer> perNode = new HashMap<>();
    for (int i = 0; i < 200; i++) {
      PutStartResult r = f.start("new" + i, 4096, 1);
      perNode.merge(r.replicas().get(0).nodeId(), 1, Integer::sum);
    }
    assertThat(perNode.get("fresh")).as("the empty node gets more than its share, not everything")
        .isGreaterThan(50).isLessThan(150);
    assertThat(perNode).containsKeys("a", "b", "c");
  }

  @Test
  void loadSpreadsEvenlyAcrossEqualNodes() {
    PoolFixture f = new PoolFixture(1.0, 0.1).node("a", 64L << 20).node("b", 64L << 20).node("c", 64L << 20);
    for (int i = 0; i < 600; i++) {
      f.put("k" + i, 64 << 10, 1);
    }
    PoolSnapshot s = f.pool.snapshot();
    long min = s.nodes().stream().mapToLong(PoolSnapshot.Node::usedBytes).min().orElseThrow();
    long max = s.nodes().stream().mapToLong(PoolSnapshot.Node::usedBytes).max().orElseThrow();
    assertThat(max - min).as("power of two choices keeps nodes within a few values").isLessThan(10L * (64 << 10));
  }

  @Test
  void fragmentedNodeHoldsAValueInSlicesCoveringItExactly() {
    PoolFixture f = new PoolFixture(1.0, 0.1).node("a", 1 << 20).settle();
    for (int i = 0; i < 16; i++) {
      f.put("k" + i, 64 << 10, 1);
    }
    for (int i = 0; i < 16; i += 2) {
      f.pool.remove(List.of("k" + i)).statuses(); // eight separate 64 KiB holes
      f.pool.pin("k" + (i + 1), true); // and nothing evictable to make more room
    }
    PutStartResult r = f.start("big", 200_000, 1);
    assertThat(r.status()).isEqualTo(ErrorCode.OK);
    List<SliceGrant> slices = r.replicas().get(0).slices();
    assertThat(slices).hasSize(4);
    int covered = 0;
    for (SliceGrant s : slices) {
      assertThat(s.slice().valueOffset()).isEqualTo(covered);
      covered += s.slice().length();
    }
    assertThat(covered).isEqualTo(200_000);
    assertThat(f.start("too-big", 400_000, 1).status()).as("about 320 KiB left").isEqualTo(ErrorCode.NO_SPACE);
  }

  @Test
  void drainingNodeReceivesNoNewReplicas() {
    PoolFixture f = new PoolFixture(1.0, 0.1).node("a", 1 << 20).node("b", 1 << 20);
    f.pool.drain("a");
    for (int i = 0; i < 20; i++) {
      assertThat(f.start("k" + i, 100, 1).replicas().get(0).nodeId()).isEqualTo("b");
    }
  }
}
