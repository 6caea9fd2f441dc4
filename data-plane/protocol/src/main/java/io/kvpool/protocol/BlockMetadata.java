package io.kvpool.protocol;

import java.util.Arrays;
import java.util.List;

/**
 * What an inference engine knows about the KV blocks a value holds (protocol 2.3, PUT_START_META):
 * the fields of vLLM's {@code BlockStored} event, which the master publishes when the object
 * becomes readable and which routers match against their own block hashes. {@code intHashes}: every
 * hash is exactly 8 bytes, a signed 64-bit integer (vLLM before 0.10 hashed to Python ints),
 * published as a msgpack integer; otherwise hashes are published as msgpack bin (vLLM's {@code
 * ExternalBlockHash} bytes). {@code parentBlockHash}: empty when the first block has no parent.
 * {@code loraId}: 0 when none (vLLM's LoRA int ids start at 1). Decoded leniently so that metadata
 * over a limit gets its own LIMIT_EXCEEDED answer; {@link #limitProblem()} says which limit.
 */
public record BlockMetadata(
    boolean intHashes,
    List<byte[]> blockHashes,
    byte[] parentBlockHash,
    int[] tokenIds,
    int blockSize,
    int loraId) {
  public static final int MAX_BLOCK_HASHES = 64;
  public static final int MAX_HASH_BYTES = 64;
  public static final int MAX_TOKEN_IDS = 4096;
  public static final int MAX_BLOCK_SIZE = 65536;

  /** The most bytes {@link #encode} writes for metadata within every limit. */
  public static final int MAX_ENCODED_BYTES =
      1
          + 4
          + MAX_BLOCK_HASHES * (2 + MAX_HASH_BYTES)
          + 2
          + MAX_HASH_BYTES
          + 4
          + MAX_TOKEN_IDS * 4
          + 4
          + 4;

  /**
   * Bounds of lenient decoding: past them the body is malformed (the frame's own limit bounds the
   * rest).
   */
  private static final int DECODE_MAX_LIST = 65536;

  static final int MIN_BYTES = 1 + 4 + 2 + 4 + 4 + 4;

  public BlockMetadata {
    blockHashes = List.copyOf(blockHashes);
    parentBlockHash = parentBlockHash == null ? new byte[0] : parentBlockHash;
  }

  /** Null when within the limits of PROTOCOL.md ("Block metadata"), else why not. */
  public String limitProblem() {
    if (blockHashes.isEmpty() || blockHashes.size() > MAX_BLOCK_HASHES) {
      return "block metadata holds "
          + blockHashes.size()
          + " block hashes; 1.."
          + MAX_BLOCK_HASHES
          + " allowed";
    }
    for (byte[] h : blockHashes) {
      String p = hashProblem(h, "block hash");
      if (p != null) {
        return p;
      }
    }
    if (parentBlockHash.length > 0) {
      String p = hashProblem(parentBlockHash, "parent block hash");
      if (p != null) {
        return p;
      }
    }
    if (tokenIds.length > MAX_TOKEN_IDS) {
      return "block metadata holds "
          + tokenIds.length
          + " token ids; at most "
          + MAX_TOKEN_IDS
          + " allowed";
    }
    if (blockSize < 0 || blockSize > MAX_BLOCK_SIZE) {
      return "block size " + blockSize + " outside 0.." + MAX_BLOCK_SIZE;
    }
    if (loraId < 0) {
      return "LoRA id " + loraId + " is negative (0 means none)";
    }
    return null;
  }

  private String hashProblem(byte[] h, String what) {
    if (intHashes && h.length != 8) {
      return what + " of " + h.length + " bytes: integer hashes are exactly 8 bytes";
    }
    if (h.length < 1 || h.length > MAX_HASH_BYTES) {
      return what + " of " + h.length + " bytes; 1.." + MAX_HASH_BYTES + " allowed";
    }
    return null;
  }

  /** Bytes this metadata keeps in the master's heap, roughly (for the documented memory bound). */
  public int heapBytes() {
    int b = 64 + parentBlockHash.length + tokenIds.length * 4;
    for (byte[] h : blockHashes) {
      b += 16 + h.length;
    }
    return b;
  }

  /** Bytes of its encoding (what it adds to a body). */
  public int encodedBytes() {
    int b = 1 + 4 + 2 + parentBlockHash.length + 4 + tokenIds.length * 4 + 4 + 4;
    for (byte[] h : blockHashes) {
      b += 2 + h.length;
    }
    return b;
  }

  public void encode(BodyWriter w) {
    w.u8(intHashes ? 1 : 0).list(blockHashes, BodyWriter::bytes).bytes(parentBlockHash);
    w.i32(tokenIds.length);
    for (int t : tokenIds) {
      w.i32(t);
    }
    w.i32(blockSize).i32(loraId);
  }

  public static BlockMetadata decode(BodyReader r) throws ProtocolException {
    int form = r.u8();
    if (form > 1) {
      throw new ProtocolException("unknown block hash form " + form);
    }
    List<byte[]> hashes = r.list(DECODE_MAX_LIST, 2, x -> x.bytes(65535, "block hash"));
    byte[] parent = r.bytes(65535, "parent block hash");
    int[] tokens =
        r.list(DECODE_MAX_LIST, 4, BodyReader::i32).stream().mapToInt(Integer::intValue).toArray();
    return new BlockMetadata(form == 1, hashes, parent, tokens, r.i32(), r.i32());
  }

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof BlockMetadata m)
        || m.intHashes != intHashes
        || m.blockSize != blockSize
        || m.loraId != loraId
        || m.blockHashes.size() != blockHashes.size()) {
      return false;
    }
    for (int i = 0; i < blockHashes.size(); i++) {
      if (!Arrays.equals(blockHashes.get(i), m.blockHashes.get(i))) {
        return false;
      }
    }
    return Arrays.equals(parentBlockHash, m.parentBlockHash) && Arrays.equals(tokenIds, m.tokenIds);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(tokenIds) * 31 + blockHashes.size();
  }
}
