package io.kvpool.bench.chaos;

import io.kvpool.client.BatchResult;
import io.kvpool.client.KvPoolClient;
import io.kvpool.client.KvPoolException;
import io.kvpool.common.HostPort;
import io.kvpool.protocol.Opcode;
import io.kvpool.protocol.ProtocolLimits;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * The faults of the soak's connections: cuts at every awkward point of a frame, and a server's body
 * budget taken whole by stalled 64 MiB bodies. What a server must do afterwards (return every
 * reservation, keep serving) is checked by the soak after the pool settled, not here.
 */
final class ConnectionFaults {
  /** How a cut connection ends. */
  enum Ending {
    RESET_BEFORE_HANDSHAKE,
    CLOSE_INSIDE_HANDSHAKE,
    RESET_INSIDE_HEADER,
    RESET_INSIDE_SMALL_BODY,
    RESET_INSIDE_LARGE_BODY,
    CLOSE_INSIDE_LARGE_BODY,
    RESET_AFTER_GARBAGE_BODY
  }

  /** How a connection holding budget ends. */
  enum Release {
    RESET,
    CLOSE,
    LEFT_TO_THE_FRAME_DEADLINE
  }

  private static final int LARGE_BODY = 1 << 20;
  private static final int GARBAGE_BODY = 160 << 10;
  private static final Duration SEND_DEADLINE = Duration.ofSeconds(20);

  private ConnectionFaults() {}

  /**
   * Opens 12 to 24 raw connections to {@code endpoint} and ends each at a point drawn from the
   * fault's variant; with {@code abandonedClient}, also closes a real client in the middle of a
   * batch put (its keys go to the ledger like the load's). Returns what was done, for the log.
   */
  static String cut(
      Fault fault,
      HostPort endpoint,
      boolean master,
      Supplier<KvPoolClient> abandonedClient,
      Ledger ledger,
      KeyValues values,
      Set<String> unpinned,
      int replicas) {
    SplittableRandom random = new SplittableRandom(fault.variant());
    int n = 12 + random.nextInt(13);
    Map<Ending, Integer> done = new EnumMap<>(Ending.class);
    int failedToConnect = 0;
    for (int i = 0; i < n; i++) {
      Ending ending = Ending.values()[random.nextInt(Ending.values().length)];
      try {
        cutOne(endpoint, master, ending, random);
        done.merge(ending, 1, Integer::sum);
      } catch (IOException e) {
        failedToConnect++;
      }
    }
    StringBuilder out = new StringBuilder(n + " connections to " + endpoint + " cut: ");
    List<String> parts = new ArrayList<>();
    done.forEach(
        (ending, count) -> parts.add(count + " " + ending.name().toLowerCase().replace('_', ' ')));
    out.append(String.join(", ", parts));
    if (failedToConnect > 0) {
      out.append("; ").append(failedToConnect).append(" could not connect or write");
    }
    out.append("; ")
        .append(abandonBatch(fault, random, abandonedClient, ledger, values, unpinned, replicas));
    return out.toString();
  }

  private static void cutOne(
      HostPort endpoint, boolean master, Ending ending, SplittableRandom random)
      throws IOException {
    long deadline = System.nanoTime() + SEND_DEADLINE.toNanos();
    try (RawPeer peer = RawPeer.connect(endpoint)) {
      ByteBuffer handshake = RawPeer.handshakeFrame("chaos-raw-peer");
      if (ending == Ending.RESET_BEFORE_HANDSHAKE) {
        peer.reset();
        return;
      }
      if (ending == Ending.CLOSE_INSIDE_HANDSHAKE) {
        handshake.limit(1 + random.nextInt(handshake.limit() - 1));
        peer.write(handshake, deadline);
        peer.close();
        return;
      }
      peer.write(handshake, deadline);
      Opcode opcode = master ? Opcode.PUT_START : Opcode.WRITE;
      switch (ending) {
        case RESET_INSIDE_HEADER -> {
          ByteBuffer header = peer.header(opcode, 100);
          header.limit(1 + random.nextInt(ProtocolLimits.HEADER_BYTES - 1));
          peer.write(header, deadline);
        }
        case RESET_INSIDE_SMALL_BODY -> {
          peer.write(peer.header(opcode, 4096), deadline);
          peer.write(ByteBuffer.allocate(1 + random.nextInt(4095)), deadline);
        }
        case RESET_INSIDE_LARGE_BODY, CLOSE_INSIDE_LARGE_BODY -> {
          peer.write(peer.header(opcode, LARGE_BODY), deadline);
          // past 64 KiB, so that the body takes room in the budget before the connection ends
          peer.write(ByteBuffer.allocate((96 << 10) + random.nextInt(LARGE_BODY / 2)), deadline);
        }
        case RESET_AFTER_GARBAGE_BODY -> {
          byte[] garbage = new byte[GARBAGE_BODY];
          random.nextBytes(garbage);
          peer.write(peer.header(opcode, GARBAGE_BODY), deadline);
          peer.write(ByteBuffer.wrap(garbage), deadline);
        }
        default -> throw new IllegalStateException("unhandled ending " + ending);
      }
      if (ending == Ending.CLOSE_INSIDE_LARGE_BODY) {
        peer.close();
      } else {
        peer.reset();
      }
    }
  }

