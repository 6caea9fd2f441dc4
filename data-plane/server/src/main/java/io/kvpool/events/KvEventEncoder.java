package io.kvpool.events;

import io.kvpool.master.ResidentObject;
import io.kvpool.protocol.BlockMetadata;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.msgpack.core.MessageBufferPacker;
import org.msgpack.core.MessagePack;

/**
 * Encodes a {@code KVEventBatch} exactly as vLLM's msgspec structs do with {@code array_like=True,
 * tag=True} (docs/events.md, "Wire format"): a batch is {@code [ts, events, data_parallel_rank]},
 * an event an array whose first element is its class name followed by its fields in declaration
 * order.
 */
final class KvEventEncoder {
  private final String memoryMedium;
  private final String diskMedium;

  KvEventEncoder(String memoryMedium, String diskMedium) {
    this.memoryMedium = memoryMedium;
    this.diskMedium = diskMedium;
  }

  private String medium(ResidentObject o) {
    return o.onDisk() ? diskMedium : memoryMedium;
  }

  /**
   * One batch: {@code cleared} first when set (an AllBlocksCleared), then {@code changes} in order.
   */
  byte[] batch(double ts, boolean cleared, List<ResidencyChange> changes) {
    try (MessageBufferPacker p = MessagePack.newDefaultBufferPacker()) {
      p.packArrayHeader(3);
      p.packDouble(ts);
      p.packArrayHeader(changes.size() + (cleared ? 1 : 0));
      if (cleared) {
        p.packArrayHeader(1);
        p.packString("AllBlocksCleared");
      }
      for (ResidencyChange c : changes) {
        if (c.kind() == ResidencyChange.Kind.STORED) {
          stored(p, c.object());
        } else {
          removed(p, c.object());
        }
      }
      p.packInt(0); // data_parallel_rank: the pool is one publisher
      return p.toByteArray();
    } catch (IOException e) {
      throw new UncheckedIOException("msgpack encoding into memory failed", e);
    }
  }

  /** BlockStored: block_hashes, parent_block_hash, token_ids, block_size, lora_id, medium. */
  private void stored(MessageBufferPacker p, ResidentObject o) throws IOException {
    BlockMetadata m = o.metadata();
    p.packArrayHeader(7);
    p.packString("BlockStored");
    hashes(p, o);
    if (m == null || m.parentBlockHash().length == 0) {
      p.packNil();
    } else {
      hash(p, m.intHashes(), m.parentBlockHash());
    }
    int[] tokens = m == null ? new int[0] : m.tokenIds();
    p.packArrayHeader(tokens.length);
    for (int t : tokens) {
      p.packInt(t);
    }
    p.packInt(m == null ? 0 : m.blockSize());
    if (m == null || m.loraId() == 0) {
      p.packNil();
    } else {
      p.packInt(m.loraId());
    }
    p.packString(medium(o));
  }

  /** BlockRemoved: block_hashes, medium. */
  private void removed(MessageBufferPacker p, ResidentObject o) throws IOException {
    p.packArrayHeader(3);
    p.packString("BlockRemoved");
    hashes(p, o);
    p.packString(medium(o));
  }

  /**
   * The put's block hashes, or, for an object stored without metadata, its key's UTF-8 bytes as its
   * one hash.
   */
  private static void hashes(MessageBufferPacker p, ResidentObject o) throws IOException {
    BlockMetadata m = o.metadata();
    if (m == null) {
      p.packArrayHeader(1);
      hash(p, false, o.key().getBytes(StandardCharsets.UTF_8));
      return;
    }
    p.packArrayHeader(m.blockHashes().size());
    for (byte[] h : m.blockHashes()) {
      hash(p, m.intHashes(), h);
    }
  }

  private static void hash(MessageBufferPacker p, boolean asInt, byte[] h) throws IOException {
    if (asInt) {
      p.packLong(ByteBuffer.wrap(h).getLong());
    } else {
      p.packBinaryHeader(h.length);
      p.writePayload(h);
    }
  }
}
