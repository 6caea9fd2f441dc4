package io.kvpool.bench.capacity;

import io.kvpool.bench.BenchmarkFailedException;
import io.kvpool.common.VersionInfo;
import io.kvpool.protocol.BodyWriter;
import io.kvpool.protocol.ErrorCode;
import io.kvpool.protocol.Handshake;
import io.kvpool.protocol.KeyList;
import io.kvpool.protocol.Opcode;
import io.kvpool.protocol.PutStartItem;
import io.kvpool.protocol.PutStartReply;
import io.kvpool.protocol.PutStartRequest;
import io.kvpool.protocol.PutStartResult;
import io.kvpool.protocol.ReplicaGrant;
import io.kvpool.protocol.ReplicaListReply;
import io.kvpool.protocol.ReplicaListResult;
import io.kvpool.protocol.Role;
import io.kvpool.protocol.RpcConnection;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * The metadata operations one master serves, measured by its own CPU time: puts (PUT_START of one
 * key, then the COMMIT of the node it was placed on, as a protocol-2.2 put costs the master) and
 * gets (GET_REPLICAS of one key, with its read token and lease), from several client connections in
 * parallel for a fixed time.
 */
final class MetadataLoad {
  /** Receipts one client's node commits together (a node batches the commits of its writes). */
  private static final int COMMIT_BATCH = 16;

  private static final Duration EXCHANGE_TIMEOUT = Duration.ofMinutes(1);

  /** Operations done in a phase, how long it took, and the master's CPU time during it. */
  record Rate(long operations, Duration wall, Duration masterCpu) {
    double perSecond() {
      return operations / (wall.toNanos() / 1e9);
    }

    /** Operations per second of the master's CPU: what one core of it serves when saturated. */
    double perMasterCore() {
      return masterCpu.isZero() ? Double.NaN : operations / (masterCpu.toNanos() / 1e9);
    }
  }

  private final MasterJvm master;
  private final List<SyntheticNode> nodes;
  private final int clients;

  MetadataLoad(MasterJvm master, List<SyntheticNode> nodes, int clients) {
    this.master = master;
    this.nodes = nodes;
    this.clients = clients;
  }

  /** Puts new keys numbered from {@code nextKey} on for {@code time}; the nodes commit them. */
  Rate puts(AtomicInteger nextKey, Duration time) {
    Map<String, SyntheticNode> byId = new HashMap<>();
    nodes.forEach(n -> byId.put(n.id(), n));
    return run(
        time,
        client -> {
          Map<SyntheticNode, List<SyntheticNode.PlacedPut>> placed = new HashMap<>();
          SplittableRandom random = new SplittableRandom();
          return new Operation() {
            @Override
            public void once(RpcConnection c) throws IOException {
              int number = nextKey.getAndIncrement();
              BodyWriter w = new BodyWriter();
              new PutStartRequest(
                      List.of(
                          new PutStartItem(
                              CapacityKeys.key(number),
                              SyntheticNode.VALUE_BYTES,
                              0,
                              1,
                              random.nextLong(),
                              List.of())))
                  .encode(w);
              PutStartResult r =
                  PutStartReply.decode(c.call(Opcode.PUT_START, w).reader()).results().get(0);
              if (r.status() != ErrorCode.OK) {
                throw new BenchmarkFailedException(
                    "PUT_START of "
                        + CapacityKeys.key(number)
                        + ": "
                        + r.status()
                        + " "
                        + r.message());
              }
              ReplicaGrant grant = r.replicas().get(0);
              SyntheticNode node = byId.get(grant.nodeId());
              List<SyntheticNode.PlacedPut> batch =
                  placed.computeIfAbsent(node, n -> new ArrayList<>());
              batch.add(
                  new SyntheticNode.PlacedPut(
                      number, r.generation(), grant.slices().get(0).slice().offset()));
              if (batch.size() == COMMIT_BATCH) {
                node.commit(batch);
                batch.clear();
              }
            }

            @Override
            public void finish() throws IOException {
              for (Map.Entry<SyntheticNode, List<SyntheticNode.PlacedPut>> e : placed.entrySet()) {
                if (!e.getValue().isEmpty()) {
                  e.getKey().commit(e.getValue());
                }
              }
            }
          };
        });
  }

  /** Gets random keys numbered below {@code keys} for {@code time}; every one must be found. */
  Rate gets(int keys, Duration time) {
    return run(
        time,
        client -> {
          SplittableRandom random = new SplittableRandom(client);
          return new Operation() {
            @Override
            public void once(RpcConnection c) throws IOException {
              String key = CapacityKeys.key(random.nextInt(keys));
              BodyWriter w = new BodyWriter();
              new KeyList(List.of(key)).encode(w);
              ReplicaListResult r =
                  ReplicaListReply.decode(c.call(Opcode.GET_REPLICAS, w).reader()).results().get(0);
              if (r.status() != ErrorCode.OK || r.replicas().isEmpty()) {
                throw new BenchmarkFailedException(
                    "GET_REPLICAS of stored key " + key + ": " + r.status());
              }
            }

            @Override
            public void finish() {}
          };
        });
  }

  private interface Operation {
    void once(RpcConnection c) throws IOException;

    /** After the last operation, still counted in the phase (e.g. the last commits). */
    void finish() throws IOException;
  }

  private Rate run(Duration time, Function<Integer, Operation> perClient) {
    ExecutorService threads =
        Executors.newFixedThreadPool(
            clients,
            r -> {
              Thread t = new Thread(r, "capacity-client");
              t.setDaemon(true);
              return t;
            });
    try {
      Duration cpuBefore = master.cpu();
      long start = System.nanoTime();
      long end = start + time.toNanos();
      List<CompletableFuture<Long>> done = new ArrayList<>();
      for (int i = 0; i < clients; i++) {
        int client = i;
        done.add(
            CompletableFuture.supplyAsync(
                () -> loop(client, perClient.apply(client), end), threads));
      }
      long operations = 0;
      for (CompletableFuture<Long> f : done) {
        operations += f.get(time.toSeconds() + EXCHANGE_TIMEOUT.toSeconds() * 2, TimeUnit.SECONDS);
      }
      nodes.forEach(SyntheticNode::sync); // every COMMIT sent is applied
      Duration wall = Duration.ofNanos(System.nanoTime() - start);
      return new Rate(operations, wall, master.cpu().minus(cpuBefore));
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      throw new BenchmarkFailedException("a client failed: " + e.getCause(), e.getCause());
    } catch (TimeoutException e) {
      throw new BenchmarkFailedException(
          "a client's calls hang (master log " + master.log() + ")", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new BenchmarkFailedException("interrupted during a load phase", e);
    } finally {
      threads.shutdownNow();
    }
  }

  private long loop(int client, Operation op, long end) {
    try (RpcConnection c =
        RpcConnection.open(
            master.rpc(),
            new Handshake(
                VersionInfo.CURRENT, Role.CLIENT, MasterJvm.POOL_ID, "capacity-" + client),
            EXCHANGE_TIMEOUT)) {
      long n = 0;
      while (System.nanoTime() - end < 0) {
        try (RpcConnection.Deadline d = c.deadline(EXCHANGE_TIMEOUT)) {
          op.once(c);
        }
        n++;
      }
      op.finish();
      return n;
    } catch (IOException e) {
      throw new BenchmarkFailedException(
          "client " + client + " lost the master: " + e + " (log " + master.log() + ")", e);
    }
  }
}
