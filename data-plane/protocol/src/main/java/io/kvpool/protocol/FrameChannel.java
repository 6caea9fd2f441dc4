package io.kvpool.protocol;

import java.io.Closeable;
import java.io.IOException;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;

/**
 * Blocking frame I/O on one socket. Value payloads move between the socket and caller-supplied (direct) buffers
 * without passing through the Java heap.
 *
 * <p>Reads go through a small direct read-ahead buffer so that a header and its control body usually arrive with
 * one system call; payload bytes that came along are moved from it (native to native) before the rest is read
 * straight into the caller's buffer. Writes put header and small body into one direct buffer and send it with the
 * payload in one gathering write.
 */
public final class FrameChannel implements Closeable {
  /** Large enough for the header and body of every per-value request and reply. */
  private static final int STAGING_BYTES = 8 << 10;

  private final Wire wire;
  private final ByteBuffer inbound = ByteBuffer.allocateDirect(STAGING_BYTES).limit(0); // unread: position..limit
  private final ByteBuffer outbound = ByteBuffer.allocateDirect(STAGING_BYTES);
  private final ByteBuffer[] single = {outbound};
  private final ByteBuffer[] headerAndBody = new ByteBuffer[2];
  private final ByteBuffer[] stagedAndPayload = new ByteBuffer[2];
  private final int protocolMajor;
  private final int protocolMinor;
  private int maxBody = ProtocolLimits.MAX_BODY_BYTES;
  private BodyBudget budget;
  private int held; // budget bytes taken for the body of the frame being served

  /** How frames' bytes cross the connection: the socket itself, or TLS over it. */
  interface Wire {
    SocketChannel socket();

    int read(ByteBuffer dst) throws IOException;

    long write(ByteBuffer[] srcs) throws IOException;
  }

  /** The plaintext fast path: reads and writes go straight to the socket. */
  private record PlainWire(SocketChannel socket) implements Wire {
    @Override
    public int read(ByteBuffer dst) throws IOException {
      return socket.read(dst);
    }

    @Override
    public long write(ByteBuffer[] srcs) throws IOException {
      return socket.write(srcs);
    }
  }

  /** Plaintext frames on {@code channel}. */
  public FrameChannel(SocketChannel channel, int protocolMajor, int protocolMinor) throws IOException {
    this(configure(channel), null, protocolMajor, protocolMinor);
  }

  /**
   * Frames on {@code channel}, inside TLS when {@code tls} is given (the TLS handshake runs here, before any frame;
   * {@code server} says which side of it this is).
   */
  public FrameChannel(SocketChannel channel, TlsContext tls, boolean server, int protocolMajor, int protocolMinor)
      throws IOException {
    this(configure(channel), tls == null ? null : tls.engine(server), protocolMajor, protocolMinor);
  }

  private FrameChannel(SocketChannel channel, javax.net.ssl.SSLEngine tls, int protocolMajor, int protocolMinor)
      throws IOException {
    this.wire = tls == null ? new PlainWire(channel) : new TlsWire(channel, tls);
    this.protocolMajor = protocolMajor;
    this.protocolMinor = protocolMinor;
  }

  private static SocketChannel configure(SocketChannel channel) throws IOException {
    channel.configureBlocking(true);
    channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
    SocketBuffers.apply(channel);
    return channel;
  }

  public SocketChannel channel() {
    return wire.socket();
  }

  /** Refuses frames whose body is larger than {@code bytes} (before the handshake a server allows little). */
  public void limitBody(int bytes) {
    this.maxBody = bytes;
  }

  /** Bodies larger than {@link BodyBudget#SMALL_BODY_BYTES} take room in {@code budget} as they arrive. */
  public void useBudget(BodyBudget budget) {
    this.budget = budget;
  }

  /**
   * Blocks until the next frame starts (its first byte arrived): true, or false when the peer closed the connection
   * cleanly between frames. A server arms its idle deadline before this and its frame deadline after it.
   */
  public boolean awaitFrame() throws IOException {
    releaseHeld();
    return fill(1);
  }

  /**
   * The next frame, or null when the peer closed the connection cleanly between frames. Nothing is allocated by the
   * declared body length: a large body grows with the bytes that actually arrive (taking room in the budget as it
   * grows), so a peer that declares 64 MiB and sends 1,000 bytes costs 64 KiB at most.
   */
  public Frame read() throws IOException {
    releaseHeld();
    if (!fill(ProtocolLimits.HEADER_BYTES)) {
      if (!inbound.hasRemaining()) {
        return null;
      }
      throw new ProtocolException("connection closed inside a frame header after " + inbound.remaining() + " bytes");
    }
    FrameHeader h = FrameHeader.decode(inbound);
    int length = h.bodyLength();
    if (length > maxBody) {
      throw new ProtocolException("frame body of " + length + " bytes exceeds the " + maxBody + " bytes this"
          + " connection allows now");
    }
    ByteBuffer body;
    if (length <= STAGING_BYTES) {
      body = ByteBuffer.allocate(length);
      if (!fill(length)) {
        throw new ProtocolException("connection closed inside a frame body after " + inbound.remaining() + " of "
            + length + " bytes");
      }
      body.put(body.position(), inbound, inbound.position(), length);
      inbound.position(inbound.position() + length);
    } else {
      body = readLargeBody(length);
    }
    return new Frame(h, body);
  }

