package io.kvpool.storage;

import io.kvpool.protocol.InventoryEntry;
import io.kvpool.protocol.Location;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The node's own record of the replicas it holds, so it can re-register with them (lease recovery after a master
 * change). A new write removes every record it overlaps: the master only reuses space it freed.
 */
final class ObjectInventory {
  private final Map<Integer, TreeMap<Long, InventoryEntry>> bySegment = new HashMap<>();

  synchronized void record(InventoryEntry e) {
    TreeMap<Long, InventoryEntry> seg = bySegment.computeIfAbsent(e.segmentId(), k -> new TreeMap<>());
    long end = e.offset() + Math.max(1, e.length());
    Map.Entry<Long, InventoryEntry> before = seg.floorEntry(e.offset());
    if (before != null && before.getKey() + Math.max(1, before.getValue().length()) > e.offset()) {
      seg.remove(before.getKey());
    }
    seg.subMap(e.offset(), true, end, false).clear();
    seg.put(e.offset(), e);
  }

  synchronized void drop(Location l) {
    TreeMap<Long, InventoryEntry> seg = bySegment.get(l.segmentId());
    if (seg != null) {
      seg.remove(l.offset());
    }
  }

  synchronized List<InventoryEntry> entries() {
    List<InventoryEntry> out = new ArrayList<>();
    bySegment.values().forEach(seg -> out.addAll(seg.values()));
    return out;
  }

  synchronized int size() {
    int n = 0;
    for (TreeMap<Long, InventoryEntry> seg : bySegment.values()) {
      n += seg.size();
    }
    return n;
  }
}
