package io.kvpool.protocol;

import java.io.Closeable;
import java.io.IOException;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Blocking frame I/O on one socket. Value payloads move between the socket and caller-supplied
 * (direct) buffers without passing through the Java heap.
 *
 * <p>Reads go through a small direct read-ahead buffer so that a header and its control body
 * usually arrive with one system call; payload bytes that came along are moved from it (native to
 * native) before the rest is read straight into the caller's buffer. Writes put header and small
 * body into one direct buffer and send it with the payload in one gathering write.
 */
public final class FrameChannel implements Closeable {
  /** Large enough for the header and body of every per-value request and reply. */
  private static final int STAGING_BYTES = 8 << 10;

  private final Wire wire;
  private final boolean localPeer;
  private int localSendBytes =
      SocketBuffers.LOCAL_PEER_SEND_BYTES; // asked for a peer on this machine
  private final ByteBuffer inbound =
      ByteBuffer.allocateDirect(STAGING_BYTES).limit(0); // unread: position..limit
  private final ByteBuffer outbound = ByteBuffer.allocateDirect(STAGING_BYTES);
  private final ByteBuffer[] single = {outbound};
  private final ByteBuffer[] headerAndBody = new ByteBuffer[2];
  private final ByteBuffer[] stagedAndPayload = new ByteBuffer[2];
  private final int protocolMajor;
  private final int protocolMinor;
  private int maxBody = ProtocolLimits.MAX_BODY_BYTES;
  private BodyBudget budget;

  /**
   * Budget bytes taken for the body of the frame being served. The reading thread adds to it; they
   * go back to the budget exactly once, whichever comes first: the next frame's read or {@link
   * #close()} (possibly from another thread; a reservation that completes after the close goes back
   * at once).
   */
  private final AtomicInteger held = new AtomicInteger();

  private volatile boolean closed;

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
  public FrameChannel(SocketChannel channel, int protocolMajor, int protocolMinor)
      throws IOException {
    this(channel, null, protocolMajor, protocolMinor);
  }

  /**
   * Frames on {@code channel}, inside TLS when {@code tls} is given (the TLS handshake runs here,
   * before any frame; {@code server} says which side of it this is).
   */
  public FrameChannel(
      SocketChannel channel, TlsContext tls, boolean server, int protocolMajor, int protocolMinor)
      throws IOException {
    this(channel, tls == null ? null : tls.engine(server), protocolMajor, protocolMinor);
  }

  private FrameChannel(
      SocketChannel channel, javax.net.ssl.SSLEngine tls, int protocolMajor, int protocolMinor)
      throws IOException {
    this.localPeer = configure(channel);
    this.wire = tls == null ? new PlainWire(channel) : new TlsWire(channel, tls);
    this.protocolMajor = protocolMajor;
    this.protocolMinor = protocolMinor;
  }

  /**
   * Blocking, no delay, buffers for where the peer is (before any TLS handshake); whether the peer
   * is local.
   */
  private static boolean configure(SocketChannel channel) throws IOException {
    channel.configureBlocking(true);
    channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
    return SocketBuffers.apply(channel);
  }

  /**
   * Sizes the send buffer to a peer on this machine for the reply about to be written: {@code
   * bytes}, one of the local sizes of {@link SocketBuffers}, which the server picks by how many
   * requests it is answering. A peer on another machine keeps its large buffer. A system call only
   * when the size changes.
   */
  public void fitSendBuffer(int bytes) throws IOException {
    if (!localPeer || bytes == localSendBytes) {
      return;
    }
    wire.socket().setOption(StandardSocketOptions.SO_SNDBUF, bytes);
    localSendBytes = bytes;
  }

  /**
   * The send buffer of this connection as the JDK reports it (the size asked; Linux keeps twice
   * that).
   */
  public int sendBufferBytes() throws IOException {
    return wire.socket().getOption(StandardSocketOptions.SO_SNDBUF);
  }

  public SocketChannel channel() {
    return wire.socket();
  }

  /**
   * Refuses frames whose body is larger than {@code bytes} (before the handshake a server allows
   * little).
   */
  public void limitBody(int bytes) {
    this.maxBody = bytes;
  }

