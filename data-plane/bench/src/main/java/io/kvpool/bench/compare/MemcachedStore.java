package io.kvpool.bench.compare;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * memcached over its text protocol: {@code set}, {@code get}; a batch is pipelined sets and one
 * multi-key {@code get k1 k2 ...}; one connection per client.
 */
final class MemcachedStore extends TextProtocolStore {
  MemcachedStore(InetSocketAddress address) {
    super("memcached", address);
  }

  private static void set(TextConnection t, String key, int length) {
    t.ascii("set ").utf8(key).ascii(" 0 0 ").number(length).ascii("\r\n");
  }

  @Override
  public void put(int client, int index, String key, ByteBuffer value) throws IOException {
    TextConnection t = connections[client].begin();
    set(t, key, value.remaining());
    t.sendWithValue(value);
    expect(t.readLine(), "STORED");
  }

  @Override
  public int get(int client, int index, String key, ByteBuffer dst) throws IOException {
    TextConnection t = connections[client].begin();
    t.ascii("get ").utf8(key).ascii("\r\n").send();
    int n = value(t, dst, null);
    if (n < 0) {
      throw new IOException("memcached lost key " + key + " (" + evictionStats() + ")");
    }
    expect(t.readLine(), "END");
    return n;
  }

  /**
   * One VALUE block into dst (its length), or -1 at END; {@code key} (when not null) must be the
   * block's key.
   */
  private int value(TextConnection t, ByteBuffer dst, String key) throws IOException {
    String header = t.readLine();
    if (header.equals("END")) {
      return -1;
    }
    if (!header.startsWith("VALUE ")) {
      throw new IOException("memcached answered '" + header + "'");
    }
    if (key != null && !header.startsWith(key + " ", 6)) {
      throw new IOException(
          "memcached lost key "
              + key
              + " (its multi-get answered '"
              + header
              + "' in its place; "
              + evictionStats()
              + ")");
    }
    int length = Integer.parseInt(header, header.lastIndexOf(' ') + 1, header.length(), 10);
    t.readInto(dst, length);
    t.skipCrlf();
    return length;
  }

  /**
   * memcached's counters that say why it dropped an item it had stored, for the error that reports
   * the loss.
   */
  private String evictionStats() {
    List<String> wanted =
        List.of(
            "evictions",
            "slab_reassign_evictions_nomem",
            "slab_reassign_rescues",
            "slabs_moved",
            "reclaimed",
            "expired_unfetched",
            "curr_items",
            "total_items",
            "bytes",
            "limit_maxbytes");
    StringBuilder out = new StringBuilder("memcached stats:");
    try (TextConnection t = new TextConnection(address)) {
      t.begin().ascii("stats\r\n").send();
      for (String line = t.readLine(); !line.equals("END"); line = t.readLine()) {
        String[] f = line.split(" ");
        if (f.length == 3 && wanted.contains(f[1])) {
          out.append(' ').append(f[1]).append('=').append(f[2]);
        }
      }
    } catch (IOException e) {
      out.append(" unavailable: ").append(e.getMessage());
    }
    return out.toString();
  }

  @Override
  public void putBatch(int client, int firstIndex, List<String> keys, ByteBuffer[] values)
      throws IOException {
    pipelinedSets(connections[client], keys, values, MemcachedStore::set, "STORED");
  }

  @Override
  public ByteBuffer[] getBatch(int client, int firstIndex, List<String> keys, ByteBuffer[] dsts)
      throws IOException {
    TextConnection t = connections[client].begin();
    t.ascii("get");
    for (String key : keys) {
      t.ascii(" ").utf8(key);
    }
    t.ascii("\r\n").send();
    // memcached answers the keys it holds, in order; the benchmark's keys are all there
    for (int i = 0; i < keys.size(); i++) {
      dsts[i].clear();
      int n = value(t, dsts[i], keys.get(i));
      if (n < 0) {
        throw new IOException("memcached lost key " + keys.get(i) + " (" + evictionStats() + ")");
      }
      dsts[i].position(0).limit(n);
    }
    expect(t.readLine(), "END");
    return dsts;
  }

  @Override
  public void remove(int client, List<String> keys) throws IOException {
    for (int i = 0; i < keys.size(); i += 512) {
      List<String> part = keys.subList(i, Math.min(keys.size(), i + 512));
      TextConnection t = connections[client].begin();
      for (String key : part) {
        t.ascii("delete ").utf8(key).ascii("\r\n");
      }
      t.send();
      for (int k = 0; k < part.size(); k++) {
        t.readLine();
      }
    }
  }
}
