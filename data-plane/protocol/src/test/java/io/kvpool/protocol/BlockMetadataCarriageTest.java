package io.kvpool.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Block metadata where protocol 2.5 carries it to and from storage nodes: WRITE and WRITE_BATCH
 * items (client or replicating node -> node) and REGISTER_INVENTORY's trailing list (node ->
 * master). Round trips, the 2.4 layouts left as they were, and hostile lengths refused before
 * anything is allocated.
 */
class BlockMetadataCarriageTest {
  private static final BlockMetadata BYTES_META =
      new BlockMetadata(
          false,
          List.of(new byte[] {1, 2, 3}, new byte[] {4, 5}),
          new byte[] {9, 9},
          new int[] {11, 12, 13},
          16,
          7);
  private static final BlockMetadata INT_META =
      new BlockMetadata(
          true,
          List.of(ByteBuffer.allocate(8).putLong(-5).array()),
          new byte[0],
          new int[] {1},
          1,
          0);

  private static WriteRequest write(String key, BlockMetadata m) {
    return new WriteRequest(key, 6, new Slice(0, 0, 10, 0), 10, 5, 2, 99, new byte[16])
        .withMetadata(m);
  }

  private static ByteBuffer bytes(java.util.function.Consumer<BodyWriter> encode) {
    BodyWriter w = new BodyWriter();
    encode.accept(w);
    return w.toBuffer();
  }

  @Test
  void writesCarryMetadataFromProtocol25AndKeepThe24Layout() throws Exception {
    for (BlockMetadata m : new BlockMetadata[] {BYTES_META, INT_META, null}) {
      WriteRequest w = write("k", m);
      WriteRequest back = WriteRequest.decode(new BodyReader(bytes(b -> w.encode(b, 5))), 5);
      assertThat(back).usingRecursiveComparison().isEqualTo(w);
      assertThat(back.metadata()).isEqualTo(m);
    }
    WriteRequest w = write("k", BYTES_META);
    ByteBuffer old = bytes(b -> w.encode(b, 4));
    assertThat(old.remaining())
        .as("a 2.4 WRITE is the 2.4 body")
        .isEqualTo(bytes(b -> write("k", null).encode(b, 4)).remaining());
    assertThat(WriteRequest.decode(new BodyReader(old), 4).metadata()).isNull();

    WriteBatchRequest batch =
        new WriteBatchRequest(
            List.of(write("a", BYTES_META), write("b", null), write("c", INT_META)));
    WriteBatchRequest back =
        WriteBatchRequest.decode(new BodyReader(bytes(b -> batch.encode(b, 5))), 5);
    assertThat(back.writes())
        .extracting(WriteRequest::metadata)
        .containsExactly(BYTES_META, null, INT_META);
  }

  @Test
  void aWriteWithMetadataOverALimitDecodesSoTheNodeCanNameTheLimit() throws Exception {
    List<byte[]> tooMany = new ArrayList<>();
    for (int i = 0; i <= BlockMetadata.MAX_BLOCK_HASHES; i++) {
      tooMany.add(new byte[] {(byte) i});
    }
    WriteRequest w = write("k", new BlockMetadata(false, tooMany, new byte[0], new int[0], 1, 0));
    WriteRequest back = WriteRequest.decode(new BodyReader(bytes(b -> w.encode(b, 5))), 5);
    assertThat(back.metadata().limitProblem()).contains("65 block hashes");
  }

  @Test
  void writesRefuseForgedMetadataLengths() {
    ByteBuffer head = bytes(b -> write("k", null).encode(b, 4));
    // a token-id count far beyond the bytes that follow
    ByteBuffer tokens =
        concat(
            head,
            new BodyWriter()
                .bool(true)
                .u8(0)
                .i32(1)
                .bytes(new byte[] {1})
                .bytes(new byte[0])
                .i32(1 << 30)
                .toBuffer());
    assertThatThrownBy(() -> WriteRequest.decode(new BodyReader(tokens), 5))
        .isInstanceOf(ProtocolException.class)
        .hasMessageContaining("outside");
    // a hash declared 65535 bytes long, with 3 bytes behind it
    ByteBuffer longHash =
        concat(
            head, new BodyWriter().bool(true).u8(0).i32(1).u16(65535).u8(1).u8(2).u8(3).toBuffer());
    assertThatThrownBy(() -> WriteRequest.decode(new BodyReader(longHash), 5))
        .isInstanceOf(ProtocolException.class)
        .hasMessageContaining("truncated");
    // an unknown hash form
    ByteBuffer form = concat(head, new BodyWriter().bool(true).u8(7).toBuffer());
    assertThatThrownBy(() -> WriteRequest.decode(new BodyReader(form), 5))
        .hasMessageContaining("hash form");
    // a 2.4 peer's WRITE with bytes after its token: trailing, as before
    ByteBuffer trailing = concat(head, new BodyWriter().bool(false).toBuffer());
    assertThatThrownBy(() -> WriteRequest.decode(new BodyReader(trailing), 4))
        .hasMessageContaining("trailing");
  }

