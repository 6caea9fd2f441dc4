package io.kvpool.bench.compare;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.msgpack.core.MessagePack;
import org.msgpack.core.MessageUnpacker;
import org.msgpack.value.ValueType;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;

/**
 * The subscriber of the {@code events} workload: on a thread of its own it follows a master's KV
 * events by the rules of docs/events.md (SUB first, a replay from 0, batches in sequence order, a
 * replay on a gap and after a quiet spell), decodes every batch and keeps the set of block hashes
 * the pool holds, as a router would. It reads as fast as batches come; it is the load a router puts
 * on the master, not a stalled peer.
 */
final class EventsSubscriber implements AutoCloseable {
  private static final int QUIET_MILLIS = 200;

  private final String host;
  private final int pubPort;
  private final int replayPort;
  private final String topic;
  private final Thread thread;
  private final CountDownLatch started = new CountDownLatch(1);
  private final Set<ByteBuffer> held = new HashSet<>();
  private final AtomicLong heldCount = new AtomicLong();
  private final AtomicLong batches = new AtomicLong();
  private final AtomicLong events = new AtomicLong();
  private final AtomicLong gaps = new AtomicLong();
  private volatile boolean stopping;
  private volatile Throwable failure;
  private long last = -1;

  EventsSubscriber(String host, int pubPort, int replayPort, String topicPrefix) {
    this.host = host;
    this.pubPort = pubPort;
    this.replayPort = replayPort;
    this.topic = topicPrefix;
    this.thread = new Thread(this::follow, "events-subscriber");
    thread.setDaemon(true);
  }

  /** Starts following; returns once the first full announcement is applied. */
  EventsSubscriber start() throws InterruptedException {
    thread.start();
    if (!started.await(60, TimeUnit.SECONDS) || failure != null) {
      throw new IllegalStateException(
          "the events subscriber got no full announcement from tcp://"
              + host
              + ":"
              + replayPort
              + " within 60 s",
          failure);
    }
    return this;
  }

  /** Block hashes held now (the pool's objects, for values put without block metadata). */
  long held() {
    return heldCount.get();
  }

  long batches() {
    return batches.get();
  }

  long events() {
    return events.get();
  }

  /** Gaps seen on the PUB socket (each healed by a replay). */
  long gaps() {
    return gaps.get();
  }

  /** Why the subscriber stopped, or null while it follows. */
  Throwable failure() {
    return failure;
  }

  private void follow() {
    try (ZContext zmq = new ZContext(1)) {
      ZMQ.Socket sub = zmq.createSocket(SocketType.SUB);
      sub.setRcvHWM(1_000_000);
      sub.subscribe(topic.getBytes(StandardCharsets.UTF_8));
      sub.connect("tcp://" + host + ":" + pubPort);
      sub.setReceiveTimeOut(QUIET_MILLIS);
      ZMQ.Socket dealer = zmq.createSocket(SocketType.DEALER);
      // an explicit identity: JeroMQ DEALERs left to the ROUTER's generated one sometimes get no
      // answer (jeromq#957)
      dealer.setIdentity(UUID.randomUUID().toString().getBytes(StandardCharsets.US_ASCII));
      dealer.setReceiveTimeOut(30_000);
      dealer.connect("tcp://" + host + ":" + replayPort);
      replay(dealer, 0);
      started.countDown();
      while (!stopping) {
        byte[] t = sub.recv();
        if (t == null) {
          replay(dealer, last + 1); // quiet: make sure the last batch before it was not missed
          continue;
        }
        long seq = ByteBuffer.wrap(sub.recv()).getLong();
        byte[] payload = sub.recv();
        if (seq <= last) {
          continue;
        }
        if (seq > last + 1) {
          gaps.incrementAndGet();
          replay(dealer, last + 1);
          if (seq <= last) {
            continue;
          }
        }
        apply(payload);
        last = seq;
      }
    } catch (Throwable e) {
      failure = e;
      started.countDown();
    }
  }

  private void replay(ZMQ.Socket dealer, long from) throws IOException {
    dealer.sendMore(new byte[0]);
    dealer.send(ByteBuffer.allocate(8).putLong(from).array(), 0);
    while (true) {
      if (dealer.recv() == null) {
        throw new IOException("no replay answer within 30 s from sequence " + from);
      }
      long seq = ByteBuffer.wrap(dealer.recv()).getLong();
      byte[] payload = dealer.recv();
      if (seq == -1) {
        return;
      }
      if (seq > last) {
        apply(payload);
        last = seq;
      }
    }
  }

  /** vLLM's array-like KVEventBatch: [ts, events, data_parallel_rank]. */
  private void apply(byte[] payload) throws IOException {
    try (MessageUnpacker u = MessagePack.newDefaultUnpacker(payload)) {
      u.unpackArrayHeader();
      u.unpackDouble();
      int n = u.unpackArrayHeader();
      for (int i = 0; i < n; i++) {
        int fields = u.unpackArrayHeader();
        String tag = u.unpackString();
        switch (tag) {
          case "AllBlocksCleared" -> held.clear();
          case "BlockStored" -> {
            hashes(u, true);
            skip(u, fields - 2);
          }
          case "BlockRemoved" -> {
            hashes(u, false);
            skip(u, fields - 2);
          }
          default -> throw new IOException("unknown event " + tag);
        }
      }
      events.addAndGet(n);
    }
    batches.incrementAndGet();
    heldCount.set(held.size());
  }

  private void hashes(MessageUnpacker u, boolean stored) throws IOException {
    int n = u.unpackArrayHeader();
    for (int i = 0; i < n; i++) {
      ByteBuffer h =
          u.getNextFormat().getValueType() == ValueType.INTEGER
              ? ByteBuffer.allocate(8).putLong(0, u.unpackLong())
              : ByteBuffer.wrap(u.readPayload(u.unpackBinaryHeader()));
      if (stored) {
        held.add(h);
      } else {
        held.remove(h);
      }
    }
  }

  private static void skip(MessageUnpacker u, int values) throws IOException {
    for (int i = 0; i < values; i++) {
      u.skipValue();
    }
  }

  @Override
  public void close() throws InterruptedException {
    stopping = true;
    thread.join(TimeUnit.SECONDS.toMillis(30));
  }
}
