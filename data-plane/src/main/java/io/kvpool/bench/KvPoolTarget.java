package io.kvpool.bench;

import io.kvpool.client.ClientConfig;
import io.kvpool.client.KvPoolClient;
import java.nio.ByteBuffer;
import java.time.Duration;

/** kvpool through its Java client: one {@link KvPoolClient} per benchmark thread. */
final class KvPoolTarget implements BenchTarget {

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
  public void open(int count, int valueSize) {
    clients = new KvPoolClient[count];
    for (int c = 0; c < count; c++) {
      clients[c] = KvPoolClient.connect(ClientConfig.builder().master(masterAddress).clientId("bench-" + c)
          .timeout(Duration.ofSeconds(30)).build());
    }
  }

  @Override
  public void put(int client, String key, ByteBuffer value) {
    clients[client].put(key, value, replicas);
  }

  @Override
  public int get(int client, String key, ByteBuffer dst) {
    return clients[client].get(key, dst);
  }

  @Override
  public void remove(int client, String key) {
    clients[client].remove(key);
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
