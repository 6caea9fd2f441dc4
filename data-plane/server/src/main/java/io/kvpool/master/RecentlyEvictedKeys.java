package io.kvpool.master;

import java.util.Arrays;

/**
 * Which keys the pool evicted recently, as two rotating Bloom filters: a key is added to the
 * current filter, looked up in both, and once the current one holds {@code keysPerGeneration} keys
 * the older is cleared and takes its place. So the last {@code keysPerGeneration} evictions are
 * always remembered and at most twice that many, in a fixed {@code 2 × bitsPerFilter / 8} bytes
 * whatever the key count (default 2 × 128 KiB for 65,536–131,072 keys, a false positive rate under
 * 0.5 % with both filters full). A Bloom filter cannot forget one key: a key evicted, put again and
 * then removed by its owner still reads as recently evicted until its generation rotates out. Not
 * thread-safe: {@link CacheSignals} guards it.
 */
final class RecentlyEvictedKeys {
  static final int DEFAULT_BITS_PER_FILTER = 1 << 20;
  static final int DEFAULT_KEYS_PER_GENERATION = 1 << 16;
  private static final int HASHES = 4;

  private final int bits;
  private final int keysPerGeneration;
  private long[] current;
  private long[] previous;
  private int inCurrent;

  RecentlyEvictedKeys() {
    this(DEFAULT_BITS_PER_FILTER, DEFAULT_KEYS_PER_GENERATION);
  }

  /**
   * @param bitsPerFilter a multiple of 64
   */
  RecentlyEvictedKeys(int bitsPerFilter, int keysPerGeneration) {
    if (bitsPerFilter <= 0 || bitsPerFilter % 64 != 0 || keysPerGeneration <= 0) {
      throw new IllegalArgumentException(
          "bitsPerFilter must be a positive multiple of 64 and keysPerGeneration"
              + " positive, got "
              + bitsPerFilter
              + " and "
              + keysPerGeneration);
    }
    this.bits = bitsPerFilter;
    this.keysPerGeneration = keysPerGeneration;
    this.current = new long[bitsPerFilter / 64];
    this.previous = new long[bitsPerFilter / 64];
  }

  void add(String key) {
    if (inCurrent == keysPerGeneration) {
      long[] cleared = previous;
      Arrays.fill(cleared, 0);
      previous = current;
      current = cleared;
      inCurrent = 0;
    }
    long h = hash(key);
    for (int i = 0; i < HASHES; i++) {
      int bit = index(h, i);
      current[bit >>> 6] |= 1L << bit;
    }
    inCurrent++;
  }

  boolean mightContain(String key) {
    long h = hash(key);
    return contains(current, h) || contains(previous, h);
  }

  /** Bytes the two filters hold. */
  long memoryBytes() {
    return 2L * bits / 8;
  }

  private boolean contains(long[] filter, long h) {
    for (int i = 0; i < HASHES; i++) {
      int bit = index(h, i);
      if ((filter[bit >>> 6] & (1L << bit)) == 0) {
        return false;
      }
    }
    return true;
  }

  /**
   * The i-th probe from two 32-bit halves of one 64-bit hash (Kirsch and Mitzenmacher's double
   * hashing).
   */
  private int index(long h, int i) {
    int combined = (int) h + i * (int) (h >>> 32);
    return Math.floorMod(combined, bits);
  }

  /** FNV-1a over the key's characters, finished with MurmurHash3's 64-bit mixer. */
  static long hash(String key) {
    long h = 0xcbf29ce484222325L;
    for (int i = 0; i < key.length(); i++) {
      h ^= key.charAt(i);
      h *= 0x100000001b3L;
    }
    h ^= h >>> 33;
    h *= 0xff51afd7ed558ccdL;
    h ^= h >>> 33;
    h *= 0xc4ceb9fe1a85ec53L;
    h ^= h >>> 33;
    return h;
  }
}
