package io.kvpool.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvpool.protocol.BlockMetadata;
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

  private static final BlockMetadata METADATA =
      new BlockMetadata(
          false,
          List.of(new byte[] {1, 2}, new byte[] {3}),
          new byte[] {9},
          new int[] {4, 5},
          16,
          2);

  /** CONTENTS with block metadata on its first replica. */
  private static InventoryFile.Contents withMetadata() {
    return new InventoryFile.Contents(
        CONTENTS.release(),
        CONTENTS.nodeId(),
        CONTENTS.poolId(),
        CONTENTS.writtenAtMillis(),
        CONTENTS.segmentSizes(),
        List.of(CONTENTS.objects().get(0).withMetadata(METADATA), CONTENTS.objects().get(1)),
        CONTENTS.tombstones());
  }

  @Test
  void blockMetadataRoundTripsInAFileOfItsOwnAndTheInventoryFormatStays(@TempDir Path dir)
      throws Exception {
    Path file = dir.resolve(InventoryFile.NAME);
    InventoryFile.write(file, withMetadata());
    assertThat(InventoryFile.read(file)).isEqualTo(withMetadata());
    assertThat(InventoryFile.read(file).objects().get(0).metadata()).isEqualTo(METADATA);
    assertThat(InventoryFile.FORMAT).as("releases before 2.5 restart warm from it").isEqualTo(1);
    // the same inventory file as without metadata: an older release reads it
    Path plain = dir.resolve("plain").resolve(InventoryFile.NAME);
    Files.createDirectories(plain.getParent());
    InventoryFile.write(plain, CONTENTS);
    assertThat(Files.readAllBytes(file)).isEqualTo(Files.readAllBytes(plain));
    assertThat(plain.resolveSibling(BlockMetadataFile.NAME)).doesNotExist();
  }

  @Test
  void anUnreadableMetadataFileLeavesTheReplicasWithoutMetadata(@TempDir Path dir)
      throws Exception {
    Path file = dir.resolve(InventoryFile.NAME);
    Path meta = dir.resolve(BlockMetadataFile.NAME);
    InventoryFile.write(file, withMetadata());
    byte[] good = Files.readAllBytes(meta);
    for (int i = 0; i < good.length; i++) {
      byte[] bad = good.clone();
      bad[i] ^= 0x40;
      Files.write(meta, bad);
      assertThat(InventoryFile.read(file)).as("byte %d flipped", i).isEqualTo(CONTENTS);
    }
    Files.write(meta, Arrays.copyOf(good, good.length / 2));
    assertThat(InventoryFile.read(file)).isEqualTo(CONTENTS);
    // a forged count, checksummed as the file's own: refused before anything is allocated
    ByteBuffer forged = ByteBuffer.allocate(14).putInt(0x4B56504D).putShort((short) 1);
    forged.putInt(Integer.MAX_VALUE);
    java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
    crc.update(forged.array(), 0, 10);
    forged.putInt((int) crc.getValue());
    Files.write(meta, forged.array());
    assertThat(InventoryFile.read(file)).isEqualTo(CONTENTS);
  }

  /** Metadata at every limit of PROTOCOL.md, under a key of the longest length. */
  private static InventoryObject largest(int n) {
    List<byte[]> hashes = new java.util.ArrayList<>();
    for (int i = 0; i < BlockMetadata.MAX_BLOCK_HASHES; i++) {
      byte[] h = new byte[BlockMetadata.MAX_HASH_BYTES];
      Arrays.fill(h, (byte) (n * 64 + i));
      hashes.add(h);
    }
    BlockMetadata m =
        new BlockMetadata(
            false,
            hashes,
            new byte[BlockMetadata.MAX_HASH_BYTES],
            new int[BlockMetadata.MAX_TOKEN_IDS],
            BlockMetadata.MAX_BLOCK_SIZE,
            7);
    String key = n + "k".repeat(io.kvpool.protocol.ProtocolLimits.MAX_KEY_BYTES - 1);
    return new InventoryObject(key, (50L + n) << 20, 1, 100, 1, List.of(new Slice(0, 0, 100, 0)))
        .withMetadata(m);
  }

  private static InventoryFile.Contents holding(List<InventoryObject> objects) {
    return new InventoryFile.Contents(
        CONTENTS.release(),
        CONTENTS.nodeId(),
        CONTENTS.poolId(),
        CONTENTS.writtenAtMillis(),
        CONTENTS.segmentSizes(),
        objects,
        List.of());
  }

  private static InventoryFile.Contents withoutMetadata(List<InventoryObject> objects) {
    return holding(objects.stream().map(o -> o.withMetadata(null)).toList());
  }

  @Test
  void aMetadataFileOfTheLargestLegitimateSizeIsRead(@TempDir Path dir) throws Exception {
    Path file = dir.resolve(InventoryFile.NAME);
    List<InventoryObject> objects = List.of(largest(0), largest(1), largest(2));
    InventoryFile.write(file, holding(objects));
    long size = Files.size(dir.resolve(BlockMetadataFile.NAME));
    assertThat(size)
        .as("three entries at every limit fill the bound exactly")
        .isEqualTo(BlockMetadataFile.maxBytes(3, Long.MAX_VALUE));
    assertThat(InventoryFile.read(file)).isEqualTo(holding(objects));
  }

  /**
   * A well-formed, checksummed file written for three objects, found beside an inventory of one (as
   * a forged or stale file would be): larger than one object's metadata can be, and listing more
   * entries than the inventory has objects. It is not read at all; the replica is adopted without
   * metadata (only the metadata is lost, never the warm restart).
   */
  @Test
  void aMetadataFileLargerThanItsInventoryAllowsIsNotRead(@TempDir Path dir) throws Exception {
    Path file = dir.resolve(InventoryFile.NAME);
    InventoryObject only = largest(0);
    InventoryFile.write(file, holding(List.of(only)));
    assertThat(InventoryFile.read(file).objects().get(0).metadata())
        .as("its own file is read")
        .isEqualTo(only.metadata());
    Path meta = dir.resolve(BlockMetadataFile.NAME);
    BlockMetadataFile.write(meta, List.of(only, largest(1), largest(2)));
    assertThat(Files.size(meta)).isGreaterThan(BlockMetadataFile.maxBytes(1, Long.MAX_VALUE));
    assertThat(InventoryFile.read(file)).isEqualTo(withoutMetadata(List.of(only)));
  }

  /**
   * Small entries, so the file is within the size bound, but more of them than the inventory has
   * objects: the count lies and the file is ignored.
   */
  @Test
  void aMetadataFileWithMoreEntriesThanObjectsIsIgnored(@TempDir Path dir) throws Exception {
    Path file = dir.resolve(InventoryFile.NAME);
    InventoryFile.write(file, CONTENTS);
    Path meta = dir.resolve(BlockMetadataFile.NAME);
    List<InventoryObject> three =
        List.of(
            CONTENTS.objects().get(0).withMetadata(METADATA),
            CONTENTS.objects().get(1).withMetadata(METADATA),
            new InventoryObject("x", 1L << 20, 1, 1, 1, List.of(new Slice(0, 0, 1, 0)))
                .withMetadata(METADATA));
    BlockMetadataFile.write(meta, three);
    assertThat(Files.size(meta)).isLessThan(BlockMetadataFile.maxBytes(2, Long.MAX_VALUE));
    assertThat(InventoryFile.read(file)).isEqualTo(CONTENTS);
  }

  @Test
  void theMetadataFileBoundIsAShareOfTheHeapAndOfAnArray() {
    long perObject = BlockMetadataFile.MAX_ENTRY_BYTES;
    assertThat(perObject).as("a key, a generation and metadata at every limit").isEqualTo(24_797);
    assertThat(BlockMetadataFile.maxBytes(0, 1L << 30)).isEqualTo(14);
    assertThat(BlockMetadataFile.maxBytes(1000, 1L << 30)).isEqualTo(14 + 1000 * perObject);
    assertThat(BlockMetadataFile.maxBytes(1_000_000, 1L << 30)).isEqualTo(256L << 20);
    assertThat(BlockMetadataFile.maxBytes(Integer.MAX_VALUE, Long.MAX_VALUE))
        .isEqualTo(Integer.MAX_VALUE - 8);
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
