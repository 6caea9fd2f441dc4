package io.kvpool.master;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvpool.common.VersionInfo;
import io.kvpool.protocol.ProtocolLimits;
import io.kvpool.security.NodeKey;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class StorageNodeRecordTest {
  private static final int MIB = 1 << 20;

  private static StorageNodeRecord node(long... segmentBytes) {
    List<StorageSegment> segments = new ArrayList<>();
    for (int i = 0; i < segmentBytes.length; i++) {
      segments.add(new StorageSegment(i, new SegmentAllocator(segmentBytes[i])));
    }
    return new StorageNodeRecord(
        "n",
        1,
        new byte[16],
        "127.0.0.1:1",
        VersionInfo.CURRENT,
        segments,
        NodeKey.random(),
        new Object(),
        () -> true,
        "tcp",
        List.of(),
        0);
  }

  @Test
  void anEmptyNodeCouldHoldAValueAsLargeAsItsLargestSegmentsTogether() {
    StorageNodeRecord n = node(MIB, 3 * MIB, 2 * MIB);
    assertThat(n.couldEverHold(6 * MIB)).isTrue();
    assertThat(n.couldEverHold(6 * MIB + 1)).isFalse();
    assertThat(n.couldEverHold(0)).isTrue();
    // a value has at most MAX_SLICES slices: only that many of the largest segments count
    long[] many = new long[ProtocolLimits.MAX_SLICES + 1];
    Arrays.fill(many, 64 << 10);
    many[0] = 4096; // the smallest, left out
    StorageNodeRecord m = node(many);
    assertThat(m.couldEverHold(ProtocolLimits.MAX_SLICES * (64 << 10))).isTrue();
    assertThat(m.couldEverHold(ProtocolLimits.MAX_SLICES * (64 << 10) + 1)).isFalse();
  }
}
