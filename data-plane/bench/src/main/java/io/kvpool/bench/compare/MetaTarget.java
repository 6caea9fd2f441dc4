package io.kvpool.bench.compare;

import io.kvpool.client.BatchResult;
import io.kvpool.client.ClientConfig;
import io.kvpool.client.KvPoolClient;
import io.kvpool.common.HostPort;
import io.kvpool.common.VersionInfo;
import io.kvpool.protocol.BodyWriter;
import io.kvpool.protocol.ErrorCode;
import io.kvpool.protocol.Handshake;
import io.kvpool.protocol.KeyList;
import io.kvpool.protocol.Opcode;
import io.kvpool.protocol.ReplicaListReply;
import io.kvpool.protocol.Role;
import io.kvpool.protocol.RpcConnection;
import io.kvpool.protocol.StatusList;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The master's metadata throughput: N clients, each on its own connection, asking Exists or
 * GetReplicaList of one stored key per request (raw protocol: what a client's lookup costs the
 * master), or reading batches of 64 small values through the Java client. Ops are requests (keys
 * for the batch); CPU is split by process, so the master's CPU per operation is read directly.
 */
final class MetaTarget implements Target {
  private static final int KEYS = 4096;
  private static final int SMALL = 1024;

  private final String master;
  private final Cpu cpu;
  private final List<String> keys = new ArrayList<>();
  private final List<KvPoolClient> clients = new ArrayList<>();
  private final List<RpcConnection> connections = new ArrayList<>();

  MetaTarget(String master, Map<String, List<ProcessHandle>> pool) throws Exception {
    this.master = master;
    Map<String, List<ProcessHandle>> groups = new LinkedHashMap<>();
    groups.put("client", List.of(ProcessHandle.current()));
    groups.putAll(pool);
    this.cpu = new Cpu(groups);
    for (int c = 0; c < 8; c++) {
      clients.add(
          KvPoolClient.connect(
              ClientConfig.builder().master(master).clientId("meta-" + c).build()));
      connections.add(
          RpcConnection.open(
              HostPort.parseList(master).get(0),
              new Handshake(VersionInfo.CURRENT, Role.CLIENT, "", "meta-raw-" + c),
              Duration.ofSeconds(10)));
    }
    ByteBuffer value = ByteBuffer.allocateDirect(SMALL);
    Map<String, ByteBuffer> batch = new LinkedHashMap<>();
    for (int i = 0; i < KEYS; i++) {
      String key = "cmp/meta/" + i;
      keys.add(key);
      batch.put(key, value.duplicate());
      if (batch.size() == 512) {
        store(batch);
      }
    }
    store(batch);
  }

  private void store(Map<String, ByteBuffer> batch) {
    BatchResult r = clients.get(0).putBatch(batch, 1);
    if (!r.allSucceeded()) {
      throw r.failures().values().iterator().next();
    }
    batch.clear();
  }

  @Override
  public String name() {
    return "kvpool-master";
  }

  @Override
  public Family family() {
    return Family.KVPOOL;
  }

  @Override
  public String description() {
    return "kvpool's master: Exists and GetReplicaList of one key per request (raw protocol), and Java-client batch"
        + " gets of 64 x 1 KiB values, over "
        + KEYS
        + " stored keys";
  }

  @Override
  public boolean supports(Workload w) {
    return w.kind() == Workload.Kind.META;
  }

  @Override
  public List<Measurement> run(Workload w, int round, Phase phase) throws Exception {
    int n = w.clients();
    long[] ops = new long[n];
    long[] wall = new long[n];
    LatencyLog[] logs = new LatencyLog[n];
    AtomicReference<Exception> failure = new AtomicReference<>();
    CyclicBarrier barrier = new CyclicBarrier(n);
    List<Thread> threads = new ArrayList<>();
    Cpu.Reading before = cpu.start();
    for (int c = 0; c < n; c++) {
      int client = c;
      Thread t =
          new Thread(
              () -> {
                try {
                  logs[client] = new LatencyLog();
                  barrier.await();
                  long t0 = System.nanoTime();
                  long until = t0 + (long) (phase.getSeconds() * 1e9);
                  while (System.nanoTime() < until) {
                    long s = System.nanoTime();
                    ops[client] += once(w.metaOp(), client);
                    logs[client].add(System.nanoTime() - s);
                  }
                  wall[client] = System.nanoTime() - t0;
                } catch (Exception e) {
                  failure.compareAndSet(null, e);
                }
              },
              "meta-" + c);
      t.start();
      threads.add(t);
    }
    for (Thread t : threads) {
      t.join();
    }
    Cpu.Reading after = cpu.end();
    if (failure.get() != null) {
      throw failure.get();
    }
    long total = 0;
    long maxWall = 0;
    for (int c = 0; c < n; c++) {
      total += ops[c];
      maxWall = Math.max(maxWall, wall[c]);
    }
    return List.of(
        new Measurement(
            w.id(),
            name(),
            "op",
            round,
            total,
            total * (long) w.valueSize(),
            maxWall,
            LatencyLog.percentiles(logs),
            Cpu.perOp(before, after, total),
            Map.of()));
  }

  /** One request; returns the operations it counts for (keys of a batch). */
  private int once(Workload.MetaOp op, int client) throws Exception {
    ThreadLocalRandom random = ThreadLocalRandom.current();
    switch (op) {
      case EXISTS, GET_REPLICAS -> {
        BodyWriter w = new BodyWriter(64);
        new KeyList(List.of(keys.get(random.nextInt(KEYS)))).encode(w);
        RpcConnection c = connections.get(client);
        try (RpcConnection.Deadline d = c.deadline(Duration.ofSeconds(10))) {
          if (op == Workload.MetaOp.EXISTS) {
            ErrorCode s = StatusList.decode(c.call(Opcode.EXISTS, w).reader()).statuses().get(0);
            if (s != ErrorCode.OK) {
              throw new IllegalStateException("Exists answered " + s);
            }
          } else {
            ErrorCode s =
                ReplicaListReply.decode(c.call(Opcode.GET_REPLICAS, w).reader())
                    .results()
                    .get(0)
                    .status();
            if (s != ErrorCode.OK) {
              throw new IllegalStateException("GetReplicaList answered " + s);
            }
          }
        }
        return 1;
      }
      case SMALL_BATCH -> {
        int first = random.nextInt(KEYS - 64);
        Map<String, ByteBuffer> got = clients.get(client).getBatch(keys.subList(first, first + 64));
        if (got.size() != 64) {
          throw new IllegalStateException("a batch of 64 small values returned " + got.size());
        }
        return 64;
      }
      default -> throw new IllegalArgumentException(op.name());
    }
  }

  @Override
  public void close() {
    connections.forEach(RpcConnection::close);
    clients.forEach(KvPoolClient::close);
  }
}
