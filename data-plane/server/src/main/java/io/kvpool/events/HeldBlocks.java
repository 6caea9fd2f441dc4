package io.kvpool.events;

import io.kvpool.master.ResidencyListener;
import io.kvpool.master.ResidentObject;
import io.kvpool.protocol.BlockMetadata;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;

/**
 * How many readable objects name each block hash, per medium, so that a block is announced stored
 * when the first of them appears and removed when the last one goes: several objects may name the
 * same block (the keys of the tensor-parallel ranks of one block, say), and a subscriber that keeps
 * a set of hashes must not forget a block the pool still holds when one of them is removed. An
 * object that names a block no other object names on its medium is announced whole (BlockStored
 * with its metadata; hashes a subscriber already holds are added again, which changes nothing); a
 * removed object is announced with only the hashes no readable object names any more on its medium,
 * or not at all. Called, as every {@link ResidencyListener}, by the object table under the metadata
 * lock, in the order of the changes, so the counts are exact whatever the publisher's queue drops.
 * About 60 bytes per distinct hash and medium, kept only while events are on. An object without
 * metadata is named by its key's bytes, which no other readable object shares (the table holds one
 * object per key, and drops the old one before it adds a new one): it is announced as it comes and
 * goes, uncounted.
 */
final class HeldBlocks implements ResidencyListener {
  /** One block hash on one medium, as a subscriber tells it from another. */
  private record Block(byte[] hash, boolean asInt, boolean onDisk) {
    @Override
    public boolean equals(Object other) {
      return other instanceof Block b
          && asInt == b.asInt
          && onDisk == b.onDisk
          && Arrays.equals(hash, b.hash);
    }

    @Override
    public int hashCode() {
      return Arrays.hashCode(hash) * 4 + (asInt ? 2 : 0) + (onDisk ? 1 : 0);
    }
  }

  private final Map<Block, Integer> holders = new HashMap<>();
  private final BiConsumer<ResidencyChange.Kind, ResidentObject> announce;

  /**
   * @param announce takes each change to announce; never blocks or throws
   */
  HeldBlocks(BiConsumer<ResidencyChange.Kind, ResidentObject> announce) {
    this.announce = announce;
  }

  @Override
  public void stored(ResidentObject o) {
    if (o.metadata() == null) {
      announce.accept(ResidencyChange.Kind.STORED, o);
      return;
    }
    boolean news = false;
    for (Block b : blocks(o)) {
      news |= holders.merge(b, 1, Integer::sum) == 1;
    }
    if (news) {
      announce.accept(ResidencyChange.Kind.STORED, o);
    }
  }

  @Override
  public void removed(ResidentObject o) {
    BlockMetadata m = o.metadata();
    if (m == null) {
      announce.accept(ResidencyChange.Kind.REMOVED, o);
      return;
    }
    List<byte[]> gone = new ArrayList<>();
    for (Block b : blocks(o)) {
      if (holders.computeIfPresent(b, (k, n) -> n == 1 ? null : n - 1) == null) {
        gone.add(b.hash());
      }
    }
    if (gone.isEmpty()) {
      return;
    }
    announce.accept(
        ResidencyChange.Kind.REMOVED,
        gone.size() == m.blockHashes().size()
            ? o
            : new ResidentObject(
                o.key(),
                o.generation(),
                new BlockMetadata(m.intHashes(), gone, new byte[0], new int[0], 0, 0),
                o.onDisk()));
  }

  /**
   * Removed from the old medium first, then stored on the new one: a subscriber that ignores the
   * medium still holds the object after both.
   */
  @Override
  public void tierChanged(ResidentObject o) {
    removed(new ResidentObject(o.key(), o.generation(), o.metadata(), !o.onDisk()));
    stored(o);
  }

  /** Distinct hashes and media named now, for tests. */
  int size() {
    return holders.size();
  }

  /** The blocks of an object with metadata. */
  private static List<Block> blocks(ResidentObject o) {
    BlockMetadata m = o.metadata();
    List<Block> out = new ArrayList<>(m.blockHashes().size());
    for (byte[] h : m.blockHashes()) {
      out.add(new Block(h, m.intHashes(), o.onDisk()));
    }
    return out;
  }
}
