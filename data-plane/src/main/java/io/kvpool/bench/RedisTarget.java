package io.kvpool.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;

/** Redis SET/GET as a familiar reference point: one RESP connection per benchmark thread. */
final class RedisTarget implements BenchTarget {

  private final InetSocketAddress address;
  private RespConnection[] connections;

  RedisTarget(InetSocketAddress address) {
    this.address = address;
  }

  @Override
  public String name() {
    return "redis";
  }

  @Override
  public void open(int clients, int valueSize, int keysPerClient) {
    connections = new RespConnection[clients];
    try {
      for (int c = 0; c < clients; c++) {
        connections[c] = new RespConnection(address);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot connect to redis at " + address, e);
    }
  }

  @Override
  public void put(int client, int index, String key, ByteBuffer value) {
    try {
      connections[client].set(key, value);
    } catch (IOException e) {
      throw new BenchmarkFailedException("redis SET " + key + " failed: " + e.getMessage(), e);
    }
  }

  @Override
  public int get(int client, int index, String key, ByteBuffer dst) {
    try {
      return connections[client].get(key, dst);
    } catch (IOException e) {
      throw new BenchmarkFailedException("redis GET " + key + " failed: " + e.getMessage(), e);
    }
  }

  @Override
  public void remove(int client, String key) {
    try {
      connections[client].del(key);
    } catch (IOException e) {
      throw new BenchmarkFailedException("redis DEL " + key + " failed: " + e.getMessage(), e);
    }
  }

  @Override
  public boolean storesValues() {
    return true;
  }

  @Override
  public void close() {
    if (connections == null) {
      return;
    }
    try {
      for (RespConnection connection : connections) {
        if (connection != null) {
          connection.close();
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot close redis connections", e);
    }
  }
}