  private static InventoryObject object(String key, long generation, BlockMetadata m) {
    return new InventoryObject(key, generation, 2, 10, 1, List.of(new Slice(0, 64, 10, 0)), m);
  }

  @Test
  void inventoriesCarryMetadataInTheirTrailingListFromProtocol25() throws Exception {
    RegisterInventory ri =
        new RegisterInventory(
            new byte[16],
            true,
            List.of(object("a", 1, BYTES_META), object("b", 2, null), object("c", 3, INT_META)),
            List.of(new Tombstone("t", 4)));
    RegisterInventory back =
        RegisterInventory.decode(new BodyReader(bytes(b -> ri.encode(b, 5))), 5);
    assertThat(back).usingRecursiveComparison().isEqualTo(ri);
    assertThat(back.objects())
        .extracting(InventoryObject::metadata)
        .containsExactly(BYTES_META, null, INT_META);

    RegisterInventory old =
        RegisterInventory.decode(new BodyReader(bytes(b -> ri.encode(b, 4))), 4);
    assertThat(old.objects()).extracting(InventoryObject::metadata).containsOnlyNulls();
  }

  /** A 2.5 chunk holding object ("a", 1) and no tombstone, then {@code trailer}. */
  private static ByteBuffer chunk(BodyWriter trailer) {
    RegisterInventory ri =
        new RegisterInventory(new byte[16], true, List.of(object("a", 1, null)), List.of());
    return concat(bytes(b -> ri.encode(b, 4)), trailer.toBuffer());
  }

  @Test
  void inventoriesRefuseHostileMetadataLists() {
    ByteBuffer forged = chunk(new BodyWriter().i32(ProtocolLimits.MAX_INVENTORY_CHUNK));
    assertThatThrownBy(() -> RegisterInventory.decode(new BodyReader(forged), 5))
        .isInstanceOf(ProtocolException.class)
        .hasMessageContaining("cannot fit");
    ByteBuffer tooMany = chunk(new BodyWriter().i32(ProtocolLimits.MAX_INVENTORY_CHUNK + 1));
    assertThatThrownBy(() -> RegisterInventory.decode(new BodyReader(tooMany), 5))
        .hasMessageContaining("outside");
    ByteBuffer stranger = chunk(entries(new String[] {"zz"}, new long[] {1}, BYTES_META));
    assertThatThrownBy(() -> RegisterInventory.decode(new BodyReader(stranger), 5))
        .hasMessageContaining("names no object of its chunk");
    ByteBuffer otherGeneration = chunk(entries(new String[] {"a"}, new long[] {2}, BYTES_META));
    assertThatThrownBy(() -> RegisterInventory.decode(new BodyReader(otherGeneration), 5))
        .hasMessageContaining("names no object of its chunk");
    ByteBuffer twice = chunk(entries(new String[] {"a", "a"}, new long[] {1, 1}, BYTES_META));
    assertThatThrownBy(() -> RegisterInventory.decode(new BodyReader(twice), 5))
        .hasMessageContaining("listed twice");
    BlockMetadata overLimit =
        new BlockMetadata(
            false,
            List.of(new byte[] {1}),
            new byte[0],
            new int[BlockMetadata.MAX_TOKEN_IDS + 1],
            1,
            0);
    ByteBuffer big = chunk(entries(new String[] {"a"}, new long[] {1}, overLimit));
    assertThatThrownBy(() -> RegisterInventory.decode(new BodyReader(big), 5))
        .hasMessageContaining("4097 token ids");
    ByteBuffer truncatedMeta =
        chunk(new BodyWriter().i32(1).string("a").i64(1).u8(0).i32(1).u16(64).i64(0).i64(0).i64(0));
    assertThatThrownBy(() -> RegisterInventory.decode(new BodyReader(truncatedMeta), 5))
        .hasMessageContaining("truncated");
  }

  private static BodyWriter entries(String[] keys, long[] generations, BlockMetadata m) {
    BodyWriter w = new BodyWriter().i32(keys.length);
    for (int i = 0; i < keys.length; i++) {
      w.string(keys[i]).i64(generations[i]);
      m.encode(w);
    }
    return w;
  }

  private static ByteBuffer concat(ByteBuffer a, ByteBuffer b) {
    ByteBuffer out = ByteBuffer.allocate(a.remaining() + b.remaining());
    out.put(a.duplicate()).put(b.duplicate()).flip();
    return out;
  }
}