  /**
   * Bodies larger than {@link BodyBudget#SMALL_BODY_BYTES} take room in {@code budget} as they
   * arrive; it is given back when the next frame is read or the channel is closed, so the owner of
   * a connection closes this channel (not only its socket) on every way the connection ends.
   */
  public void useBudget(BodyBudget budget) {
    releaseHeld();
    this.budget = budget;
  }

  /**
   * Blocks until the next frame starts (its first byte arrived): true, or false when the peer
   * closed the connection cleanly between frames. A server arms its idle deadline before this and
   * its frame deadline after it.
   */
  public boolean awaitFrame() throws IOException {
    releaseHeld();
    return fill(1);
  }

  /**
   * The next frame, or null when the peer closed the connection cleanly between frames. Nothing is
   * allocated by the declared body length: a large body grows with the bytes that actually arrive
   * (taking room in the budget as it grows), so a peer that declares 64 MiB and sends 1,000 bytes
   * costs 64 KiB at most.
   */
  public Frame read() throws IOException {
    releaseHeld();
    if (!fill(ProtocolLimits.HEADER_BYTES)) {
      if (!inbound.hasRemaining()) {
        return null;
      }
      throw new ProtocolException(
          "connection closed inside a frame header after " + inbound.remaining() + " bytes");
    }
    return readBody(FrameHeader.decode(inbound));
  }

  /**
   * Reads the next frame, which the caller expects to be the one reply outstanding on this
   * connection: a frame of {@code bodyBytes} of body followed by a payload of exactly {@code
   * dst.remaining()} bytes. On a plaintext connection with nothing buffered, the first read
   * scatters into the header's room and {@code dst} at once, so it takes all the bytes that have
   * arrived, and the payload is then read to its end into {@code dst} ({@code checksum}, if given,
   * updated over it); the caller checks the body and treats a payload of another length as a broken
   * stream. Any other frame (an error reply, another body size) is returned with {@code dst} not
   * filled: bytes that landed in it are taken back as the rest of that frame. Returns null when the
   * peer closed the connection before the frame.
   *
   * <p>Why: a reply read as a small read of its header and then the payload leaves most of the
   * bytes that had arrived queued after the first read. With the small send buffers of a peer on
   * this machine ({@link SocketBuffers}) that cost the sender about 40 % more CPU per 1 MiB reply
   * in a C request/response test on loopback, and 20–25 % of the throughput (data-plane/README.md,
   * "How a reply is read"). One connection alone goes the other way (2.4 against 3.1–3.3 GB/s in
   * the same C test); a server gives such a peer a larger send buffer ({@link #fitSendBuffer}).
   */
  public Frame readWithPayload(int bodyBytes, ByteBuffer dst, java.util.zip.Checksum checksum)
      throws IOException {
    releaseHeld();
    int head = ProtocolLimits.HEADER_BYTES + bodyBytes;
    if (inbound.hasRemaining() || !(wire instanceof PlainWire plain) || head > inbound.capacity()) {
      Frame frame = read();
      if (frame != null && expected(frame.header(), bodyBytes)) {
        readPayload(dst, checksum);
      }
      return frame;
    }
    int from = dst.position();
    ByteBuffer tail = dst.duplicate();
    ByteBuffer[] scatter = {inbound.clear().limit(head), tail};
    FrameHeader h = null;
    try {
      // until the header is here; for the expected reply until its body is too (its payload
      // follows, so those
      // bytes come); a frame of another shape may be shorter, so no more is waited for it here
      while (inbound.hasRemaining() && (h == null || expected(h, bodyBytes))) {
        if (plain.socket().read(scatter) < 0) {
          if (inbound.position() == 0) {
            return null;
          }
          throw new ProtocolException(
              "connection closed inside a frame after " + inbound.position() + " bytes");
        }
        if (h == null && inbound.position() >= ProtocolLimits.HEADER_BYTES) {
          h = FrameHeader.decode(inbound.duplicate().flip());
        }
      }
    } finally {
      inbound.flip();
    }
    inbound.position(ProtocolLimits.HEADER_BYTES);
    int landed = tail.position() - from;
    if (expected(h, bodyBytes)) {
      ByteBuffer body = ByteBuffer.allocate(bodyBytes);
      body.put(body.position(), inbound, inbound.position(), bodyBytes);
      inbound.position(inbound.limit());
      if (checksum != null) {
        checksum.update(dst.duplicate().limit(from + landed).position(from));
      }
      dst.position(from + landed);
      readPayload(dst, checksum);
      return new Frame(h, body);
    }
    // not the expected reply: what landed in dst follows the header's room in the stream; take it
    // back
    if (landed > inbound.capacity() - inbound.limit()) {
      throw new ProtocolException(
          "reply of another shape (opcode "
              + h.opcode()
              + ", body of "
              + h.bodyLength()
              + " bytes) came with "
              + landed
              + " more bytes than this connection can take back");
    }
    int end = inbound.limit();
    inbound.limit(end + landed);
    inbound.put(end, dst, from, landed);
    return readBody(h);
  }

