package io.kvpool.bench.compare;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;

/**
 * The machine's memory bandwidth: N threads each copying value-sized blocks between two regions as
 * large as the working set (its share of each), for the phase's time. {@code ByteBuffer.put} of
 * direct buffers, which the JDK does with a native memory copy.
 */
final class MemcpyTarget implements Target {
  private final long workingSet;
  private final Cpu cpu = new Cpu(Map.of("copy", List.of(ProcessHandle.current())));

  MemcpyTarget(long workingSet) {
    this.workingSet = workingSet;
  }

  @Override
  public String name() {
    return "memcpy";
  }

  @Override
  public Family family() {
    return Family.LIMIT;
  }

  @Override
  public String description() {
    return "memory copy of value-sized blocks between two working-set-sized regions, one thread per client";
  }

  @Override
  public boolean supports(Workload w) {
    return w.kind() == Workload.Kind.SINGLE;
  }

  @Override
  public List<Measurement> run(Workload w, int round, Phase phase) throws Exception {
    int clients = w.clients();
    int size = w.valueSize();
    ByteBuffer src = ColdMemory.first(workingSet);
    ByteBuffer dst = ColdMemory.second(workingSet);
    long[] copies = new long[clients];
    long[] wall = new long[clients];
    CyclicBarrier barrier = new CyclicBarrier(clients);
    List<Thread> threads = new ArrayList<>();
    Cpu.Reading before = cpu.start();
    for (int c = 0; c < clients; c++) {
      int client = c;
      ByteBuffer from = ColdMemory.share(src, c, clients, size);
      ByteBuffer to = ColdMemory.share(dst, c, clients, size);
      Thread t =
          new Thread(
              () -> {
                try {
                  barrier.await();
                } catch (Exception e) {
                  return;
                }
                int slots = Math.max(1, from.capacity() / size);
                long t0 = System.nanoTime();
                long until = t0 + (long) (phase.getSeconds() * 1e9);
                long n = 0;
                for (int i = 0; System.nanoTime() < until; i = (i + 1) % slots, n++) {
                  int off = ((i * 7919) % slots) * size; // different source and destination blocks
                  to.limit(off + size).position(off);
                  int soff = i * size;
                  to.put(from.duplicate().limit(soff + size).position(soff));
                }
                wall[client] = System.nanoTime() - t0;
                copies[client] = n;
              },
              "memcpy");
      t.start();
      threads.add(t);
    }
    for (Thread t : threads) {
      t.join();
    }
    Cpu.Reading after = cpu.end();
    long ops = 0;
    long maxWall = 0;
    for (int c = 0; c < clients; c++) {
      ops += copies[c];
      maxWall = Math.max(maxWall, wall[c]);
    }
    return List.of(
        new Measurement(
            w.id(),
            name(),
            "copy",
            round,
            ops,
            ops * size,
            maxWall,
            new double[4],
            Cpu.perOp(before, after, ops),
            Map.of()));
  }

  @Override
  public void close() {}
}
