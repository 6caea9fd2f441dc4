package io.kvpool.bench;

import io.kvpool.client.ClientConfig;
import io.kvpool.client.KvPoolClient;
import io.kvpool.client.KvPoolException;
import java.nio.ByteBuffer;
import java.time.Duration;

/** kvpool through its Java client: one {@link KvPoolClient} per benchmark thread. */
final class KvPoolTarget implements BenchTarget {

  /** Longer than any sensible read-lease TTL. */
  private static final Duration LEASE_WAIT = Duration.ofSeconds(60);

  private final String masterAddress;
  private final int replicas;
  private KvPoolClient[] clients;

  KvPoolTarget(String masterAddress, int replicas) {
    this.masterAddress = masterAddress;
    this.replicas = replicas;
  }

  @Override
  public String name() {
    return "kvpool";
  }

  @Override
  public void open(int count, int valueSize, int keysPerClient) {
    clients = new KvPoolClient[count];
    for (int c = 0; c < count; c++) {
      clients[c] = KvPoolClient.connect(ClientConfig.builder().master(masterAddress).clientId("bench-" + c)
          .timeout(Duration.ofSeconds(30)).build());
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
  public void remove(int client, String key) {
    long deadline = System.nanoTime() + LEASE_WAIT.toNanos();
    while (true) {
      try {
        clients[client].remove(key);
        return;
      } catch (KvPoolException e) {
        // a get of this key holds a read lease for the pool's lease TTL; wait for it like a real user would
        if (System.nanoTime() > deadline) {
          throw new BenchmarkFailedException("cannot remove benchmark key " + key + " within " + LEASE_WAIT
              + ": " + e.getMessage(), e);
        }
        sleep();
      }
    }
  }

  private static void sleep() {
    try {
      Thread.sleep(250);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new BenchmarkFailedException("interrupted while removing benchmark keys", e);
    }
  }

  @Override
  public boolean storesValues() {
    return true;
  }

  @Override
  public void close() {
    if (clients != null) {
      for (KvPoolClient client : clients) {
        if (client != null) {
          client.close();
        }
      }
    }
  }
}