  private static boolean expected(FrameHeader h, int bodyBytes) {
    return !h.isError() && h.bodyLength() == bodyBytes;
  }

  private Frame readBody(FrameHeader h) throws IOException {
    int length = h.bodyLength();
    if (length > maxBody) {
      throw new ProtocolException(
          "frame body of "
              + length
              + " bytes exceeds the "
              + maxBody
              + " bytes this"
              + " connection allows now");
    }
    ByteBuffer body;
    if (length <= STAGING_BYTES) {
      body = ByteBuffer.allocate(length);
      if (!fill(length)) {
        throw new ProtocolException(
            "connection closed inside a frame body after "
                + inbound.remaining()
                + " of "
                + length
                + " bytes");
      }
      body.put(body.position(), inbound, inbound.position(), length);
      inbound.position(inbound.position() + length);
    } else {
      body = readLargeBody(length);
    }
    return new Frame(h, body);
  }

  /** The most a large body's read asks of the socket at once (see {@link #readLargeBody}). */
  static final int HEAP_READ_WINDOW = 256 << 10;

  private ByteBuffer readLargeBody(int length) throws IOException {
    ByteBuffer body =
        ByteBuffer.allocate(reserve(length, Math.min(length, BodyBudget.SMALL_BODY_BYTES)));
    drainInto(body);
    while (body.position() < length) {
      if (!body.hasRemaining()) {
        int bigger = (int) Math.min(length, 2L * body.capacity());
        reserve(length, bigger - body.capacity());
        body = ByteBuffer.allocate(bigger).put(body.flip());
      }
      // at most a window at a time: the JDK reads a socket into a heap buffer through a temporary
      // direct buffer of
      // the read's size, which it caches per thread for good, so a 64 MiB body would leave 64 MiB
      // of native memory
      // behind on every server thread that ever read one
      int limit = body.limit();
      body.limit(Math.min(limit, body.position() + HEAP_READ_WINDOW));
      int read = wire.read(body);
      body.limit(limit);
      if (read < 0) {
        throw new ProtocolException(
            "connection closed inside a frame body after "
                + body.position()
                + " of "
                + length
                + " bytes");
      }
    }
    return body.flip();
  }

