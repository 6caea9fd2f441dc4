package io.kvpool.bench.compare;

import io.kvpool.client.BatchResult;
import io.kvpool.client.ClientConfig;
import io.kvpool.client.KvPoolClient;
import io.kvpool.client.KvPoolException;
import io.kvpool.client.LocationCacheStats;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

/** kvpool through its Java client: one {@link KvPoolClient} per benchmark client. */
final class KvPoolStore implements Store {
  private final String master;
  private final int replicas;
  private final UnaryOperator<ClientConfig.Builder> settings;
  private KvPoolClient[] clients;
  private long lastHits;
  private long lastMisses;
  private long lastStale;

  KvPoolStore(String master, int replicas, UnaryOperator<ClientConfig.Builder> settings) {
    this.master = master;
    this.replicas = replicas;
    this.settings = settings;
  }

  @Override
  public void open(int count) {
    clients = new KvPoolClient[count];
    for (int c = 0; c < count; c++) {
      clients[c] =
          KvPoolClient.connect(
              settings
                  .apply(
                      ClientConfig.builder()
                          .master(master)
                          .clientId("compare-" + c)
                          .timeout(Duration.ofSeconds(30)))
                  .build());
    }
  }

  @Override
  public void put(int client, int index, String key, ByteBuffer value) {
    clients[client].put(key, value, replicas);
  }

  @Override
  public int get(int client, int index, String key, ByteBuffer dst) {
    return clients[client].get(key, dst);
  }

  @Override
  public void putBatch(int client, int firstIndex, List<String> keys, ByteBuffer[] values) {
    Map<String, ByteBuffer> batch = new LinkedHashMap<>();
    for (int i = 0; i < keys.size(); i++) {
      batch.put(keys.get(i), values[i]);
    }
    BatchResult r = clients[client].putBatch(batch, replicas);
    if (!r.allSucceeded()) {
      throw r.failures().values().iterator().next();
    }
  }

  @Override
  public ByteBuffer[] getBatch(int client, int firstIndex, List<String> keys, ByteBuffer[] dsts) {
    for (ByteBuffer d : dsts) {
      d.clear();
    }
    int[] sizes = clients[client].getBatch(keys, Arrays.asList(dsts));
    for (int i = 0; i < dsts.length; i++) {
      dsts[i].position(0).limit(Math.max(0, sizes[i]));
    }
    return dsts;
  }

  @Override
  public Map<String, Object> notes() {
    long hits = 0;
    long misses = 0;
    long stale = 0;
    for (KvPoolClient c : clients) {
      LocationCacheStats s = c.locationCacheStats();
      hits += s.hits();
      misses += s.misses();
      stale += s.stale();
    }
    Map<String, Object> out =
        Map.of(
            "locationCacheHits",
            hits - lastHits,
            "locationCacheMisses",
            misses - lastMisses,
            "locationCacheStale",
            stale - lastStale);
    lastHits = hits;
    lastMisses = misses;
    lastStale = stale;
    return out;
  }

  @Override
  public void remove(int client, List<String> keys) throws InterruptedException {
    for (String key : keys) {
      long deadline = System.nanoTime() + 60_000_000_000L;
      while (true) {
        try {
          clients[client].remove(key);
          break;
        } catch (KvPoolException e) {
          if (System.nanoTime() > deadline) {
            throw e; // a read lease lasts seconds, not a minute
          }
          Thread.sleep(100);
        }
      }
    }
  }

  @Override
  public boolean supportsBatch() {
    return true;
  }

  @Override
  public void close() {
    if (clients != null) {
      for (KvPoolClient c : clients) {
        if (c != null) {
          c.close();
        }
      }
    }
  }
}
