package io.kvpool.bench.compare;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The floor of a request/response store on loopback: plain NIO with direct buffers, one request and
 * one reply per operation, a server thread per connection that keeps every key's value in memory of
 * its own (a slot per key, so the server touches as much memory as a store). No protocol, metadata,
 * checksum. Request {@code [op][client][slot] [length]} (4 x i32) + value for a put; reply {@code
 * [length]} (i32) + value for a get.
 */
final class NioRrStore implements Store {
  private static final int PUT = 1;
  private static final int GET = 2;

  private final Map<Long, ByteBuffer> slots = new ConcurrentHashMap<>();
  private ServerSocketChannel server;
  private SocketChannel[] connections;
  private ByteBuffer[] headers;

  @Override
  public void open(int clients) throws IOException {
    server = ServerSocketChannel.open().bind(new InetSocketAddress("127.0.0.1", 0));
    Thread acceptor = new Thread(this::accept, "nio-rr-accept");
    acceptor.setDaemon(true);
    acceptor.start();
    connections = new SocketChannel[clients];
    headers = new ByteBuffer[clients];
    for (int c = 0; c < clients; c++) {
      connections[c] = SocketChannel.open(server.getLocalAddress());
      connections[c].setOption(StandardSocketOptions.TCP_NODELAY, true);
      headers[c] = ByteBuffer.allocateDirect(16);
    }
  }

  private void accept() {
    try {
      while (true) {
        SocketChannel ch = server.accept();
        ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
        Thread t = new Thread(() -> serve(ch), "nio-rr-server");
        t.setDaemon(true);
        t.start();
      }
    } catch (IOException closed) {
      // the suite ended
    }
  }

  private ByteBuffer slot(int client, int slot, int size) {
    long id = ((long) client << 32) | slot;
    ByteBuffer b = slots.get(id);
    if (b == null || b.capacity() < size) {
      b = ByteBuffer.allocateDirect(size);
      slots.put(id, b);
    }
    return b;
  }

  private void serve(SocketChannel ch) {
    ByteBuffer header = ByteBuffer.allocateDirect(16);
    ByteBuffer reply = ByteBuffer.allocateDirect(4);
    int[] lengths = new int[1 << 16];
    try {
      while (true) {
        header.clear();
        if (!readFully(ch, header)) {
          return;
        }
        int op = header.getInt(0);
        int client = header.getInt(4);
        int slot = header.getInt(8);
        int length = header.getInt(12);
        if (op == PUT) {
          ByteBuffer value = slot(client, slot, length).clear().limit(length);
          readFully(ch, value);
          lengths[slot] = length;
          reply.clear().putInt(0, 0);
          writeFully(ch, reply);
        } else {
          int n = lengths[slot];
          ByteBuffer value = slot(client, slot, n).clear().limit(n);
          reply.clear().putInt(0, n);
          writeFully(ch, reply, value);
        }
      }
    } catch (IOException closed) {
      // the client closed the connection
    }
  }

  @Override
  public void put(int client, int index, String key, ByteBuffer value) throws IOException {
    ByteBuffer h =
        headers[client]
            .clear()
            .putInt(0, PUT)
            .putInt(4, client)
            .putInt(8, index)
            .putInt(12, value.remaining());
    writeFully(connections[client], h, value.duplicate());
    h.clear().limit(4);
    readFully(connections[client], h);
  }

  @Override
  public int get(int client, int index, String key, ByteBuffer dst) throws IOException {
    ByteBuffer h =
        headers[client].clear().putInt(0, GET).putInt(4, client).putInt(8, index).putInt(12, 0);
    writeFully(connections[client], h);
    h.clear().limit(4);
    readFully(connections[client], h);
    int n = h.getInt(0);
    dst.limit(dst.position() + n);
    readFully(connections[client], dst);
    return n;
  }

  @Override
  public void putBatch(int client, int firstIndex, List<String> keys, ByteBuffer[] values) {
    throw new UnsupportedOperationException();
  }

  @Override
  public ByteBuffer[] getBatch(int client, int firstIndex, List<String> keys, ByteBuffer[] dsts) {
    throw new UnsupportedOperationException();
  }

  @Override
  public void remove(int client, List<String> keys) {
    // slots are reused by the next run
  }

  @Override
  public boolean supportsBatch() {
    return false;
  }

  static boolean readFully(SocketChannel ch, ByteBuffer b) throws IOException {
    while (b.hasRemaining()) {
      if (ch.read(b) < 0) {
        return false;
      }
    }
    return true;
  }

  static void writeFully(SocketChannel ch, ByteBuffer... bs) throws IOException {
    long left = 0;
    for (ByteBuffer b : bs) {
      left += b.remaining();
    }
    while (left > 0) {
      left -= ch.write(bs);
    }
  }

  @Override
  public void close() {
    try {
      if (server != null) {
        server.close();
      }
      if (connections != null) {
        for (SocketChannel c : connections) {
          if (c != null) {
            c.close();
          }
        }
      }
    } catch (IOException ignored) {
      // end of the run
    }
    slots.clear();
  }
}
