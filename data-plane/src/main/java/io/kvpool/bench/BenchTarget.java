package io.kvpool.bench;

import java.nio.ByteBuffer;

/**
 * A store the benchmark drives with the same workload: kvpool, the raw NIO loopback baseline, Redis.
 * Client {@code c} is only ever used by one thread at a time, so implementations keep one connection
 * per client and need no locking.
 */
interface BenchTarget extends AutoCloseable {

  String name();

  /** Opens one connection (or client) per benchmark client thread; each stores up to {@code keysPerClient}. */
  void open(int clients, int valueSize, int keysPerClient);

  /**
   * Stores {@code value} (position..limit, a direct buffer) under {@code key}, which is the client's
   * {@code index}-th key of the current round.
   */
  void put(int client, int index, String key, ByteBuffer value);

  /** Reads the value of {@code key} into {@code dst} from its position; returns the value length. */
  int get(int client, int index, String key, ByteBuffer dst);

  /** Drops a key (not timed); waits out a read lease the store may still hold on it. */
  void remove(int client, String key);

  /** True when a get returns what was put under that key, so the benchmark can check the bytes it reads. */
  boolean storesValues();

  @Override
  void close();
}
