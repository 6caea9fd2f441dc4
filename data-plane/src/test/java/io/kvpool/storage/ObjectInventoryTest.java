package io.kvpool.storage;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvpool.protocol.InventoryEntry;
import io.kvpool.protocol.Location;
import org.junit.jupiter.api.Test;

class ObjectInventoryTest {
  @Test
  void newWritesReplaceOverlappingRecordsAndReleasesDropThem() {
    ObjectInventory inv = new ObjectInventory();
    inv.record(new InventoryEntry("a", 0, 0, 128, 0, 128, 1));
    inv.record(new InventoryEntry("b", 0, 128, 64, 0, 64, 2));
    inv.record(new InventoryEntry("c", 1, 0, 64, 0, 64, 3));
    inv.record(new InventoryEntry("d", 0, 64, 128, 0, 128, 4)); // overlaps a and b: both are stale now
    assertThat(inv.entries()).extracting(InventoryEntry::key).containsExactlyInAnyOrder("c", "d");
    inv.drop(new Location(1, 0));
    assertThat(inv.entries()).extracting(InventoryEntry::key).containsExactly("d");
  }
}
