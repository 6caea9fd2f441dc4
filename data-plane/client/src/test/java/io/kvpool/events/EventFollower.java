package io.kvpool.events;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.msgpack.core.MessagePack;
import org.msgpack.core.MessageUnpacker;
import org.msgpack.value.ValueType;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;

/**
 * A KV-event subscriber that follows the rules of docs/events.md with a real JeroMQ SUB and DEALER:
 * it asks for a replay from sequence 0 on start (the publisher answers with a full announcement),
 * applies batches in sequence order, asks for a replay of what it missed on a gap, and rebuilds the
 * set of block hashes the pool holds. Decodes the msgpack itself, field by field, against vLLM's
 * layout (an independent check of the publisher's encoding).
 */
final class EventFollower implements AutoCloseable {
  /** One decoded BlockStored. */
  record Stored(
      List<String> hashes,
      String parent,
      List<Long> tokens,
      long blockSize,
      Long loraId,
      String medium) {}

  private final ZContext zmq = new ZContext(1);
  private final ZMQ.Socket sub;
  private final String replayEndpoint;
  private ZMQ.Socket dealer;
  private final String topic;
  final Set<String> hashes = new LinkedHashSet<>();

  /** The hashes held per medium, as a subscriber that tells the media apart keeps them. */
  final Map<String, Set<String>> byMedium = new HashMap<>();

  final List<Stored> stored = new ArrayList<>();
  final List<String> removedHashes = new ArrayList<>();
  long lastSeq = -1;
  int clears;
  int replays;

  /** Replay requests asked again after 5 s without an answer. */
  int resent;

  int gaps;

  /** The highest sequence the SUB socket delivered live (applied or not), -1 before any. */
  long lastLive = -1;

  /** A new subscriber: it asks for everything (a replay from 0: the full announcement). */
  EventFollower(int pubPort, int replayPort, String topic) {
    this(pubPort, replayPort, topic, -1, Set.of());
  }

  /**
   * A subscriber back from an absence: it had applied every batch up to {@code startAfter}, holding
   * {@code known}.
   */
  EventFollower(int pubPort, int replayPort, String topic, long startAfter, Set<String> known) {
    this.topic = topic;
    hashes.addAll(known);
    sub = zmq.createSocket(SocketType.SUB);
    sub.setRcvHWM(1_000_000);
    sub.subscribe(topic.getBytes(StandardCharsets.UTF_8));
    sub.connect("tcp://127.0.0.1:" + pubPort);
    replayEndpoint = "tcp://127.0.0.1:" + replayPort;
    dealer = replaySocket();
    lastSeq = startAfter;
    replay(startAfter + 1);
  }

  /** The identity a residency event names an object by: each block hash, hex. */
  static String hex(byte[] h) {
    return HexFormat.of().formatHex(h);
  }

  /** Receives and applies live batches until the last applied sequence is at least {@code seq}. */
  void followTo(long seq, long timeoutMillis) {
    long deadline = System.currentTimeMillis() + timeoutMillis;
    sub.setReceiveTimeOut(500);
    while (lastSeq < seq) {
      if (System.currentTimeMillis() > deadline) {
        throw new AssertionError(
            "follower reached sequence "
                + lastSeq
                + ", not "
                + seq
                + " within "
                + timeoutMillis
                + " ms; replays "
                + replays
                + ", gaps "
                + gaps);
      }
      byte[] t = sub.recv();
      if (t == null) {
        // nothing live for a while (a batch sent before the subscription took effect): ask for what
        // follows
        replay(lastSeq + 1);
        continue;
      }
      if (!new String(t, StandardCharsets.UTF_8).equals(topic) || !sub.hasReceiveMore()) {
        throw new AssertionError(
            "unexpected frame on the PUB socket: " + new String(t, StandardCharsets.UTF_8));
      }
      long s = ByteBuffer.wrap(sub.recv()).getLong();
      byte[] payload = sub.recv();
      lastLive = Math.max(lastLive, s);
      if (s <= lastSeq) {
        continue; // replayed already
      }
      if (lastSeq >= 0 && s > lastSeq + 1) {
        gaps++;
        replay(lastSeq + 1);
        if (s <= lastSeq) {
          continue;
        }
      }
      apply(payload);
      lastSeq = s;
    }
  }

