package io.kvpool.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvpool.protocol.InventoryObject;
import io.kvpool.protocol.Slice;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The inventory a storage node leaves next to its memory files: round trip, and every way it is
 * refused.
 */
class InventoryFileTest {
  private static final InventoryFile.Contents CONTENTS =
      new InventoryFile.Contents(
          "1.0.0",
          "p-storage-0",
          "p",
          1_700_000_000_000L,
          List.of(16L << 20, 16L << 20),
          List.of(
              new InventoryObject(
                  "block-1", 42L << 20, 2, 100, 0x1234abcd, List.of(new Slice(0, 4096, 100, 0))),
              new InventoryObject(
                  "blöck/2",
                  43L << 20,
                  1,
                  300,
                  -7,
                  List.of(new Slice(1, 0, 200, 0), new Slice(1, 8192, 100, 200)))),
          List.of(new InventoryFile.SavedTombstone("gone", 41L << 20, 1_699_999_999_000L)));

  @Test
  void roundTripsEveryField(@TempDir Path dir) throws Exception {
    Path file = dir.resolve(InventoryFile.NAME);
    InventoryFile.write(file, CONTENTS);
    assertThat(InventoryFile.read(file)).isEqualTo(CONTENTS);
    assertThat(Files.exists(dir.resolve(InventoryFile.NAME + ".tmp"))).isFalse();
  }

  @Test
  void anEmptyInventoryRoundTrips(@TempDir Path dir) throws Exception {
    Path file = dir.resolve(InventoryFile.NAME);
    InventoryFile.Contents empty =
        new InventoryFile.Contents("1.0.0", "n", "", 0, List.of(4096L), List.of(), List.of());
    InventoryFile.write(file, empty);
    assertThat(InventoryFile.read(file)).isEqualTo(empty);
  }

  @Test
  void anyFlippedByteIsRefusedByTheChecksum(@TempDir Path dir) throws Exception {
    Path file = dir.resolve(InventoryFile.NAME);
    InventoryFile.write(file, CONTENTS);
    byte[] original = Files.readAllBytes(file);
    for (int i = 6; i < original.length; i += 7) {
      byte[] bad = original.clone();
      bad[i] ^= 0x40;
      Files.write(file, bad);
      assertThatThrownBy(() -> InventoryFile.read(file))
          .as("byte %d flipped", i)
          .isInstanceOf(InventoryFile.UnreadableException.class);
    }
  }

  @Test
  void aFileCutShortIsRefused(@TempDir Path dir) throws Exception {
    Path file = dir.resolve(InventoryFile.NAME);
    InventoryFile.write(file, CONTENTS);
    byte[] original = Files.readAllBytes(file);
    for (int n : new int[] {0, 3, 10, original.length / 2, original.length - 1}) {
      Files.write(file, Arrays.copyOf(original, n));
      assertThatThrownBy(() -> InventoryFile.read(file))
          .as("%d bytes", n)
          .isInstanceOf(InventoryFile.UnreadableException.class);
    }
  }

  @Test
  void anotherFormatIsRefusedNamingBoth(@TempDir Path dir) throws Exception {
    Path file = dir.resolve(InventoryFile.NAME);
    InventoryFile.write(file, CONTENTS);
    byte[] bytes = Files.readAllBytes(file);
    ByteBuffer.wrap(bytes).putShort(4, (short) (InventoryFile.FORMAT + 1));
    Files.write(file, bytes);
    assertThatThrownBy(() -> InventoryFile.read(file))
        .isInstanceOf(InventoryFile.UnreadableException.class)
        .hasMessage(
            "inventory format "
                + (InventoryFile.FORMAT + 1)
                + " is not format "
                + InventoryFile.FORMAT
                + " that this release reads");
  }

  @Test
  void somethingElseIsNotAnInventory(@TempDir Path dir) throws Exception {
    Path file = dir.resolve(InventoryFile.NAME);
    Files.writeString(file, "hello, this is not an inventory at all");
    assertThatThrownBy(() -> InventoryFile.read(file))
        .isInstanceOf(InventoryFile.UnreadableException.class)
        .hasMessageContaining("not a kvpool inventory");
  }
}
