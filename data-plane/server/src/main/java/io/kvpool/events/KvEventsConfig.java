package io.kvpool.events;

/**
 * Where and how the master publishes KV events (docs/events.md). Off unless a publish port is
 * given.
 *
 * @param host the address the PUB and ROUTER sockets bind (the master's bind host)
 * @param port the PUB socket's port (0: any free port, for tests)
 * @param replayPort the replay ROUTER socket's port (0: any free port; -1: no replay socket)
 * @param medium the {@code medium} of the events of objects in memory (default {@code
 *     pool:<pool>}); those of objects held only by disk tiers name {@link #diskMedium()}
 * @param model the model named in the topic {@code kv@pool:<pool>@<model>}
 * @param queueCapacity residency changes waiting for the publisher thread; past it changes are
 *     dropped, counted, and healed by a full re-announcement
 * @param replayBatches batches kept for replay
 * @param replayBytes bytes of batches kept for replay (whichever bound is reached first)
 * @param maxEventsPerBatch events one batch carries at most (a re-announcement is one batch,
 *     however large)
 * @param hwm the PUB socket's send high-water mark, in messages per subscriber (past it ZMQ drops
 *     for that subscriber)
 */
public record KvEventsConfig(
    String poolId,
    String host,
    int port,
    int replayPort,
    String medium,
    String model,
    int queueCapacity,
    int replayBatches,
    long replayBytes,
    int maxEventsPerBatch,
    int hwm) {
  public static final int DEFAULT_QUEUE = 65_536;
  public static final int DEFAULT_REPLAY_BATCHES = 10_000;
  public static final long DEFAULT_REPLAY_BYTES = 64L << 20;
  public static final int DEFAULT_EVENTS_PER_BATCH = 512;
  public static final int DEFAULT_HWM = 100_000;

  public KvEventsConfig {
    if (poolId == null || poolId.isEmpty()) {
      throw new IllegalArgumentException("pool id must not be empty");
    }
    if (port < 0 || port > 65535 || replayPort < -1 || replayPort > 65535) {
      throw new IllegalArgumentException(
          "event ports must be 0..65535 (replay: -1 for none), got " + port + " and " + replayPort);
    }
    if (queueCapacity < 1
        || replayBatches < 1
        || replayBytes < 1
        || maxEventsPerBatch < 1
        || hwm < 1) {
      throw new IllegalArgumentException(
          "event queue, replay buffer, batch size and HWM must be positive");
    }
    medium = medium == null || medium.isEmpty() ? "pool:" + poolId : medium;
    model = model == null ? "" : model;
  }

  public static KvEventsConfig of(
      String poolId, String host, int port, int replayPort, String medium, String model) {
    return new KvEventsConfig(
        poolId,
        host,
        port,
        replayPort,
        medium,
        model,
        DEFAULT_QUEUE,
        DEFAULT_REPLAY_BATCHES,
        DEFAULT_REPLAY_BYTES,
        DEFAULT_EVENTS_PER_BATCH,
        DEFAULT_HWM);
  }

  public KvEventsConfig withQueue(int capacity) {
    return new KvEventsConfig(
        poolId,
        host,
        port,
        replayPort,
        medium,
        model,
        capacity,
        replayBatches,
        replayBytes,
        maxEventsPerBatch,
        hwm);
  }

  public KvEventsConfig withReplayBatches(int batches) {
    return new KvEventsConfig(
        poolId,
        host,
        port,
        replayPort,
        medium,
        model,
        queueCapacity,
        batches,
        replayBytes,
        maxEventsPerBatch,
        hwm);
  }

  /**
   * The {@code medium} of the events of an object whose every replica is on a storage node's disk
   * tier: the memory medium followed by {@code :disk}.
   */
  public String diskMedium() {
    return medium + ":disk";
  }

  /** The ZMQ topic frame of every message: {@code kv@pool:<pool>@<model>}. */
  public String topic() {
    return "kv@pool:" + poolId + "@" + model;
  }
}
