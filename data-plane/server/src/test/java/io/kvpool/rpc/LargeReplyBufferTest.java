package io.kvpool.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvpool.common.HostPort;
import io.kvpool.common.VersionInfo;
import io.kvpool.protocol.BodyWriter;
import io.kvpool.protocol.FileRegion;
import io.kvpool.protocol.Frame;
import io.kvpool.protocol.Handshake;
import io.kvpool.protocol.Opcode;
import io.kvpool.protocol.Role;
import io.kvpool.protocol.RpcConnection;
import io.kvpool.protocol.SocketBuffers;
import java.io.IOException;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A real server on loopback answers with a 1 MiB value (PING here; EXISTS once three of them are in
 * service) or the same bytes in two pieces (STATS, the shape of a batch), and records the send
 * buffer the kernel had for each reply: the larger one goes only to a connection that has asked
 * several times in a row with no one else's request between or beside its own, and only for a reply
 * of one value; the smallest one goes to every large reply while the server answers three requests
 * at once. A reply sent from files (READ here; READ_BATCH in a crowd) gets the file buffer whatever
 * the load.
 */
class LargeReplyBufferTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(30);
  private static final int VALUE_BYTES = 1 << 20;
  private final ByteBuffer value = ByteBuffer.allocateDirect(VALUE_BYTES);

  /**
   * The kernel's send buffer after each reply, as the server thread recorded it once the reply was
   * written.
   */
  private final BlockingQueue<Integer> recorded = new LinkedBlockingQueue<>();

  /** Where the requests of a crowd (EXISTS) wait for each other in the server. */
  private final CyclicBarrier crowd = new CyclicBarrier(ServingLoad.CROWDED);

  /** What each reply got, in the order the test asked. */
  private final List<String> sizes = new ArrayList<>();

  private RpcServer server;
  private HostPort endpoint;

  /** A memory file of one value, what a reply from files sends (sendfile). */
  private FileChannel file;

  @BeforeEach
  void start() throws IOException {
    Path path = Files.createTempFile(Path.of("/dev/shm"), "large-reply-", ".bin");
    try (FileChannel w = FileChannel.open(path, StandardOpenOption.WRITE)) {
      w.write(ByteBuffer.allocate(VALUE_BYTES));
    }
    file = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.DELETE_ON_CLOSE);
    server =
        LoopbackServers.start(
            "sole",
            Role.STORAGE,
            (session, frame) -> {
              frame.reader().finish();
              boolean crowded =
                  frame.opcode() == Opcode.EXISTS || frame.opcode() == Opcode.READ_BATCH;
              if (crowded) {
                together(); // every request of the crowd is in service before any is answered
              }
              if (frame.opcode() == Opcode.READ || frame.opcode() == Opcode.READ_BATCH) {
                session.replyFromFiles(
                    frame, new BodyWriter(0), List.of(new FileRegion(file, 0, VALUE_BYTES)), 1);
              } else if (frame.opcode() != Opcode.STATS) {
                session.reply(frame, null, value.duplicate());
              } else {
                session.reply(
                    frame,
                    null,
                    value.duplicate().limit(VALUE_BYTES / 2),
                    value.duplicate().position(VALUE_BYTES / 2));
              }
              recorded.add(session.sendBufferBytes());
              if (crowded) {
                together(); // and none leaves service before all are answered
              }
            });
    endpoint = server.endpoint();
  }

  @AfterEach
  void stop() throws IOException {
    server.close();
    file.close();
  }

  private RpcConnection connect(String name) throws IOException {
    return RpcConnection.open(
        endpoint, new Handshake(VersionInfo.CURRENT, Role.CLIENT, "pool", name), TIMEOUT);
  }

  /**
   * One request and its reply; notes the send buffer the server recorded for it (the client may see
   * it first).
   */
  private void ask(RpcConnection c, Opcode opcode) throws Exception {
    try (RpcConnection.Deadline d = c.deadline(TIMEOUT)) {
      Frame reply = c.call(opcode, null);
      assertThat(reply.header().isResponse()).isTrue();
      c.readPayload(ByteBuffer.allocateDirect(VALUE_BYTES));
    }
    Integer kernelBytes = recorded.poll(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
    assertThat(kernelBytes).as("the server recorded the reply's send buffer").isNotNull();
    sizes.add(size(kernelBytes));
    // the server's thread counts the request answered just after recording it; the next request
    // must not race that
    long end = System.nanoTime() + TIMEOUT.toNanos();
    while (server.requestsInService() != 0) {
      assertThat(System.nanoTime() - end).as("the server finished answering").isNegative();
      Thread.sleep(1);
    }
  }

  /**
   * The name of the buffer the kernel reports as {@code kernelBytes} (as it reports each size asked
   * for).
   */
  private static String size(int kernelBytes) throws IOException {
    Map<Integer, String> names = new HashMap<>();
    names.put(reported(SocketBuffers.LOCAL_PEER_CROWDED_SEND_BYTES), "smallest");
    names.put(reported(SocketBuffers.LOCAL_PEER_SEND_BYTES), "small");
    names.put(reported(SocketBuffers.LOCAL_PEER_SOLE_SEND_BYTES), "large");
    assertThat(names).as("the three sizes are told apart").hasSize(3);
    return names.getOrDefault(kernelBytes, kernelBytes + " bytes");
  }

  /**
   * What the kernel reports for a send buffer of {@code bytes} (Linux may double it and caps it).
   */
  private static int reported(int bytes) throws IOException {
    try (SocketChannel probe = SocketChannel.open()) {
      probe.setOption(StandardSocketOptions.SO_SNDBUF, bytes);
      return probe.getOption(StandardSocketOptions.SO_SNDBUF);
    }
  }

  /**
   * Waits on a server thread until the other requests of the crowd arrive here too (bounded by the
   * timeout).
   */
  private void together() throws IOException {
    try {
      crowd.await(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
    } catch (InterruptedException | BrokenBarrierException | TimeoutException e) {
      throw new IOException("the crowd's requests did not meet in the server", e);
    }
  }

  private void askTimes(RpcConnection c, Opcode opcode, int times) throws Exception {
    for (int i = 0; i < times; i++) {
      ask(c, opcode);
    }
  }

  /**
   * What a connection's requests in a row get: small ones until the run is long enough, then large
   * ones.
   */
  private static List<String> run(int requests) {
    return java.util.stream.IntStream.rangeClosed(1, requests)
        .mapToObj(i -> i < ServingLoad.SOLE_RUN ? "small" : "large")
        .toList();
  }

  @Test
  void aConnectionAskingAgainAndAgainGetsTheLargerBufferOnceItsRunIsLongEnough() throws Exception {
    try (RpcConnection c = connect("alone")) {
      askTimes(c, Opcode.PING, ServingLoad.SOLE_RUN + 2);
    }

    assertThat(sizes).isEqualTo(run(ServingLoad.SOLE_RUN + 2));
  }

  @Test
  void anotherConnectionsRequestBetweenGivesTheSmallBufferBack() throws Exception {
    try (RpcConnection a = connect("a");
        RpcConnection b = connect("b")) {
      askTimes(a, Opcode.PING, ServingLoad.SOLE_RUN);
      ask(b, Opcode.PING);
      askTimes(a, Opcode.PING, ServingLoad.SOLE_RUN);
    }

    List<String> expected = new ArrayList<>(run(ServingLoad.SOLE_RUN));
    expected.add("small");
    expected.addAll(run(ServingLoad.SOLE_RUN));
    assertThat(sizes).isEqualTo(expected);
  }

  @Test
  void aReplyInSeveralPiecesKeepsTheSmallBuffer() throws Exception {
    try (RpcConnection c = connect("batches")) {
      askTimes(c, Opcode.STATS, ServingLoad.SOLE_RUN + 1);
      ask(c, Opcode.PING);
      ask(c, Opcode.STATS);
    }

    List<String> expected =
        new ArrayList<>(java.util.Collections.nCopies(ServingLoad.SOLE_RUN + 1, "small"));
    expected.add("large");
    expected.add("small");
    assertThat(sizes).isEqualTo(expected);
  }

  @Test
  void everyLargeReplyWhileTheServerAnswersThreeRequestsGetsTheSmallestBuffer() throws Exception {
    askAsACrowdThenAlone(Opcode.EXISTS);

    assertThat(sizes).containsExactly("smallest", "smallest", "smallest", "small");
  }

  @Test
  void aReplyFromFilesGetsTheFileBufferAloneAndInACrowd() throws Exception {
    try (RpcConnection c = connect("first")) {
      ask(c, Opcode.READ); // the first request of a connection: a copied reply gets the small one
    }
    askAsACrowdThenAlone(Opcode.READ_BATCH);

    // the file buffer is the size of the large one
    assertThat(reported(SocketBuffers.LOCAL_PEER_FILE_SEND_BYTES))
        .isEqualTo(reported(SocketBuffers.LOCAL_PEER_SOLE_SEND_BYTES));
    assertThat(sizes).containsExactly("large", "large", "large", "large", "small");
  }

  /**
   * {@link ServingLoad#CROWDED} connections ask {@code opcode} at once (each request waits in the
   * server until all are in service), then the first asks PING alone.
   */
  private void askAsACrowdThenAlone(Opcode opcode) throws Exception {
    List<RpcConnection> connections = new ArrayList<>();
    try {
      for (int i = 0; i < ServingLoad.CROWDED; i++) {
        connections.add(connect("crowd-" + i));
      }
      long[] ids = new long[connections.size()];
      for (int i = 0; i < ids.length; i++) {
        ids[i] = connections.get(i).send(opcode, null);
      }
      for (int i = 0; i < ids.length; i++) {
        RpcConnection c = connections.get(i);
        try (RpcConnection.Deadline d = c.deadline(TIMEOUT)) {
          assertThat(c.receive(opcode, ids[i]).header().isResponse()).isTrue();
          c.readPayload(ByteBuffer.allocateDirect(VALUE_BYTES));
        }
      }
      for (int i = 0; i < ids.length; i++) {
        Integer kernelBytes = recorded.poll(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        assertThat(kernelBytes).as("the server recorded reply %s's send buffer", i).isNotNull();
        sizes.add(size(kernelBytes));
      }
      // once the crowd is gone, a lone request gets the small buffer back: the crowd's server
      // threads end their
      // requests just after their replies went out, so wait until the server counts none in service
      long deadline = System.nanoTime() + TIMEOUT.toNanos();
      while (server.requestsInService() > 0) {
        assertThat(System.nanoTime() - deadline)
            .as("the crowd's requests end in the server")
            .isNegative();
        Thread.onSpinWait();
      }
      ask(connections.get(0), Opcode.PING);
    } finally {
      for (RpcConnection c : connections) {
        c.close();
      }
    }
  }
}
