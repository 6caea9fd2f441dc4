package io.kvpool.bench.scaleout;

import io.kvpool.client.ClientConfig;
import io.kvpool.client.KvPoolClient;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * A client of a pool split across master groups (docs/scale-out.md): one ordinary {@link
 * KvPoolClient} per shard, each following its own group's leader, and every key routed by the
 * {@link ShardMap}. What spans shards (a batch, REMOVE_ALL) is split per shard by the caller: no
 * request crosses a master group.
 */
public final class ShardedClient implements AutoCloseable {
  private final ShardMap map;
  private final List<KvPoolClient> clients = new ArrayList<>();

  /** Connects to every shard's masters with the settings {@code config} adds. */
  public ShardedClient(ShardMap map, UnaryOperator<ClientConfig.Builder> config) {
    this.map = map;
    try {
      for (ShardMap.Shard s : map.shards()) {
        clients.add(
            KvPoolClient.connect(
                config
                    .apply(ClientConfig.builder().master(s.masters()).clientId(s.name()))
                    .build()));
      }
    } catch (RuntimeException e) {
      close();
      throw e;
    }
  }

  /** The client of the shard that owns {@code key}. */
  public KvPoolClient owner(String key) {
    return clients.get(map.shardOf(key));
  }

  public void put(String key, ByteBuffer value, int replicas) {
    owner(key).put(key, value, replicas);
  }

  public ByteBuffer get(String key) {
    return owner(key).get(key);
  }

  @Override
  public void close() {
    for (KvPoolClient c : clients) {
      c.close();
    }
  }
}
