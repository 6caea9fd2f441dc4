package io.kvpool.bench.compare;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The machine's limit for moving values over loopback: N connections, each a one-way stream of
 * messages of the workload's value size with no request, reply or protocol; "put" streams from the
 * clients into the server's memory, "get" from the server's memory to the clients. The server side
 * cycles through a region as large as the working set. Kernel defaults for the sockets (autotuned
 * buffers).
 */
final class StreamTarget implements Target {
  private static final int PUT = 1;
  private static final int GET = 2;

  private final ServerSocketChannel server;
  private final long workingSet;
  private final Cpu cpu = new Cpu(Map.of("client+server", List.of(ProcessHandle.current())));

  StreamTarget(long workingSet) throws IOException {
    this.workingSet = workingSet;
    this.server = ServerSocketChannel.open().bind(new InetSocketAddress("127.0.0.1", 0));
  }

  @Override
  public String name() {
    return "loopback-stream";
  }

  @Override
  public Family family() {
    return Family.LIMIT;
  }

  @Override
  public String description() {
    return "one-way TCP stream per client of value-sized messages, Java NIO direct buffers, no protocol";
  }

  @Override
  public boolean supports(Workload w) {
    return w.kind() == Workload.Kind.SINGLE;
  }

  @Override
  public List<Measurement> run(Workload w, int round, Phase phase) throws Exception {
    return List.of(
        stream(w, round, PUT, phase.getSeconds()), stream(w, round, GET, phase.getSeconds()));
  }

  private Measurement stream(Workload w, int round, int direction, double seconds)
      throws Exception {
    int clients = w.clients();
    int size = w.valueSize();
    ByteBuffer region = ColdMemory.first(workingSet);
    long[] messages = new long[clients];
    long[] wall = new long[clients];
    AtomicReference<Exception> failure = new AtomicReference<>();
    CountDownLatch ready = new CountDownLatch(clients);
    List<Thread> threads = new ArrayList<>();
    Cpu.Reading before = cpu.start();
    for (int c = 0; c < clients; c++) {
      int client = c;
      SocketChannel clientSide = SocketChannel.open(server.getLocalAddress());
      SocketChannel serverSide = server.accept();
      ByteBuffer share = ColdMemory.share(region, c, clients, size);
      Thread serverThread =
          new Thread(() -> serve(serverSide, direction, share, size), "stream-server");
      serverThread.setDaemon(true);
      serverThread.start();
      Thread clientThread =
          new Thread(
              () -> {
                try (SocketChannel ch = clientSide) {
                  ByteBuffer buffer = StoreTargetBuffers.client(client, size);
                  ready.countDown();
                  ready.await();
                  long t0 = System.nanoTime();
                  long until = t0 + (long) (seconds * 1e9);
                  long n = 0;
                  while (System.nanoTime() < until) {
                    buffer.clear().limit(size);
                    while (buffer.hasRemaining()) {
                      int k = direction == PUT ? ch.write(buffer) : ch.read(buffer);
                      if (k < 0) {
                        throw new IOException("stream closed");
                      }
                    }
                    n++;
                  }
                  wall[client] = System.nanoTime() - t0;
                  messages[client] = n;
                } catch (Exception e) {
                  failure.compareAndSet(null, e);
                }
              },
              "stream-client");
      clientThread.start();
      threads.add(clientThread);
      threads.add(serverThread);
    }
    for (Thread t : threads) {
      t.join();
    }
    Cpu.Reading after = cpu.end();
    if (failure.get() != null) {
      throw failure.get();
    }
    long ops = 0;
    long maxWall = 0;
    for (int c = 0; c < clients; c++) {
      ops += messages[c];
      maxWall = Math.max(maxWall, wall[c]);
    }
    return new Measurement(
        w.id(),
        name(),
        direction == PUT ? "put" : "get",
        round,
        ops,
        ops * size,
        maxWall,
        new double[4],
        Cpu.perOp(before, after, ops),
        Map.of());
  }

  /**
   * Receives into (put) or sends from (get) the client's share of the region until the client hangs
   * up.
   */
  private static void serve(SocketChannel ch, int direction, ByteBuffer share, int size) {
    try (ch) {
      int slots = Math.max(1, share.capacity() / size);
      for (int i = 0; ; i = (i + 1) % slots) {
        ByteBuffer b = share.duplicate().limit((i + 1) * size).position(i * size);
        while (b.hasRemaining()) {
          if ((direction == PUT ? ch.read(b) : ch.write(b)) < 0) {
            return;
          }
        }
      }
    } catch (IOException hungUp) {
      // the client closed its end: the phase is over
    }
  }

  @Override
  public void close() {
    try {
      server.close();
    } catch (IOException ignored) {
      // end of the run
    }
  }
}
