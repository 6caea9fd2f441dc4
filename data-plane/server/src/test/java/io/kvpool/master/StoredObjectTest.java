package io.kvpool.master;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvpool.protocol.Slice;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The compact forms an object's metadata takes (a replica held without a list, a one-slice replica
 * as one flat object, the pending put's fields dropped on completion) behave as the list, the
 * record and the fields they replace.
 */
class StoredObjectTest {

  private static Replica replica(Random random) {
    String node = "node-" + random.nextInt(3);
    long incarnation = random.nextInt(2);
    return switch (random.nextInt(3)) {
      case 0 -> Replica.of(node, incarnation, List.of(new Slice(random.nextInt(2), 64, 64, 0)));
      case 1 -> Replica.onDisk(node, incarnation);
      default ->
          Replica.of(
              node, incarnation, List.of(new Slice(0, 0, 32, 0), new Slice(1, 4096, 32, 32)));
    };
  }

  /**
   * Random adds, removes and replacements, with duplicates and misses, agree with an ArrayList
   * (what the object held before) at every step.
   */
  @Test
  void replicasAgreeWithAListThroughAddsRemovesAndReplacements() {
    for (long seed = 1; seed <= 4; seed++) {
      Random random = new Random(seed);
      StoredObject o = new StoredObject("k", 1, 64, 0, 2);
      List<Replica> reference = new ArrayList<>();
      for (int step = 0; step < 20_000; step++) {
        Replica r = replica(random);
        switch (random.nextInt(reference.size() > 4 ? 2 : 4)) {
          case 0 -> assertThat(o.removeReplica(r)).isEqualTo(reference.remove(r));
          case 1 -> {
            Replica by = replica(random);
            int at = reference.indexOf(r);
            if (at >= 0) {
              reference.set(at, by);
            }
            o.replaceReplica(r, by);
          }
          default -> {
            o.addReplica(r);
            reference.add(r);
          }
        }
        assertThat(o.replicas()).as("seed %d step %d", seed, step).isEqualTo(reference);
        assertThat(o.replicaCount()).isEqualTo(reference.size());
        assertThat(o.hasReplica(r)).isEqualTo(reference.contains(r));
      }
    }
  }

  @Test
  void replicasIsASnapshot() {
    StoredObject o = new StoredObject("k", 1, 64, 0, 2);
    Replica a = Replica.onDisk("a", 1);
    o.addReplica(a);
    List<Replica> before = o.replicas();
    o.addReplica(Replica.onDisk("b", 1));
    o.removeReplica(a);
    assertThat(before).containsExactly(a);
    assertThat(o.replicas()).containsExactly(Replica.onDisk("b", 1));
  }

  /** A replica's equality and slices do not depend on which form holds it. */
  @Test
  void aOneSliceReplicaIsTheReplicaOfItsSlice() {
    Slice whole = new Slice(3, 1L << 33, 4096, 0);
    Replica r = Replica.of("n", 7, List.of(whole));
    assertThat(r.slices()).containsExactly(whole);
    assertThat(r).isEqualTo(Replica.of("n", 7, new ArrayList<>(List.of(whole))));
    assertThat(r).hasSameHashCodeAs(Replica.of("n", 7, List.of(whole)));
    assertThat(r).isNotEqualTo(Replica.of("n", 8, List.of(whole)));
    assertThat(r).isNotEqualTo(Replica.of("m", 7, List.of(whole)));
    assertThat(r).isNotEqualTo(Replica.of("n", 7, List.of(new Slice(3, 1L << 33, 4095, 0))));
    assertThat(r).isNotEqualTo(Replica.onDisk("n", 7));
    assertThat(r.onDisk()).isFalse();
    assertThat(r.allocatedBytes()).isEqualTo(SegmentAllocator.blockSize(4096));

    // a single slice that does not start the value stays a list of it
    Slice tail = new Slice(3, 0, 64, 64);
    assertThat(Replica.of("n", 7, List.of(tail)).slices()).containsExactly(tail);

    List<Slice> split = List.of(new Slice(0, 0, 32, 0), new Slice(1, 64, 32, 32));
    Replica s = Replica.of("n", 7, split);
    assertThat(s.slices()).isEqualTo(split);
    assertThat(s).isEqualTo(Replica.of("n", 7, split)).isNotEqualTo(r);
    assertThat(s.allocatedBytes()).isEqualTo(2 * SegmentAllocator.blockSize(32));
    assertThat(Replica.onDisk("n", 7).onDisk()).isTrue();
    assertThat(Replica.onDisk("n", 7).slices()).isEmpty();
  }

  @Test
  void completionDropsThePendingPutsFields() {
    StoredObject o = new StoredObject("k", 1, 64, 0, 2);
    o.pending().deadlineMillis = 5_000;
    Replica a = Replica.onDisk("a", 1);
    Replica b = Replica.onDisk("b", 1);
    o.addReplica(a);
    o.addReplica(b);
    assertThat(o.complete()).isFalse();
    assertThat(o.visible()).isFalse();
    assertThat(o.pendingDeadlineMillis()).isEqualTo(5_000);

    o.committedBy("a");
    assertThat(o.visible()).isTrue();
    assertThat(o.committedReplicas()).containsExactly(a);
    assertThat(o.allReplicasCommitted()).isFalse();
    o.committedBy("b");
    assertThat(o.allReplicasCommitted()).isTrue();

    o.markComplete();
    assertThat(o.complete()).isTrue();
    assertThat(o.pending()).isNull();
    assertThat(o.visible()).isTrue();
    assertThat(o.awaitsNodeCommits()).isFalse();
    assertThat(o.allReplicasCommitted()).isFalse();
    assertThat(o.replicas()).containsExactly(a, b);

    StoredObject adopted = StoredObject.adopted("k", 1, 64, 0, 1);
    assertThat(adopted.complete()).isTrue();
    assertThat(adopted.adopted).isTrue();
    assertThat(adopted.evictable(0)).isTrue();
  }
}
