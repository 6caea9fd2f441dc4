package io.kvpool.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The ceiling kvpool is measured against: plain Java NIO over 127.0.0.1 with direct buffers, one
 * request/response per operation, a server thread per connection that reads a put into memory it owns
 * (a slot per key, as many slots as the benchmark keeps live keys, so its memory traffic is the same as a
 * store's rather than one cache-hot buffer) and answers a get from it. No protocol, no master, no
 * placement, no checksum: just the bytes on loopback. The slots are allocated (and so paged in) before
 * the timed phases.
 *
 * <p>Frames: request {@code [op:int][client:int][slot:int][0:int][length:long]} (+ value for a put); put
 * reply {@code [0:long]}; get reply {@code [length:long]} + value.
 */
final class LoopbackBaseline implements BenchTarget {

  private static final int PUT = 1;
  private static final int GET = 2;
  private static final int HEADER_BYTES = 24;

  private final List<SocketChannel> serverSides = new CopyOnWriteArrayList<>();
  private ServerSocketChannel server;
  private Thread acceptor;
  private SocketChannel[] connections;
  private ByteBuffer[] headers;
  private ByteBuffer[] replies;
  /** memory[client][slot]: the server's copy of each live key. */
  private ByteBuffer[][] memory;
  private int[][] stored;

  @Override
  public String name() {
    return "nio-baseline";
  }

  @Override
  public void open(int clients, int valueSize, int keysPerClient) {
    memory = new ByteBuffer[clients][keysPerClient];
    stored = new int[clients][keysPerClient];
    for (ByteBuffer[] slots : memory) {
      for (int i = 0; i < slots.length; i++) {
        slots[i] = ByteBuffer.allocateDirect(valueSize);
      }
    }
    try {
      server = ServerSocketChannel.open().bind(new InetSocketAddress("127.0.0.1", 0));
      acceptor = new Thread(this::acceptLoop, "baseline-acceptor");
      acceptor.setDaemon(true);
      acceptor.start();
      connections = new SocketChannel[clients];
      headers = new ByteBuffer[clients];
      replies = new ByteBuffer[clients];
      for (int c = 0; c < clients; c++) {
        connections[c] = SocketChannel.open(server.getLocalAddress());
        connections[c].setOption(StandardSocketOptions.TCP_NODELAY, true);
        headers[c] = ByteBuffer.allocateDirect(HEADER_BYTES);
        replies[c] = ByteBuffer.allocateDirect(8);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot open the loopback baseline server on 127.0.0.1", e);
    }
  }

  private void acceptLoop() {
    try {
      while (true) {
        SocketChannel channel = server.accept();
        channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
        serverSides.add(channel);
        Thread handler = new Thread(() -> serve(channel), "baseline-server");
        handler.setDaemon(true);
        handler.start();
      }
    } catch (ClosedChannelException closed) {
      // close() ends the benchmark
    } catch (IOException e) {
      throw new UncheckedIOException("loopback baseline accept failed", e);
    }
  }

  private void serve(SocketChannel channel) {
    ByteBuffer header = ByteBuffer.allocateDirect(HEADER_BYTES);
    ByteBuffer reply = ByteBuffer.allocateDirect(8);
    try {
      while (true) {
        header.clear();
        if (!readFully(channel, header)) {
          return;
        }
        int op = header.getInt(0);
        int client = header.getInt(4);
        int slot = header.getInt(8);
        ByteBuffer value = memory[client][slot].clear();
        if (op == PUT) {
          int length = (int) header.getLong(16);
          value.limit(length);
          readFully(channel, value);
          stored[client][slot] = length;
          reply.clear();
          reply.putLong(0, 0);
          writeFully(channel, reply);
        } else {
          reply.clear();
          reply.putLong(0, stored[client][slot]);
          value.limit(stored[client][slot]);
          writeFully(channel, reply, value);
        }
      }
    } catch (IOException e) {
      // the client side closed the connection at the end of the run
    }
  }

  @Override
  public void put(int client, int index, String key, ByteBuffer value) {
    try {
      ByteBuffer header = headers[client].clear();
      header.putInt(0, PUT).putInt(4, client).putInt(8, index).putInt(12, 0).putLong(16, value.remaining());
      writeFully(connections[client], header, value);
      ByteBuffer reply = replies[client].clear();
      readFully(connections[client], reply);
    } catch (IOException e) {
      throw new BenchmarkFailedException("loopback baseline put failed: " + e.getMessage(), e);
    }
  }

  @Override
  public int get(int client, int index, String key, ByteBuffer dst) {
    try {
      ByteBuffer header = headers[client].clear();
      header.putInt(0, GET).putInt(4, client).putInt(8, index).putInt(12, 0).putLong(16, 0);
      writeFully(connections[client], header);
      ByteBuffer reply = replies[client].clear();
      readFully(connections[client], reply);
      int length = (int) reply.getLong(0);
      int start = dst.position();
      dst.limit(start + length);
      readFully(connections[client], dst);
      return length;
    } catch (IOException e) {
      throw new BenchmarkFailedException("loopback baseline get failed: " + e.getMessage(), e);
    }
  }

  @Override
  public void remove(int client, String key) {
    // slots are reused by the next round: nothing to free
  }

  @Override
  public boolean storesValues() {
    return true;
  }

  private static boolean readFully(SocketChannel channel, ByteBuffer buffer) throws IOException {
    while (buffer.hasRemaining()) {
      if (channel.read(buffer) < 0) {
        return false;
      }
    }
    return true;
  }

  private static void writeFully(SocketChannel channel, ByteBuffer... buffers) throws IOException {
    long remaining = 0;
    for (ByteBuffer buffer : buffers) {
      remaining += buffer.remaining();
    }
    while (remaining > 0) {
      remaining -= channel.write(buffers);
    }
  }

  @Override
  public void close() {
    try {
      if (server != null) {
        server.close();
      }
      if (connections != null) {
        for (SocketChannel connection : connections) {
          if (connection != null) {
            connection.close();
          }
        }
      }
      for (SocketChannel channel : serverSides) {
        channel.close();
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot close the loopback baseline", e);
    }
  }
}
