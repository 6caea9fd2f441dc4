package io.kvpool.e2e.workload;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import org.msgpack.core.MessagePack;
import org.msgpack.core.MessageUnpacker;
import org.msgpack.value.ValueType;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;

/**
 * The KV-event subscriber of the end-to-end suite, a router's view of a pool: it runs in a pod of
 * the data-plane image labelled {@code kvpool.io/events-subscriber: <pool>}, finds the events in
 * the pool's client ConfigMap ({@code envFrom}: {@code KVPOOL_EVENTS_ENDPOINT}, {@code
 * KVPOOL_EVENTS_REPLAY_ENDPOINT}, {@code KVPOOL_EVENTS_TOPIC}, both through the {@code
 * <pool>-master} Service) and follows the rules of docs/events.md with JeroMQ: replay from 0 first,
 * batches in sequence order, a replay from last + 1 on a gap and after every quiet second, {@code
 * AllBlocksCleared} empties the set. Objects put without block metadata are named by their keys.
 *
 * <pre>EventsFollower --prefix P --from F --keys N [--views V] [--seconds S]</pre>
 *
 * <p>It ends with exit code 0 once it has applied batches of at least {@code V} leaderships (a
 * sequence's leadership is {@code sequence >> 20}) and holds exactly the keys {@code P-F} to {@code
 * P-(F+N-1)}; after {@code S} seconds (default 300) it ends with 1 and says what differs. Every
 * change of what it holds is logged as {@code FOLLOW held=... seq=... views=...}; the last line is
 * {@code WORKLOAD key=value ...}.
 */
public final class EventsFollower {
  private final ZContext zmq = new ZContext(1);
  private final String replayEndpoint;
  private final ZMQ.Socket sub;
  private ZMQ.Socket replay;
  private final Set<String> held = new HashSet<>();
  private final Set<Long> views = new TreeSet<>();
  private long last = -1;
  private int batches;
  private int replays;
  private int gaps;
  private int clears;
  private int replayFailures;

  private EventsFollower(String endpoint, String replayEndpoint, String topic) {
    this.replayEndpoint = replayEndpoint;
    sub = zmq.createSocket(SocketType.SUB);
    sub.setRcvHWM(1_000_000);
    // a leader pod that vanishes without closing its connections is noticed, and the Service's next
    // endpoint dialled
    sub.setHeartbeatIvl(2_000);
    sub.setHeartbeatTimeout(6_000);
    sub.setReconnectIVL(200);
    sub.subscribe(topic.getBytes(StandardCharsets.UTF_8));
    sub.connect(endpoint);
    replay = replaySocket();
  }

  private ZMQ.Socket replaySocket() {
    ZMQ.Socket s = zmq.createSocket(SocketType.DEALER);
    // an explicit identity: JeroMQ DEALERs left to the ROUTER's generated one sometimes get no
    // answer (jeromq#957)
    s.setIdentity(UUID.randomUUID().toString().getBytes(StandardCharsets.US_ASCII));
    s.setReceiveTimeOut(10_000);
    s.setSendTimeOut(5_000);
    s.setLinger(0);
    s.setReconnectIVL(200);
    s.connect(replayEndpoint);
    return s;
  }

  public static void main(String[] args) {
    Map<String, String> options = options(args);
    String prefix = options.getOrDefault("prefix", "e2e");
    int from = Integer.parseInt(options.getOrDefault("from", "0"));
    int keys = Integer.parseInt(options.getOrDefault("keys", "0"));
    int wantViews = Integer.parseInt(options.getOrDefault("views", "1"));
    long seconds = Long.parseLong(options.getOrDefault("seconds", "300"));
    String endpoint = System.getenv("KVPOOL_EVENTS_ENDPOINT");
    String replayEndpoint = System.getenv("KVPOOL_EVENTS_REPLAY_ENDPOINT");
    String topic = System.getenv("KVPOOL_EVENTS_TOPIC");
    if (endpoint == null || replayEndpoint == null || topic == null) {
      System.err.println(
          "usage: EventsFollower --prefix P --from F --keys N [--views V] [--seconds S] (with"
              + " KVPOOL_EVENTS_ENDPOINT, KVPOOL_EVENTS_REPLAY_ENDPOINT and KVPOOL_EVENTS_TOPIC from"
              + " the pool's client ConfigMap)");
      System.exit(2);
    }
    Set<String> expected = new HashSet<>();
    for (int i = from; i < from + keys; i++) {
      expected.add(PoolWorkload.key(prefix, i));
    }
    EventsFollower follower = new EventsFollower(endpoint, replayEndpoint, topic);
    System.out.println("following " + topic + " at " + endpoint + " and " + replayEndpoint);
    boolean done =
        follower.follow(expected, wantViews, System.nanoTime() + seconds * 1_000_000_000L);
    Map<String, Object> summary = new LinkedHashMap<>();
    summary.put("op", "follow");
    summary.put("ok", done ? 1 : 0);
    summary.put("held", follower.held.size());
    summary.put("expected", expected.size());
    summary.put("missing", difference(expected, follower.held).size());
    summary.put("extra", difference(follower.held, expected).size());
    summary.put("views", follower.views.size());
    summary.put("seq", follower.last);
    summary.put("batches", follower.batches);
    summary.put("replays", follower.replays);
    summary.put("gaps", follower.gaps);
    summary.put("clears", follower.clears);
    summary.put("replayFailures", follower.replayFailures);
    if (!done) {
      System.out.println(
          "missing (first 10): "
              + difference(expected, follower.held).stream().sorted().limit(10).toList()
              + "; extra (first 10): "
              + difference(follower.held, expected).stream().sorted().limit(10).toList());
    }
    StringBuilder line = new StringBuilder("WORKLOAD");
    summary.forEach((k, v) -> line.append(' ').append(k).append('=').append(v));
    System.out.println(line);
    follower.zmq.close();
    System.exit(done ? 0 : 1);
  }

