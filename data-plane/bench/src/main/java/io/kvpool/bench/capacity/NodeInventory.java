package io.kvpool.bench.capacity;

import io.kvpool.protocol.InventoryObject;
import io.kvpool.protocol.Slice;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * What a {@link SyntheticNode} holds: per object the number its key is made from, its generation
 * and the offset of its one block, in growable primitive arrays (tens of millions of objects cost
 * the bench about 20 bytes each, not a record apiece). Not thread-safe: its node guards it.
 */
final class NodeInventory {
  private int[] keyNumbers = new int[1024];
  private long[] generations = new long[1024];
  private long[] offsets = new long[1024];
  private int size;

  void add(int keyNumber, long generation, long offset) {
    if (size == keyNumbers.length) {
      int grown = Math.toIntExact(Math.min(Integer.MAX_VALUE - 8L, size * 2L));
      keyNumbers = Arrays.copyOf(keyNumbers, grown);
      generations = Arrays.copyOf(generations, grown);
      offsets = Arrays.copyOf(offsets, grown);
    }
    keyNumbers[size] = keyNumber;
    generations[size] = generation;
    offsets[size] = offset;
    size++;
  }

  int size() {
    return size;
  }

  int keyNumber(int i) {
    return keyNumbers[i];
  }

  /**
   * Objects {@code from} (inclusive) to {@code to} (exclusive) as REGISTER_INVENTORY lists them:
   * one slice of {@link SyntheticNode#VALUE_BYTES} in segment 0, R = 1.
   */
  List<InventoryObject> chunk(int from, int to) {
    List<InventoryObject> out = new ArrayList<>(to - from);
    for (int i = from; i < to; i++) {
      out.add(
          new InventoryObject(
              CapacityKeys.key(keyNumbers[i]),
              generations[i],
              1,
              SyntheticNode.VALUE_BYTES,
              0,
              List.of(new Slice(0, offsets[i], SyntheticNode.VALUE_BYTES, 0))));
    }
    return out;
  }
}
