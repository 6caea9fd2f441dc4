package io.kvpool.master;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link ObjectTable}'s key index, through the table: random adds and removes (a removal moves the
 * last object into the freed slot) agree with a HashMap at every step, through growth, shrinking
 * and keys whose hashes collide.
 */
class KeyIndexTest {

  private static StoredObject object(String key) {
    return StoredObject.adopted(key, 1, 64, 0, 1);
  }

  @Test
  void lookupsAgreeWithAMapThroughAddsAndRemoves() {
    for (long seed = 1; seed <= 4; seed++) {
      Random random = new Random(seed);
      ObjectTable table = new ObjectTable();
      Map<String, StoredObject> reference = new HashMap<>();
      List<String> present = new ArrayList<>();
      for (int step = 0; step < 150_000; step++) {
        boolean grow = step < 75_000 ? random.nextInt(4) != 0 : random.nextInt(4) == 0;
        if (grow || present.isEmpty()) {
          // "Aa" and "BB" have the same hash: keys built from them collide in whole groups
          int n = random.nextInt(1 << 18);
          String key = (n % 2 == 0 ? "Aa" : "BB") + "/" + (n >> 1);
          if (!reference.containsKey(key)) {
            StoredObject o = object(key);
            table.add(o);
            reference.put(key, o);
            present.add(key);
          }
        } else {
          int at = random.nextInt(present.size());
          String key = present.get(at);
          present.set(at, present.get(present.size() - 1));
          present.remove(present.size() - 1);
          table.remove(reference.remove(key));
          assertThat(table.get(key)).isNull();
        }
        if (step % 5_000 == 0) {
          assertThat(table.size()).isEqualTo(reference.size());
          for (String k : present) {
            assertThat(table.get(k))
                .as("seed %d step %d key %s", seed, step, k)
                .isSameAs(reference.get(k));
          }
          assertThat(table.get("absent")).isNull();
        }
      }
      for (String k : present) {
        table.remove(reference.get(k));
      }
      assertThat(table.size()).isZero();
      assertThat(table.get(present.isEmpty() ? "x" : present.get(0))).isNull();
    }
  }

  @Test
  void aSecondObjectOfAKeyTakesItsLookupsAndTheFirstIsNoLongerRemovable() {
    ObjectTable table = new ObjectTable();
    StoredObject first = object("k");
    StoredObject second = object("k");
    table.add(first);
    table.add(second);
    assertThat(table.get("k")).isSameAs(second);
    table.remove(first); // not the indexed one: nothing changes, as with the map before
    assertThat(table.get("k")).isSameAs(second);
    table.remove(second);
    assertThat(table.get("k")).isNull();
  }
}
