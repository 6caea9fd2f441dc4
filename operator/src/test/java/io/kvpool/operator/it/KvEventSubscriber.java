package io.kvpool.operator.it;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.UUID;
import java.util.function.Predicate;
import org.msgpack.core.MessagePack;
import org.msgpack.core.MessageUnpacker;
import org.msgpack.value.ValueType;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;

/**
 * A KV-event subscriber as a router runs one (docs/events.md): a real JeroMQ SUB socket on the
 * pool's events port and a DEALER on its replay port, decoding vLLM's msgpack {@code KVEventBatch}
 * field by field. It records what it received and on which socket, so a test can tell a live
 * delivery from a replayed one.
 */
final class KvEventSubscriber implements AutoCloseable {
  /** One decoded BlockStored, and the sequence of its batch. */
  record Stored(
      long sequence,
      List<String> hashes,
      String parent,
      List<Long> tokens,
      long blockSize,
      String medium) {}

  private final ZContext zmq = new ZContext(1);
  private final ZMQ.Socket sub;
  private final ZMQ.Socket replay;
  private final String topic;
  final List<Stored> live = new ArrayList<>();
  final List<String> received = new ArrayList<>();
  long lastSequence = -1;

  KvEventSubscriber(String host, int port, int replayPort, String topic) {
    this.topic = topic;
    sub = zmq.createSocket(SocketType.SUB);
    sub.subscribe(topic.getBytes(StandardCharsets.UTF_8));
    sub.connect("tcp://" + host + ":" + port);
    replay = zmq.createSocket(SocketType.DEALER);
    // an explicit identity: JeroMQ DEALERs left to the ROUTER's generated one sometimes get no
    // answer (jeromq#957)
    replay.setIdentity(UUID.randomUUID().toString().getBytes(StandardCharsets.US_ASCII));
    replay.setReceiveTimeOut(30_000);
    replay.connect("tcp://" + host + ":" + replayPort);
  }

  static String hex(byte[] b) {
    return HexFormat.of().formatHex(b);
  }

  /**
   * vLLM's replay request from {@code start}: the event tags of every batch answered, until the end
   * marker.
   */
  List<String> replay(long start) {
    replay.sendMore(new byte[0]);
    replay.send(ByteBuffer.allocate(8).putLong(start).array(), 0);
    List<String> tags = new ArrayList<>();
    while (true) {
      if (replay.recv() == null) {
        throw new AssertionError("no replay answer within 30 s from sequence " + start);
      }
      long seq = ByteBuffer.wrap(replay.recv()).getLong();
      byte[] payload = replay.recv();
      if (seq == -1) {
        return tags;
      }
      lastSequence = Math.max(lastSequence, seq);
      decode(seq, payload, tags, new ArrayList<>());
    }
  }

  /**
   * Receives live batches on the SUB socket until a BlockStored matches, for at most {@code
   * within}; null when none did.
   */
  Stored awaitLive(Predicate<Stored> wanted, Duration within) {
    long deadline = System.nanoTime() + within.toNanos();
    sub.setReceiveTimeOut(200);
    while (System.nanoTime() < deadline) {
      byte[] t = sub.recv();
      if (t == null) {
        continue;
      }
      if (!new String(t, StandardCharsets.UTF_8).equals(topic) || !sub.hasReceiveMore()) {
        throw new AssertionError(
            "unexpected frame on the PUB socket: " + new String(t, StandardCharsets.UTF_8));
      }
      long seq = ByteBuffer.wrap(sub.recv()).getLong();
      byte[] payload = sub.recv();
      lastSequence = Math.max(lastSequence, seq);
      List<Stored> stored = new ArrayList<>();
      decode(seq, payload, received, stored);
      live.addAll(stored);
      for (Stored s : stored) {
        if (wanted.test(s)) {
          return s;
        }
      }
    }
    return null;
  }

  private static void decode(long seq, byte[] payload, List<String> tags, List<Stored> stored) {
    try (MessageUnpacker u = MessagePack.newDefaultUnpacker(payload)) {
      if (u.unpackArrayHeader() != 3) {
        throw new AssertionError("KVEventBatch is not [ts, events, data_parallel_rank]");
      }
      u.unpackDouble();
      int n = u.unpackArrayHeader();
      for (int i = 0; i < n; i++) {
        int fields = u.unpackArrayHeader();
        String tag = u.unpackString();
        tags.add(tag);
        switch (tag) {
          case "AllBlocksCleared" -> expect(fields, 1, tag);
          case "BlockStored" -> {
            expect(fields, 7, tag);
            List<String> hashes = hashes(u);
            String parent = u.tryUnpackNil() ? null : hash(u);
            int tokenCount = u.unpackArrayHeader();
            List<Long> tokens = new ArrayList<>();
            for (int k = 0; k < tokenCount; k++) {
              tokens.add(u.unpackLong());
            }
            long blockSize = u.unpackLong();
            if (!u.tryUnpackNil()) {
              u.unpackLong(); // lora id
            }
            stored.add(new Stored(seq, hashes, parent, tokens, blockSize, u.unpackString()));
          }
          case "BlockRemoved" -> {
            expect(fields, 3, tag);
            hashes(u);
            u.unpackString();
          }
          default -> throw new AssertionError("unknown event tag " + tag);
        }
      }
      u.unpackInt();
    } catch (IOException e) {
      throw new AssertionError("undecodable batch " + seq, e);
    }
  }

  private static List<String> hashes(MessageUnpacker u) throws IOException {
    int n = u.unpackArrayHeader();
    List<String> out = new ArrayList<>();
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

  private static void expect(int fields, int wanted, String tag) {
    if (fields != wanted) {
      throw new AssertionError(tag + " has " + fields + " elements, vLLM's layout has " + wanted);
    }
  }

  @Override
  public void close() {
    zmq.close();
  }
}
