package io.kvpool.events;

import io.kvpool.admin.MasterStatus;
import io.kvpool.master.PoolMetadata;
import io.kvpool.master.ResidencyListener;
import io.kvpool.master.ResidentObject;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZFrame;
import org.zeromq.ZMQ;
import org.zeromq.ZMsg;

/**
 * Publishes the pool's residency as vLLM KV events (docs/events.md): a ZMQ PUB socket sends every
 * batch as (topic, 8-byte big-endian sequence, msgpack KVEventBatch); a ROUTER socket replays the
 * batches a subscriber missed. The put path only offers changes to a bounded queue ({@link
 * #listenerFor}); one thread drains it, numbers and sends the batches and serves replays, so a slow
 * subscriber or a full queue never slows a put. A change that does not fit the queue is counted and
 * healed: the thread re-announces the whole pool (AllBlocksCleared, then every readable object) in
 * the next batch. Sequences start at {@code view << 20} for each leadership, so they never go back
 * across a failover (a later leader's view is larger, and a leadership publishes far fewer than
 * 2^20 batches per millisecond it lasts), and every leadership starts with a full announcement of
 * what it holds.
 */
public final class KvEventPublisher implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(KvEventPublisher.class);

  /** vLLM's end-of-replay marker: sequence -1, empty payload. */
  static final byte[] END_SEQ = seqBytes(-1);

  private static final byte[] EMPTY = new byte[0];

  /**
   * A replay request is (identity, empty delimiter, 8-byte sequence): anything larger is dropped by
   * ZMQ.
   */
  private static final long MAX_REPLAY_REQUEST_BYTES = 256;

  /**
   * ZMTP heartbeats on both sockets: a PING every second, and a subscriber that answers nothing for
   * 5 s is dropped, so a vanished subscriber holds no pipe for long. The PINGs carry a 5 s TTL,
   * which makes a subscriber's ZMQ drop a publisher that went silent only when a PING was the last
   * thing it received; subscribers turn on heartbeats of their own for that (docs/events.md, rule
   * 7).
   */
  private static final int HEARTBEAT_IVL_MILLIS = 1_000;

  private static final int HEARTBEAT_TTL_MILLIS = 5_000;

  private static final long IDLE_POLL_MILLIS = 10;
  private static final long GATHER_NANOS = 5_000_000;

  private final KvEventsConfig config;
  private final KvEventEncoder encoder;
  private final byte[] topic;
  private final ZContext zmq = new ZContext(1);
  private final ZMQ.Socket pub;
  private final ZMQ.Socket replay;
  private final int pubPort;
  private final int replayPort;
  private final ArrayBlockingQueue<ResidencyChange> queue;
  private final AtomicBoolean resync = new AtomicBoolean();

  /** The leadership the thread should serve next: a {@link Leading}, or {@link #STANDING_BY}. */
  private final AtomicReference<Leading> switchTo = new AtomicReference<>();

  private final ReplayBuffer buffer;
  private final Thread thread;
  private volatile boolean running = true;
  private volatile long lastSeq = -1;

  private final Counter batches;
  private final Counter events;
  private final Counter dropped;
  private final Counter resyncs;
  private final Counter replays;

  // the publisher thread's own state
  private Leading current = STANDING_BY;
  private long nextSeq;

  private record Leading(long view, PoolMetadata metadata) {}

  private static final Leading STANDING_BY = new Leading(0, null);

  public KvEventPublisher(KvEventsConfig config, PrometheusRegistry metrics) {
    this.config = config;
    this.encoder = new KvEventEncoder(config.medium(), config.diskMedium());
    this.topic = config.topic().getBytes(StandardCharsets.UTF_8);
    this.queue = new ArrayBlockingQueue<>(config.queueCapacity());
    this.buffer = new ReplayBuffer(config.replayBatches(), config.replayBytes());
    try {
      pub = zmq.createSocket(SocketType.PUB);
      pub.setSndHWM(config.hwm());
      pub.setLinger(0);
      heartbeat(pub);
      pubPort = bind(pub, config.port());
      if (config.replayPort() >= 0) {
        replay = zmq.createSocket(SocketType.ROUTER);
        replay.setMaxMsgSize(MAX_REPLAY_REQUEST_BYTES);
        replay.setRcvHWM(64);
        replay.setSndHWM(
            config.replayBatches()
                + 16); // a whole replay fits; a subscriber that stops reading loses it
        replay.setLinger(0);
        heartbeat(replay);
        replayPort = bind(replay, config.replayPort());
      } else {
        replay = null;
        replayPort = -1;
      }
    } catch (RuntimeException e) {
      zmq.close();
      throw new IllegalStateException(
          "cannot bind the KV event sockets on "
              + config.host()
              + " (ports "
              + config.port()
              + ", "
              + config.replayPort()
              + "): "
              + e.getMessage(),
          e);
    }
    batches =
        Counter.builder()
            .name("kvpool_events_batches_total")
            .help("KV event batches published on the PUB socket")
            .register(metrics);
    events =
        Counter.builder()
            .name("kvpool_events_total")
            .help("KV events published, by type")
            .labelNames("type")
            .register(metrics);
    dropped =
        Counter.builder()
            .name("kvpool_events_dropped_total")
            .help(
                "Residency changes the event queue had no room for (healed by a full re-announcement)")
            .register(metrics);
    resyncs =
        Counter.builder()
            .name("kvpool_events_resyncs_total")
            .help("Full re-announcements (AllBlocksCleared + every readable object), by reason")
            .labelNames("reason")
            .register(metrics);
    replays =
        Counter.builder()
            .name("kvpool_events_replay_requests_total")
            .help(
                "Replay requests, by outcome: replayed from the buffer, snapshot (gap), nothing newer, invalid")
            .labelNames("outcome")
            .register(metrics);
    GaugeWithCallback.builder()
        .name("kvpool_events_sequence")
        .help("Sequence of the last published KV event batch")
        .callback(cb -> cb.call(lastSeq))
        .register(metrics);
    GaugeWithCallback.builder()
        .name("kvpool_events_queue")
        .help("Residency changes waiting for the publisher")
        .callback(cb -> cb.call(queue.size()))
        .register(metrics);
    thread = new Thread(this::run, "kv-event-publisher");
    thread.setDaemon(true);
    thread.start();
    LOG.info(
        "event=kv_events_publishing pool={} pub_port={} replay_port={} topic={} medium={}"
            + " disk_medium={}",
        config.poolId(),
        pubPort,
        replayPort,
        config.topic(),
        config.medium(),
        config.diskMedium());
  }

  private static void heartbeat(ZMQ.Socket socket) {
    socket.setHeartbeatIvl(HEARTBEAT_IVL_MILLIS);
    socket.setHeartbeatTtl(HEARTBEAT_TTL_MILLIS);
    socket.setHeartbeatTimeout(HEARTBEAT_TTL_MILLIS);
  }

  private int bind(ZMQ.Socket socket, int port) {
    String host = config.host().contains(":") ? "[" + config.host() + "]" : config.host();
    socket.bind("tcp://" + host + ":" + (port == 0 ? "*" : Integer.toString(port)));
    String endpoint = socket.getLastEndpoint();
    return Integer.parseInt(endpoint.substring(endpoint.lastIndexOf(':') + 1));
  }

  public int pubPort() {
    return pubPort;
  }

  /** The replay socket's port, -1 when there is none. */
  public int replayPort() {
    return replayPort;
  }

  public long lastSequence() {
    return lastSeq;
  }

  /** What /status reports of the events: topic, ports, last sequence, drops. */
  public MasterStatus.Events status() {
    return new MasterStatus.Events(
        config.topic(), pubPort, replayPort, lastSeq, (long) dropped.get());
  }

  /**
   * The listener of one leadership's object table: hands each change of a block's residency (its
   * first holder stored, its last one removed: {@link HeldBlocks}) to the queue, never blocks.
   */
  public ResidencyListener listenerFor(long view) {
    return new HeldBlocks((kind, o) -> offer(new ResidencyChange(kind, view, o)));
  }

  private void offer(ResidencyChange change) {
    if (!queue.offer(change)) {
      dropped.inc();
      resync.set(true);
    }
  }

  /**
   * A new leadership begins: its sequences start at {@code view << 20} and its first batch
   * announces AllBlocksCleared and every object it holds then (recovered objects arrive later, each
   * announced as it is adopted). Call after the metadata's listener is set and before it serves.
   */
  public void lead(PoolMetadata metadata) {
    switchTo.set(new Leading(metadata.view(), metadata));
  }

  /** This master stands by: nothing is published; replay requests get only the end marker. */
  public void standBy() {
    switchTo.set(STANDING_BY);
  }

  private void run() {
    List<ResidencyChange> drained = new ArrayList<>(config.maxEventsPerBatch());
    try {
      while (running) {
        try {
          step(drained);
        } catch (RuntimeException e) {
          // changes of this step may be lost: the next step re-announces everything, as after an
          // overflow
          LOG.error(
              "event=kv_events_step_failed pool={} reason=\"{}\"",
              config.poolId(),
              e.toString(),
              e);
          drained.clear();
          resync.set(true);
          Thread.sleep(100);
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      zmq.close();
    }
  }

  /**
   * One turn of the publisher thread: a leadership change, waiting replays, then the queued
   * changes.
   */
  private void step(List<ResidencyChange> drained) throws InterruptedException {
    Leading next = switchTo.getAndSet(null);
    if (next != null) {
      begin(next);
    }
    serveReplays();
    ResidencyChange first = queue.poll(IDLE_POLL_MILLIS, TimeUnit.MILLISECONDS);
    if (first != null) {
      drained.add(first);
      // gather what arrives within GATHER_NANOS into the same batch (vLLM batches per scheduler
      // step the same way). The thread sleeps through the window instead of waiting on the queue:
      // a wait would be woken by every put, and those wake-ups were most of what events cost.
      if (queue.size() < config.maxEventsPerBatch() - 1) {
        LockSupport.parkNanos(GATHER_NANOS);
      }
      queue.drainTo(drained, config.maxEventsPerBatch() - drained.size());
      drained.removeIf(c -> c.view() != current.view());
      if (!drained.isEmpty() && current.metadata() != null) {
        publish(false, drained);
      }
      drained.clear();
    }
    if (resync.getAndSet(false) && current.metadata() != null) {
      resyncs.labelValues("overflow").inc();
      publish(true, snapshot());
    }
  }

  private void begin(Leading next) {
    current = next;
    buffer.clear();
    if (next.metadata() == null) {
      return;
    }
    nextSeq = Math.max(next.view() << 20, lastSeq + 1);
    resync.set(false);
    resyncs.labelValues("leadership").inc();
    publish(true, snapshot());
  }

  private List<ResidencyChange> snapshot() {
    List<ResidentObject> residents = current.metadata().residents();
    List<ResidencyChange> out = new ArrayList<>(residents.size());
    for (ResidentObject o : residents) {
      out.add(new ResidencyChange(ResidencyChange.Kind.STORED, current.view(), o));
    }
    return out;
  }

  private void publish(boolean cleared, List<ResidencyChange> changes) {
    long seq = nextSeq++;
    byte[] payload = encoder.batch(System.currentTimeMillis() / 1000.0, cleared, changes);
    pub.sendMore(topic);
    pub.sendMore(seqBytes(seq));
    pub.send(payload, 0);
    buffer.add(seq, payload);
    lastSeq = seq;
    batches.inc();
    if (cleared) {
      events.labelValues("AllBlocksCleared").inc();
    }
    long stored = changes.stream().filter(c -> c.kind() == ResidencyChange.Kind.STORED).count();
    events.labelValues("BlockStored").inc(stored);
    events.labelValues("BlockRemoved").inc(changes.size() - stored);
  }

  /**
   * vLLM's replay protocol: a request is (identity, empty, 8-byte big-endian start sequence); the
   * answer is every buffered batch from that sequence on as (identity, empty, sequence, payload),
   * then (identity, empty, -1, empty). When batches from the start sequence are no longer buffered
   * (a gap), the answer is one batch numbered with the last published sequence: AllBlocksCleared
   * and every readable object.
   */
  private void serveReplays() {
    if (replay == null) {
      return;
    }
    ZMsg request;
    while ((request = ZMsg.recvMsg(replay, ZMQ.DONTWAIT)) != null) {
      ZFrame[] frames = request.toArray(new ZFrame[0]);
      boolean valid = frames.length == 3 && frames[1].size() == 0 && frames[2].size() == 8;
      byte[] identity = frames[0].getData();
      long start = valid ? ByteBuffer.wrap(frames[2].getData()).getLong() : 0;
      request.destroy();
      if (!valid) {
        replays.labelValues("invalid").inc();
        continue;
      }
      if (current.metadata() == null || lastSeq < 0 || start > lastSeq) {
        replays.labelValues("empty").inc();
      } else if (buffer.covers(start)) {
        replays.labelValues("replayed").inc();
        for (ReplayBuffer.Batch b : buffer.from(start)) {
          send(identity, seqBytes(b.seq()), b.payload());
        }
      } else {
        replays.labelValues("snapshot").inc();
        resyncs.labelValues("replay_gap").inc();
        send(
            identity,
            seqBytes(lastSeq),
            encoder.batch(System.currentTimeMillis() / 1000.0, true, snapshot()));
      }
      send(identity, END_SEQ, EMPTY);
    }
  }

  private void send(byte[] identity, byte[] seq, byte[] payload) {
    replay.sendMore(identity);
    replay.sendMore(EMPTY);
    replay.sendMore(seq);
    replay.send(payload, 0);
  }

  static byte[] seqBytes(long seq) {
    return ByteBuffer.allocate(8).putLong(seq).array();
  }

  @Override
  public void close() {
    running = false;
    try {
      thread.join(5_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
