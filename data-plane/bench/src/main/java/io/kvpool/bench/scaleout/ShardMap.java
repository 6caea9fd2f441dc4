package io.kvpool.bench.scaleout;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * The prototype of docs/scale-out.md: which master group owns a key. The 32-bit hash space of
 * CRC32C(key's UTF-8 bytes) — the checksum every client already computes — is cut into contiguous
 * ranges, one per shard; a shard is a whole master group (its own Lease, standbys, storage nodes
 * and recovery) reached at its masters' endpoints. {@code epoch} grows with every change of the
 * map, so a client can tell an old map from a new one.
 */
public record ShardMap(long epoch, List<Shard> shards) {
  /**
   * A master group owning the hashes from {@code firstHash} (unsigned, inclusive) to the next
   * shard's first hash; {@code masters}: HOST:PORT[,HOST:PORT...] as clients take it.
   */
  public record Shard(String name, long firstHash, String masters) {}

  public ShardMap {
    shards = List.copyOf(shards);
    if (shards.isEmpty() || shards.get(0).firstHash() != 0) {
      throw new IllegalArgumentException("the first shard must start at hash 0: " + shards);
    }
    for (int i = 1; i < shards.size(); i++) {
      if (shards.get(i).firstHash() <= shards.get(i - 1).firstHash()
          || shards.get(i).firstHash() > 0xFFFF_FFFFL) {
        throw new IllegalArgumentException("shard ranges must ascend within 32 bits: " + shards);
      }
    }
  }

  /** Equal ranges, one per master group, named shard-0, shard-1, ... */
  public static ShardMap evenSplit(long epoch, List<String> masterGroups) {
    List<Shard> shards = new ArrayList<>();
    long width = (1L << 32) / masterGroups.size();
    for (int i = 0; i < masterGroups.size(); i++) {
      shards.add(new Shard("shard-" + i, i * width, masterGroups.get(i)));
    }
    return new ShardMap(epoch, shards);
  }

  /** The key's position in the hash space: CRC32C of its UTF-8 bytes, unsigned. */
  public static long hash(String key) {
    CRC32C crc = new CRC32C();
    crc.update(key.getBytes(StandardCharsets.UTF_8));
    return crc.getValue();
  }

  /** The index of the shard that owns {@code key}. */
  public int shardOf(String key) {
    long h = hash(key);
    int lo = 0;
    int hi = shards.size() - 1;
    while (lo < hi) { // the last shard whose first hash is at most h
      int mid = (lo + hi + 1) >>> 1;
      if (shards.get(mid).firstHash() <= h) {
        lo = mid;
      } else {
        hi = mid - 1;
      }
    }
    return lo;
  }
}
