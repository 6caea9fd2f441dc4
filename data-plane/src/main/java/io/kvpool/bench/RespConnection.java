package io.kvpool.bench;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;

/**
 * Just enough of the Redis protocol (RESP2) for SET, GET, DEL and PING over one blocking NIO channel.
 * Values go straight between the caller's direct buffers and the socket.
 */
final class RespConnection implements AutoCloseable {

  private static final byte[] CRLF = {'\r', '\n'};

  private final SocketChannel channel;
  private final ByteBuffer command = ByteBuffer.allocateDirect(8192);
  private final ByteBuffer trailer = ByteBuffer.allocateDirect(2);
  /** Bytes received but not consumed yet, in read mode. */
  private final ByteBuffer inbox = ByteBuffer.allocateDirect(256).flip();

  RespConnection(InetSocketAddress address) throws IOException {
    channel = SocketChannel.open(address);
    channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
  }

  void set(String key, ByteBuffer value) throws IOException {
    command.clear();
    ascii("*3\r\n$3\r\nSET\r\n");
    bulkHeader(key.length());
    ascii(key);
    ascii("\r\n");
    bulkHeader(value.remaining());
    command.flip();
    trailer.clear().put(CRLF).flip();
    writeFully(command, value, trailer);
    expectSimple(readLine(), "+OK");
  }

  /** Reads the value of {@code key} into {@code dst}; returns its length, or -1 when the key is absent. */
  int get(String key, ByteBuffer dst) throws IOException {
    sendCommand("GET", key);
    String header = readLine();
    if (!header.startsWith("$")) {
      throw new IOException("redis GET " + key + " answered '" + header + "'");
    }
    int length = Integer.parseInt(header.substring(1));
    if (length < 0) {
      return -1;
    }
    int end = dst.position() + length;
    dst.limit(end);
    while (inbox.hasRemaining() && dst.hasRemaining()) {
      dst.put(inbox.get());
    }
    while (dst.hasRemaining()) {
      if (channel.read(dst) < 0) {
        throw new IOException("redis closed the connection in the middle of a value");
      }
    }
    readLine();
    return length;
  }

  void del(String key) throws IOException {
    sendCommand("DEL", key);
    readLine();
  }

  void ping() throws IOException {
    command.clear();
    ascii("*1\r\n$4\r\nPING\r\n");
    command.flip();
    writeFully(command);
    expectSimple(readLine(), "+PONG");
  }

  private void sendCommand(String name, String key) throws IOException {
    command.clear();
    ascii("*2\r\n");
    bulkHeader(name.length());
    ascii(name);
    ascii("\r\n");
    bulkHeader(key.length());
    ascii(key);
    ascii("\r\n");
    command.flip();
    writeFully(command);
  }

  private void bulkHeader(int length) {
    ascii("$" + length + "\r\n");
  }

  private void ascii(String text) {
    command.put(text.getBytes(StandardCharsets.US_ASCII));
  }

  private static void expectSimple(String line, String expected) throws IOException {
    if (!line.equals(expected)) {
      throw new IOException("redis answered '" + line + "', expected '" + expected + "'");
    }
  }

  /** One reply line without its CRLF; reads more from the socket as needed. */
  private String readLine() throws IOException {
    StringBuilder line = new StringBuilder();
    while (true) {
      while (inbox.hasRemaining()) {
        char c = (char) inbox.get();
        if (c == '\n') {
          int last = line.length() - 1;
          return last >= 0 && line.charAt(last) == '\r' ? line.substring(0, last) : line.toString();
        }
        line.append(c);
      }
      inbox.clear();
      if (channel.read(inbox) < 0) {
        throw new IOException("redis closed the connection");
      }
      inbox.flip();
    }
  }

  private void writeFully(ByteBuffer... buffers) throws IOException {
    long remaining = 0;
    for (ByteBuffer buffer : buffers) {
      remaining += buffer.remaining();
    }
    while (remaining > 0) {
      remaining -= channel.write(buffers);
    }
  }

  @Override
  public void close() throws IOException {
    channel.close();
  }
}
