package io.kvpool.bench.compare;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;

/**
 * A blocking connection to a store with a line-based protocol (Redis RESP2, memcached's text
 * protocol): commands are built in a direct buffer and sent with the values in one gathering write;
 * replies are read through a small read-ahead buffer, values straight into the caller's buffers.
 */
final class TextConnection implements AutoCloseable {
  private static final int COMMAND_BYTES = 1 << 20;

  private final SocketChannel channel;
  private final ByteBuffer command = ByteBuffer.allocateDirect(COMMAND_BYTES);

  /** Bytes received but not consumed yet, in read mode. */
  private final ByteBuffer inbox = ByteBuffer.allocateDirect(16 << 10).flip();

  private final StringBuilder line = new StringBuilder(64);

  TextConnection(InetSocketAddress address) throws IOException {
    channel = SocketChannel.open(address);
    channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
  }

  /** Starts a new command. */
  TextConnection begin() {
    command.clear();
    return this;
  }

  TextConnection ascii(String text) {
    for (int i = 0; i < text.length(); i++) {
      command.put((byte) text.charAt(i));
    }
    return this;
  }

  TextConnection utf8(String text) {
    command.put(text.getBytes(StandardCharsets.UTF_8));
    return this;
  }

  TextConnection number(long n) {
    return ascii(Long.toString(n));
  }

  int commandBytes() {
    return command.position();
  }

  /** Sends the command built so far. */
  void send() throws IOException {
    command.flip();
    writeFully(command);
  }

  /** Sends the command built so far followed by {@code value} and CRLF. */
  void sendWithValue(ByteBuffer value) throws IOException {
    int mark = command.position();
    command.put((byte) '\r').put((byte) '\n');
    command.flip();
    ByteBuffer head = command.duplicate().limit(mark);
    ByteBuffer crlf = command.duplicate().position(mark);
    writeFully(head, value.duplicate(), crlf);
  }

  /**
   * Sends several (command, value) pairs in one gathering write: commands in the buffer, values
   * between.
   */
  void sendAll(ByteBuffer[] parts) throws IOException {
    writeFully(parts);
  }

  /** A view of [from, to) of the command buffer, for {@link #sendAll}. */
  ByteBuffer commandRange(int from, int to) {
    return command.duplicate().limit(to).position(from);
  }

  /** One reply line without its CRLF. */
  String readLine() throws IOException {
    line.setLength(0);
    while (true) {
      while (inbox.hasRemaining()) {
        char c = (char) (inbox.get() & 0xff);
        if (c == '\n') {
          int last = line.length() - 1;
          return last >= 0 && line.charAt(last) == '\r' ? line.substring(0, last) : line.toString();
        }
        line.append(c);
      }
      refill();
    }
  }

  /** Reads exactly {@code n} bytes into {@code dst} from its position. */
  void readInto(ByteBuffer dst, int n) throws IOException {
    int end = dst.position() + n;
    dst.limit(end);
    if (inbox.hasRemaining()) {
      int k = Math.min(inbox.remaining(), n);
      dst.put(dst.position(), inbox, inbox.position(), k);
      dst.position(dst.position() + k);
      inbox.position(inbox.position() + k);
    }
    while (dst.hasRemaining()) {
      if (channel.read(dst) < 0) {
        throw new IOException("the server closed the connection in the middle of a value");
      }
    }
  }

  /** Skips the CRLF after a value. */
  void skipCrlf() throws IOException {
    for (int i = 0; i < 2; i++) {
      if (!inbox.hasRemaining()) {
        refill();
      }
      inbox.get();
    }
  }

  private void refill() throws IOException {
    inbox.clear();
    if (channel.read(inbox) < 0) {
      throw new IOException("the server closed the connection");
    }
    inbox.flip();
  }

  private void writeFully(ByteBuffer... buffers) throws IOException {
    long remaining = 0;
    for (ByteBuffer b : buffers) {
      remaining += b.remaining();
    }
    while (remaining > 0) {
      remaining -= channel.write(buffers);
    }
  }

  @Override
  public void close() {
    try {
      channel.close();
    } catch (IOException ignored) {
      // closing at the end of the run
    }
  }
}
