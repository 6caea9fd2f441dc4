package io.kvpool.bench.compare;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * Redis over RESP2: SET, GET; a batch is pipelined SETs and one MGET; one connection per client.
 */
final class RedisStore extends TextProtocolStore {
  RedisStore(InetSocketAddress address) {
    super("redis", address);
  }

  private static void set(TextConnection t, String key, int length) {
    t.ascii("*3\r\n$3\r\nSET\r\n$")
        .number(key.length())
        .ascii("\r\n")
        .utf8(key)
        .ascii("\r\n$")
        .number(length)
        .ascii("\r\n");
  }

  @Override
  public void put(int client, int index, String key, ByteBuffer value) throws IOException {
    TextConnection t = connections[client].begin();
    set(t, key, value.remaining());
    t.sendWithValue(value);
    expect(t.readLine(), "+OK");
  }

  @Override
  public int get(int client, int index, String key, ByteBuffer dst) throws IOException {
    TextConnection t = connections[client].begin();
    t.ascii("*2\r\n$3\r\nGET\r\n$")
        .number(key.length())
        .ascii("\r\n")
        .utf8(key)
        .ascii("\r\n")
        .send();
    return bulk(t, dst);
  }

  private static int bulk(TextConnection t, ByteBuffer dst) throws IOException {
    String header = t.readLine();
    if (!header.startsWith("$")) {
      throw new IOException("redis answered '" + header + "'");
    }
    int length = Integer.parseInt(header, 1, header.length(), 10);
    if (length < 0) {
      return -1;
    }
    t.readInto(dst, length);
    t.skipCrlf();
    return length;
  }

  @Override
  public void putBatch(int client, int firstIndex, List<String> keys, ByteBuffer[] values)
      throws IOException {
    pipelinedSets(connections[client], keys, values, RedisStore::set, "+OK");
  }

  @Override
  public ByteBuffer[] getBatch(int client, int firstIndex, List<String> keys, ByteBuffer[] dsts)
      throws IOException {
    TextConnection t = connections[client].begin();
    t.ascii("*").number(keys.size() + 1).ascii("\r\n$4\r\nMGET\r\n");
    for (String key : keys) {
      t.ascii("$").number(key.length()).ascii("\r\n").utf8(key).ascii("\r\n");
    }
    t.send();
    String header = t.readLine();
    if (!header.equals("*" + keys.size())) {
      throw new IOException("redis answered MGET with '" + header + "'");
    }
    for (int i = 0; i < keys.size(); i++) {
      dsts[i].clear();
      int n = bulk(t, dsts[i]);
      dsts[i].position(0).limit(Math.max(0, n));
    }
    return dsts;
  }

  @Override
  public void remove(int client, List<String> keys) throws IOException {
    for (int i = 0; i < keys.size(); i += 512) {
      List<String> part = keys.subList(i, Math.min(keys.size(), i + 512));
      TextConnection t = connections[client].begin();
      t.ascii("*").number(part.size() + 1).ascii("\r\n$3\r\nDEL\r\n");
      for (String key : part) {
        t.ascii("$").number(key.length()).ascii("\r\n").utf8(key).ascii("\r\n");
      }
      t.send();
      t.readLine();
    }
  }
}
