package io.kvpool.master;

import io.kvpool.protocol.BlockMetadata;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;

/**
 * A readable object as residency events name it: key, generation, the block metadata of its put (or
 * null), and its medium: {@code onDisk} when every replica is on a storage node's disk tier, memory
 * when any replica is in memory.
 */
public record ResidentObject(String key, long generation, BlockMetadata metadata, boolean onDisk) {
  /**
   * Hex of each block hash its events carry: its put's, or, without block metadata, its key's UTF-8
   * bytes.
   */
  public List<String> eventHashes() {
    HexFormat hex = HexFormat.of();
    return metadata == null
        ? List.of(hex.formatHex(key.getBytes(StandardCharsets.UTF_8)))
        : metadata.blockHashes().stream().map(hex::formatHex).toList();
  }
}