  /**
   * A real client closed 0–100 ms into a batch put of 6 values of 128 KiB: whatever it left half
   * done, the pool must clean up, and each key is acknowledged, absent, or whole.
   */
  private static String abandonBatch(
      Fault fault,
      SplittableRandom random,
      Supplier<KvPoolClient> clients,
      Ledger ledger,
      KeyValues values,
      Set<String> unpinned,
      int replicas) {
    Map<String, ByteBuffer> batch = new LinkedHashMap<>();
    for (int i = 0; i < 6; i++) {
      String key = "cut/" + fault.step() + "/" + i;
      ByteBuffer value = values.value(key, 128 << 10);
      ledger.writing(key, value.remaining(), KeyValues.crc(value));
      batch.put(key, value);
    }
    KvPoolClient client;
    try {
      client = clients.get();
    } catch (KvPoolException e) {
      batch.keySet().forEach(ledger::putFailed);
      return "no client for the abandoned batch: " + e.getMessage();
    }
    AtomicReference<String> outcome = new AtomicReference<>("still running");
    Thread writer =
        new Thread(
            () -> {
              try {
                BatchResult r = client.putBatch(batch, replicas);
                r.stored().forEach(k -> acknowledge(ledger, unpinned, k));
                r.alreadyPresent().forEach(k -> acknowledge(ledger, unpinned, k));
                r.failures().keySet().forEach(ledger::putFailed);
                outcome.set(r.stored().size() + " stored, " + r.failures().size() + " failed");
              } catch (RuntimeException e) {
                batch.keySet().forEach(ledger::putFailed);
                outcome.set("the batch failed: " + e.getClass().getSimpleName());
              }
            },
            "chaos-abandoned-client");
    long delay = random.nextInt(101);
    writer.start();
    Pause.millis(delay); // the fault: how far into the batch the client dies
    client.close();
    try {
      writer.join(Duration.ofSeconds(120).toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return "a client closed " + delay + " ms into a batch put of 6 x 128 KiB: " + outcome.get();
  }

  private static void acknowledge(Ledger ledger, Set<String> unpinned, String key) {
    ledger.acknowledged(key);
    unpinned.add(key);
  }

  /** Connections holding budget, to be released once the fault's time is up. */
  record Held(List<RawPeer> peers, long bytesSent) {}

  /**
   * Takes {@code budget} bytes of a server's body budget: one connection per 64 MiB, each declaring
   * a 64 MiB body and sending a little over half of it (the server's reservation doubles as a body
   * grows, to 64 MiB).
   */
  static Held takeBudget(HostPort endpoint, boolean master, long budget) {
    int connections =
        (int)
            Math.max(
                1, (budget + ProtocolLimits.MAX_BODY_BYTES - 1) / ProtocolLimits.MAX_BODY_BYTES);
    long each = ProtocolLimits.MAX_BODY_BYTES / 2 + (128 << 10);
    ByteBuffer zeros = ByteBuffer.allocateDirect(1 << 20);
    List<RawPeer> peers = new ArrayList<>();
    long sent = 0;
    long deadline = System.nanoTime() + SEND_DEADLINE.toNanos();
    for (int i = 0; i < connections; i++) {
      try {
        RawPeer peer = RawPeer.connect(endpoint);
        peers.add(peer);
        peer.write(RawPeer.handshakeFrame("chaos-budget-" + i), deadline);
        peer.write(
            peer.header(master ? Opcode.PUT_START : Opcode.WRITE, ProtocolLimits.MAX_BODY_BYTES),
            deadline);
        sent += peer.writeZeros(each, zeros, deadline);
      } catch (IOException e) {
        // a connection the server refused or closed: it holds nothing
      }
    }
    return new Held(peers, sent);
  }

  /**
   * Ends the held connections, each as the fault's variant draws; waits for the server to drop the
   * silent ones.
   */
  static String release(Held held, Fault fault, Duration frameTimeout) {
    SplittableRandom random = new SplittableRandom(fault.variant());
    Map<Release, Integer> done = new EnumMap<>(Release.class);
    List<RawPeer> silent = new ArrayList<>();
    for (RawPeer peer : held.peers()) {
      Release how = Release.values()[random.nextInt(Release.values().length)];
      done.merge(how, 1, Integer::sum);
      switch (how) {
        case RESET -> peer.reset();
        case CLOSE -> peer.close();
        case LEFT_TO_THE_FRAME_DEADLINE -> silent.add(peer);
      }
    }
    long deadline = System.nanoTime() + frameTimeout.multipliedBy(2).plusSeconds(10).toNanos();
    int dropped = 0;
    for (RawPeer peer : silent) {
      while (!peer.closedByServer() && System.nanoTime() - deadline < 0) {
        Pause.millis(200); // polling the socket for the server's close
      }
      dropped += peer.closedByServer() ? 1 : 0;
      peer.close();
    }
    List<String> parts = new ArrayList<>();
    done.forEach(
        (how, count) -> parts.add(count + " " + how.name().toLowerCase().replace('_', ' ')));
    return String.join(", ", parts)
        + (silent.isEmpty()
            ? ""
            : " (" + dropped + " of " + silent.size() + " dropped by the server)");
  }
}