  /**
   * Takes {@code n} bytes of the budget for a body of {@code length} bytes, waiting while the
   * server has none.
   */
  private int reserve(int length, int n) throws IOException {
    if (budget == null || length <= BodyBudget.SMALL_BODY_BYTES) {
      return n;
    }
    try {
      while (!budget.tryTake(n, 100)) {
        if (closed || !wire.socket().isOpen()) {
          // not malformed: a deadline or the server's close ended the wait, and the caller counts
          // which
          throw new IOException(
              "connection closed while its " + length + "-byte body waited for memory");
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new java.io.InterruptedIOException("interrupted while waiting for body memory");
    }
    held.addAndGet(n);
    if (closed) {
      releaseHeld(); // close() may have run between the take and the add: nothing of it stays held
      throw new IOException("connection closed while its " + length + "-byte body was being read");
    }
    return n;
  }

  /**
   * Gives back what the body of the last frame held; at most once for each byte taken, whichever
   * thread calls.
   */
  private void releaseHeld() {
    if (held.get() > 0) {
      int n = held.getAndSet(0);
      if (n > 0) {
        budget.give(n);
      }
    }
  }

  /**
   * Makes at least {@code n} (at most the staging size) unread bytes available; false on end of
   * stream.
   */
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
        throw new ProtocolException(
            "connection closed inside a payload with " + dst.remaining() + " bytes missing");
      }
    }
  }

  /**
   * As {@link #readPayload(ByteBuffer)}, updating {@code checksum} with each run of bytes as it
   * arrives, so that the checksum of a value is computed while the rest of it is still on its way
   * (and over bytes still in the cache). A null {@code checksum} reads as {@link
   * #readPayload(ByteBuffer)} does.
   */
  public void readPayload(ByteBuffer dst, java.util.zip.Checksum checksum) throws IOException {
    if (checksum == null) {
      readPayload(dst);
      return;
    }
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
        throw new ProtocolException(
            "connection closed inside a payload with " + dst.remaining() + " bytes missing");
      }
    }
  }

  /**
   * Reads and discards {@code length} payload bytes so the stream stays in step after a refused
   * write.
   */
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
  public void write(int opcode, int flags, long requestId, ByteBuffer body, ByteBuffer... payload)
      throws IOException {
    outbound.clear();
    new FrameHeader(protocolMajor, protocolMinor, opcode, flags, requestId, body.remaining())
        .encode(outbound);
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
    ByteBuffer[] gather =
        staged && parts == 1
            ? stagedAndPayload
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

  /** Whether frames cross the socket as they are (no TLS): only then can a file feed it. */
  public boolean plaintext() {
    return wire instanceof PlainWire;
  }

  /**
   * Writes header, body and payload, where the payload's {@link FileRegion}s go straight from their
   * files to the socket ({@link FileChannel#transferTo}, which is {@code sendfile} on Linux: the
   * kernel hands the files' pages to the socket instead of copying the bytes in) and its {@link
   * PayloadPart.Bytes} are copied, gathered with the header where they follow it. Plaintext
   * connections only, as the bytes cannot be encrypted on the way. When this returns the payload is
   * queued in the kernel, which may still read the files' pages until the peer has received it.
   */
  public void writeFromFiles(
      int opcode, int flags, long requestId, ByteBuffer body, List<PayloadPart> payload)
      throws IOException {
    if (!(wire instanceof PlainWire plain)) {
      throw new IllegalStateException(
          "a TLS connection cannot send from files: every byte must be encrypted");
    }
    List<ByteBuffer> copied = new ArrayList<>(3);
    boolean first = true;
    for (PayloadPart part : payload) {
      if (part instanceof PayloadPart.Bytes b) {
        copied.add(b.buffer());
        continue;
      }
      writeCopied(opcode, flags, requestId, body, copied, first);
      first = false;
      copied.clear();
      transfer((FileRegion) part, plain.socket());
    }
    if (first || !copied.isEmpty()) {
      writeCopied(opcode, flags, requestId, body, copied, first);
    }
  }

  /** The frame's start (header and body) when {@code first}, with the copied parts that follow. */
  private void writeCopied(
      int opcode, int flags, long requestId, ByteBuffer body, List<ByteBuffer> parts, boolean first)
      throws IOException {
    ByteBuffer[] buffers = parts.toArray(new ByteBuffer[0]);
    if (first) {
      write(opcode, flags, requestId, body, buffers);
      return;
    }
    long left = 0;
    for (ByteBuffer b : buffers) {
      left += b.remaining();
    }
    while (left > 0) {
      left -= wire.write(buffers);
    }
  }

  private static void transfer(FileRegion r, SocketChannel socket) throws IOException {
    long sent = 0;
    while (sent < r.length()) {
      long n = r.file().transferTo(r.position() + sent, r.length() - sent, socket);
      if (n <= 0) {
        if (!socket.isOpen()) {
          throw new ClosedChannelException();
        }
        if (r.position() + sent >= r.file().size()) {
          throw new IOException(
              "file region ["
                  + r.position()
                  + ", +"
                  + r.length()
                  + ") lies past the end of its file of "
                  + r.file().size()
                  + " bytes");
        }
      }
      sent += Math.max(n, 0);
    }
  }

  /**
   * Closes the connection and gives back any budget bytes it holds; idempotent, callable from any
   * thread.
   */
  @Override
  public void close() throws IOException {
    closed = true;
    try {
      wire.socket().close();
    } finally {
      releaseHeld();
    }
  }
}