  /**
   * vLLM's replay request: (empty, 8-byte start) on a DEALER; batches until the (-1, empty) end
   * marker.
   */
  void replay(long from) {
    replays++;
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (true) {
      dealer.sendMore(new byte[0]);
      dealer.send(ByteBuffer.allocate(8).putLong(from).array(), 0);
      byte[] empty = dealer.recv();
      if (empty != null) {
        break;
      }
      // no answer within the socket's 5 s: ask again on a new socket (a new identity, so a late
      // answer to the first request goes nowhere); replays are idempotent
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError(
            "no replay answer within 30 s from sequence " + from + " (" + resent + " resent)");
      }
      resent++;
      dealer.close();
      dealer = replaySocket();
    }
    while (true) {
      long s = ByteBuffer.wrap(dealer.recv()).getLong();
      byte[] payload = dealer.recv();
      if (s == -1) {
        return;
      }
      if (s > lastSeq) {
        apply(payload);
        lastSeq = Math.max(lastSeq, s);
      }
      if (dealer.recv() == null) {
        throw new AssertionError("a replay answer from sequence " + from + " stopped midway");
      }
    }
  }

  private ZMQ.Socket replaySocket() {
    ZMQ.Socket d = zmq.createSocket(SocketType.DEALER);
    // an explicit identity: JeroMQ DEALERs left to the ROUTER's generated one sometimes get no
    // answer (jeromq#957)
    d.setIdentity(UUID.randomUUID().toString().getBytes(StandardCharsets.US_ASCII));
    d.setReceiveTimeOut(5_000);
    d.connect(replayEndpoint);
    return d;
  }

  private void apply(byte[] payload) {
    try (MessageUnpacker u = MessagePack.newDefaultUnpacker(payload)) {
      if (u.unpackArrayHeader() != 3) {
        throw new AssertionError("KVEventBatch is not [ts, events, data_parallel_rank]");
      }
      u.unpackDouble();
      int n = u.unpackArrayHeader();
      for (int i = 0; i < n; i++) {
        int fields = u.unpackArrayHeader();
        String tag = u.unpackString();
        switch (tag) {
          case "AllBlocksCleared" -> {
            expect(fields, 1, tag);
            clears++;
            hashes.clear();
            byMedium.clear();
          }
          case "BlockStored" -> {
            expect(fields, 7, tag);
            Stored s =
                new Stored(
                    hashList(u),
                    u.tryUnpackNil() ? null : hash(u),
                    longs(u),
                    u.unpackLong(),
                    u.tryUnpackNil() ? null : u.unpackLong(),
                    u.unpackString());
            stored.add(s);
            hashes.addAll(s.hashes());
            byMedium.computeIfAbsent(s.medium(), m -> new HashSet<>()).addAll(s.hashes());
          }
          case "BlockRemoved" -> {
            expect(fields, 3, tag);
            List<String> gone = hashList(u);
            String medium = u.unpackString();
            removedHashes.addAll(gone);
            gone.forEach(hashes::remove);
            Set<String> held = byMedium.getOrDefault(medium, new HashSet<>());
            gone.forEach(held::remove);
          }
          default -> throw new AssertionError("unknown event tag " + tag);
        }
      }
      if (u.unpackInt() != 0) {
        throw new AssertionError("data_parallel_rank is not 0");
      }
      if (u.hasNext()) {
        throw new AssertionError("bytes after the KVEventBatch");
      }
    } catch (IOException e) {
      throw new AssertionError("undecodable batch", e);
    }
  }

  private static void expect(int fields, int wanted, String tag) {
    if (fields != wanted) {
      throw new AssertionError(
          tag + " has " + fields + " elements, vLLM's array_like layout has " + wanted);
    }
  }

  private static List<String> hashList(MessageUnpacker u) throws IOException {
    int n = u.unpackArrayHeader();
    List<String> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      out.add(hash(u));
    }
    return out;
  }

  /** A bin hash as hex; an integer hash as its 8 big-endian bytes, hex. */
  private static String hash(MessageUnpacker u) throws IOException {
    if (u.getNextFormat().getValueType() == ValueType.INTEGER) {
      return hex(ByteBuffer.allocate(8).putLong(u.unpackLong()).array());
    }
    return hex(u.readPayload(u.unpackBinaryHeader()));
  }

  private static List<Long> longs(MessageUnpacker u) throws IOException {
    int n = u.unpackArrayHeader();
    List<Long> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      out.add(u.unpackLong());
    }
    return out;
  }

  @Override
  public void close() {
    zmq.close();
  }
}
