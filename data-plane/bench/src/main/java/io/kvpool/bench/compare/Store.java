package io.kvpool.bench.compare;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;

/**
 * A key-value store as {@link StoreTarget} drives it from this JVM: one connection (or client) per
 * benchmark client, each used by one thread at a time. {@code index} is the key's number among its
 * client's keys (stores that address memory by slot use it).
 */
interface Store extends AutoCloseable {

  /** Opens {@code clients} connections. */
  void open(int clients) throws Exception;

  /** Stores position..limit of {@code value}. */
  void put(int client, int index, String key, ByteBuffer value) throws Exception;

  /** Reads the value into {@code dst} from its position; returns its length. */
  int get(int client, int index, String key, ByteBuffer dst) throws Exception;

  /** Stores every value (position..limit each) as one request where the store has one. */
  void putBatch(int client, int firstIndex, List<String> keys, ByteBuffer[] values)
      throws Exception;

  /**
   * Reads every value, into its buffer of {@code dsts} from position 0 where the store reads into
   * the caller's memory; returns the buffers holding the values (position 0, limit the value's
   * length), usually {@code dsts}.
   */
  ByteBuffer[] getBatch(int client, int firstIndex, List<String> keys, ByteBuffer[] dsts)
      throws Exception;

  /** Drops keys (untimed housekeeping between rounds). */
  void remove(int client, List<String> keys) throws Exception;

  boolean supportsBatch();

  /** Extra figures of the phase that just ended (e.g. a cache's hit ratio), reset by the call. */
  default Map<String, Object> notes() {
    return Map.of();
  }

  @Override
  void close();
}
