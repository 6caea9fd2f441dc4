package io.kvpool.master;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class ObjectTableTest {
  private final ObjectTable table = new ObjectTable();

  @Test
  void eachSlotsLastAccessFollowsItsObjectThroughRemovalsAndAccesses() {
    Random random = new Random(3);
    List<StoredObject> present = new ArrayList<>();
    for (int i = 0; i < 1_000; i++) {
      StoredObject o = new StoredObject("k" + i, i + 1, 64, 0, 1);
      table.touched(o, 10_000 + i); // before it is in the table
      table.add(o);
      present.add(o);
    }
    for (int round = 0; round < 2_000; round++) {
      StoredObject o = present.get(random.nextInt(present.size()));
      if (random.nextBoolean()) {
        table.remove(o); // the last slot's object moves into its slot
        present.remove(o);
      } else {
        table.touched(o, 20_000 + round);
      }
      if (present.size() < 100) {
        break;
      }
    }
    assertThat(table.size()).isEqualTo(present.size());
    for (int slot = 0; slot < table.size(); slot++) {
      assertThat(table.lastAccess(slot))
          .as("slot %d", slot)
          .isEqualTo(table.slot(slot).lastAccessMillis);
    }
  }
}