  private boolean follow(Set<String> expected, int wantViews, long deadline) {
    replayFrom(0);
    sub.setReceiveTimeOut(1_000);
    while (System.nanoTime() < deadline) {
      if (views.size() >= wantViews && held.equals(expected)) {
        return true;
      }
      byte[] topic = sub.recv();
      if (topic == null) {
        replayFrom(last + 1); // quiet: make sure nothing was missed
        continue;
      }
      if (!sub.hasReceiveMore()) {
        continue;
      }
      long seq = ByteBuffer.wrap(sub.recv()).getLong();
      byte[] payload = sub.hasReceiveMore() ? sub.recv() : new byte[0];
      if (seq <= last) {
        continue;
      }
      if (last >= 0 && seq > last + 1) {
        gaps++;
        replayFrom(last + 1); // a gap: a slow subscriber, or a new leadership
        if (seq <= last) {
          continue;
        }
      }
      apply(seq, payload);
    }
    return views.size() >= wantViews && held.equals(expected);
  }

  /**
   * vLLM's replay request: (empty, 8-byte start); batches until (-1, empty). A request that gets no
   * answer (no leader behind the Service yet) is given up and asked again later on a new socket.
   */
  private void replayFrom(long start) {
    replays++;
    if (!replay.sendMore(new byte[0])
        || !replay.send(ByteBuffer.allocate(8).putLong(start).array(), 0)) {
      renewReplaySocket();
      return;
    }
    while (true) {
      byte[] empty = replay.recv();
      if (empty == null) {
        renewReplaySocket();
        return;
      }
      long seq = ByteBuffer.wrap(replay.recv()).getLong();
      byte[] payload = replay.recv();
      if (seq == -1) {
        return;
      }
      if (seq > last) {
        apply(seq, payload);
      }
    }
  }

  private void renewReplaySocket() {
    replayFailures++;
    replay.close();
    replay = replaySocket();
  }

  private void apply(long seq, byte[] payload) {
    int before = held.size();
    try (MessageUnpacker u = MessagePack.newDefaultUnpacker(payload)) {
      u.unpackArrayHeader(); // [ts, events, data_parallel_rank]
      u.unpackDouble();
      int n = u.unpackArrayHeader();
      for (int i = 0; i < n; i++) {
        u.unpackArrayHeader();
        String tag = u.unpackString();
        switch (tag) {
          case "AllBlocksCleared" -> {
            clears++;
            held.clear();
          }
          case "BlockStored" -> {
            held.addAll(hashes(u));
            if (!u.tryUnpackNil()) {
              u.skipValue(); // parent
            }
            u.skipValue(); // token ids
            u.skipValue(); // block size
            u.skipValue(); // lora id
            u.skipValue(); // medium
          }
          case "BlockRemoved" -> {
            held.removeAll(hashes(u));
            u.skipValue(); // medium
          }
          default -> throw new IllegalStateException("unknown event " + tag);
        }
      }
    } catch (IOException e) {
      throw new IllegalStateException("undecodable batch " + seq, e);
    }
    batches++;
    last = seq;
    views.add(seq >> 20);
    if (held.size() != before || batches == 1) {
      System.out.println("FOLLOW held=" + held.size() + " seq=" + seq + " views=" + views.size());
    }
  }

  /** Hashes as the pool names objects put without metadata: the key's UTF-8 bytes. */
  private static List<String> hashes(MessageUnpacker u) throws IOException {
    int n = u.unpackArrayHeader();
    List<String> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      if (u.getNextFormat().getValueType() == ValueType.INTEGER) {
        out.add(Long.toString(u.unpackLong()));
      } else {
        out.add(new String(u.readPayload(u.unpackBinaryHeader()), StandardCharsets.UTF_8));
      }
    }
    return out;
  }

  private static Set<String> difference(Set<String> a, Set<String> b) {
    Set<String> d = new HashSet<>(a);
    d.removeAll(b);
    return d;
  }

  private static Map<String, String> options(String[] args) {
    Map<String, String> options = new LinkedHashMap<>();
    for (int i = 0; i + 1 < args.length; i++) {
      if (args[i].startsWith("--")) {
        options.put(args[i].substring(2), args[i + 1]);
        i++;
      }
    }
    return options;
  }
}
