package io.kvpool.events;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvpool.master.ResidentObject;
import io.kvpool.protocol.BlockMetadata;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

class HeldBlocksTest {
  private final List<String> announced = new ArrayList<>();
  private final HeldBlocks blocks =
      new HeldBlocks(
          (kind, o) ->
              announced.add(
                  kind
                      + " "
                      + o.key()
                      + " "
                      + o.eventHashes()
                      + (o.onDisk() ? " disk" : " memory")));

  private static byte[] hash(int seed) {
    byte[] h = new byte[32];
    h[0] = (byte) seed;
    return h;
  }

  private static String hex(int seed) {
    return HexFormat.of().formatHex(hash(seed));
  }

  private static ResidentObject object(String key, boolean onDisk, int... hashes) {
    List<byte[]> list = new ArrayList<>();
    for (int h : hashes) {
      list.add(hash(h));
    }
    return new ResidentObject(
        key,
        1,
        new BlockMetadata(false, list, new byte[0], new int[16 * hashes.length], 16, 0),
        onDisk);
  }

  @Test
  void aBlockSeveralObjectsNameIsAnnouncedWithTheFirstAndRemovedWithTheLast() {
    ResidentObject rank0 = object("blk/tp0", false, 1, 2);
    ResidentObject rank1 = object("blk/tp1", false, 1, 2);

    blocks.stored(rank0);
    blocks.stored(rank1);
    blocks.removed(rank0);
    assertThat(announced)
        .as("the second rank adds nothing, and its block is still held after the first goes")
        .containsExactly("STORED blk/tp0 [" + hex(1) + ", " + hex(2) + "] memory");

    blocks.removed(rank1);
    assertThat(announced)
        .last()
        .isEqualTo("REMOVED blk/tp1 [" + hex(1) + ", " + hex(2) + "] memory");
    assertThat(blocks.size()).isZero();
  }

  @Test
  void aRemovedObjectNamesOnlyTheBlocksNoOtherObjectHolds() {
    blocks.stored(object("a", false, 1, 2));
    blocks.stored(object("b", false, 2, 3));
    assertThat(announced).hasSize(2).as("b names a block no object named before");

    blocks.removed(object("a", false, 1, 2));
    assertThat(announced).last().isEqualTo("REMOVED a [" + hex(1) + "] memory");
  }

  @Test
  void eachMediumCountsItsOwnHolders() {
    ResidentObject inMemory = object("m", false, 1);
    blocks.stored(inMemory);
    blocks.stored(object("d", true, 1));
    assertThat(announced)
        .containsExactly("STORED m [" + hex(1) + "] memory", "STORED d [" + hex(1) + "] disk");

    // m moves to disk, where d already holds the block: gone from memory, nothing new on disk
    blocks.tierChanged(object("m", true, 1));
    assertThat(announced).hasSize(3).last().isEqualTo("REMOVED m [" + hex(1) + "] memory");

    blocks.removed(object("d", true, 1));
    assertThat(announced).hasSize(3).as("m still holds the block on disk");
    blocks.removed(object("m", true, 1));
    assertThat(announced).last().isEqualTo("REMOVED m [" + hex(1) + "] disk");
  }

  @Test
  void objectsWithoutMetadataPassUncountedAndIntegerHashesAreApartFromBytes() {
    ResidentObject first = new ResidentObject("plain", 1, null, false);
    ResidentObject again = new ResidentObject("plain", 2, null, false);
    blocks.stored(first);
    blocks.removed(first); // the table drops a key's old object before it adds a new one
    blocks.stored(again);
    assertThat(announced)
        .containsExactly(
            "STORED plain [706c61696e] memory",
            "REMOVED plain [706c61696e] memory",
            "STORED plain [706c61696e] memory");
    assertThat(blocks.size()).as("nothing counted for them").isZero();
    blocks.removed(again);

    byte[] eight = {0, 0, 0, 0, 0, 0, 0, 9};
    blocks.stored(
        new ResidentObject(
            "int",
            1,
            new BlockMetadata(true, List.of(eight), new byte[0], new int[1], 1, 0),
            false));
    blocks.stored(
        new ResidentObject(
            "bytes",
            1,
            new BlockMetadata(false, List.of(eight), new byte[0], new int[1], 1, 0),
            false));
    assertThat(announced).as("an integer hash is not the same hash as its bytes").hasSize(6);
  }
}