  private ByteBuffer readLargeBody(int length) throws IOException {
    ByteBuffer body = ByteBuffer.allocate(reserve(length, Math.min(length, BodyBudget.SMALL_BODY_BYTES)));
    drainInto(body);
    while (body.position() < length) {
      if (!body.hasRemaining()) {
        int bigger = (int) Math.min(length, 2L * body.capacity());
        reserve(length, bigger - body.capacity());
        body = ByteBuffer.allocate(bigger).put(body.flip());
      }
      if (wire.read(body) < 0) {
        throw new ProtocolException("connection closed inside a frame body after " + body.position() + " of "
            + length + " bytes");
      }
    }
    return body.flip();
  }

  /** Takes {@code n} bytes of the budget for a body of {@code length} bytes, waiting while the server has none. */
  private int reserve(int length, int n) throws IOException {
    if (budget == null || length <= BodyBudget.SMALL_BODY_BYTES) {
      return n;
    }
    try {
      while (!budget.tryTake(n, 100)) {
        if (!wire.socket().isOpen()) {
          throw new ProtocolException("connection closed while its " + length + "-byte body waited for memory");
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new java.io.InterruptedIOException("interrupted while waiting for body memory");
    }
    held += n;
    return n;
  }

  private void releaseHeld() {
    if (held > 0) {
      budget.give(held);
      held = 0;
    }
  }

  /** Makes at least {@code n} (at most the staging size) unread bytes available; false on end of stream. */
  private boolean fill(int n) throws IOException {
    if (inbound.remaining() >= n) {
      return true;
    }
    inbound.compact();
    try {
      while (inbound.position() < n) {
        if (wire.read(inbound) < 0) {
          return false;
        }
      }
    } finally {
      inbound.flip();
    }
    return true;
  }

  /** Moves already received bytes (up to dst's remaining room) into dst. */
  private void drainInto(ByteBuffer dst) {
    int n = Math.min(inbound.remaining(), dst.remaining());
    if (n > 0) {
      dst.put(dst.position(), inbound, inbound.position(), n);
      dst.position(dst.position() + n);
      inbound.position(inbound.position() + n);
    }
  }

  /** Fills {@code dst} from position to limit with payload bytes. */
  public void readPayload(ByteBuffer dst) throws IOException {
    drainInto(dst);
    while (dst.hasRemaining()) {
      if (wire.read(dst) < 0) {
        throw new ProtocolException("connection closed inside a payload with " + dst.remaining() + " bytes missing");
      }
    }
  }

  /**
   * As {@link #readPayload(ByteBuffer)}, updating {@code checksum} with each run of bytes as it arrives, so that the
   * checksum of a value is computed while the rest of it is still on its way (and over bytes still in the cache).
   */
  public void readPayload(ByteBuffer dst, java.util.zip.Checksum checksum) throws IOException {
    int from = dst.position();
    drainInto(dst);
    while (true) {
      int to = dst.position();
      if (to > from) {
        checksum.update(dst.duplicate().limit(to).position(from));
        from = to;
      }
      if (!dst.hasRemaining()) {
        return;
      }
      if (wire.read(dst) < 0) {
        throw new ProtocolException("connection closed inside a payload with " + dst.remaining() + " bytes missing");
      }
    }
  }

  /** Reads and discards {@code length} payload bytes so the stream stays in step after a refused write. */
  public void skipPayload(long length) throws IOException {
    ByteBuffer scratch = ByteBuffer.allocateDirect((int) Math.min(length, 64 << 10));
    long left = length;
    while (left > 0) {
      scratch.clear();
      scratch.limit((int) Math.min(left, scratch.capacity()));
      readPayload(scratch);
      left -= scratch.limit();
    }
  }

  /** Writes header, body and payload buffers (each position..limit) as one gathering write. */
  public void write(int opcode, int flags, long requestId, ByteBuffer body, ByteBuffer... payload) throws IOException {
    outbound.clear();
    new FrameHeader(protocolMajor, protocolMinor, opcode, flags, requestId, body.remaining()).encode(outbound);
    int parts = payload == null ? 0 : payload.length;
    boolean staged = body.remaining() <= outbound.remaining();
    int first = staged ? 1 : 2;
    if (staged) {
      outbound.put(body.duplicate());
    }
    outbound.flip();
    if (staged && parts == 0) {
      while (outbound.hasRemaining()) {
        wire.write(single);
      }
      return;
    }
    ByteBuffer[] gather = staged && parts == 1 ? stagedAndPayload
        : !staged && parts == 0 ? headerAndBody : new ByteBuffer[first + parts];
    gather[0] = outbound;
    long left = outbound.remaining();
    if (!staged) {
      gather[1] = body;
      left += body.remaining();
    }
    for (int i = 0; i < parts; i++) {
      gather[first + i] = payload[i];
      left += payload[i].remaining();
    }
    while (left > 0) {
      left -= wire.write(gather);
    }
    if (gather == headerAndBody || gather == stagedAndPayload) {
      gather[1] = null; // do not keep the caller's buffer reachable
    }
  }

  @Override
  public void close() throws IOException {
    releaseHeld();
    wire.socket().close();
  }
}
