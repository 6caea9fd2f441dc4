package io.kvpool.protocol;

import io.kvpool.common.HostPort;
import java.io.Closeable;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.time.Duration;

/**
 * Client side of one connection: handshake on open, then strictly one request at a time. A shared
 * {@link DeadlineWatchdog} closes a connection whose exchange overruns its deadline.
 */
public final class RpcConnection implements Closeable {
  private static final ByteBuffer EMPTY = ByteBuffer.allocate(0);

  private final HostPort endpoint;
  private final FrameChannel channel;
  private static final java.security.SecureRandom NONCES = new java.security.SecureRandom();

  /**
   * The longest wait for a TCP connection, whatever the exchange's timeout: an address nobody
   * answers (a deleted pod's IP, a stale DNS answer) must cost a node or client looking for the
   * leader seconds, not its whole timeout, before it tries the next endpoint. A live peer accepts
   * within milliseconds; this still allows one lost SYN.
   */
  static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(3);

  private final HandshakeReply peer;
  private final DeadlineWatchdog.Watched watchdog;
  private final Deadline disarm; // one instance for every exchange
  private final int channelMinor; // the protocol minor this side announced
  private long nextRequestId = 1;
  private boolean broken;

  private RpcConnection(
      HostPort endpoint,
      FrameChannel channel,
      HandshakeReply peer,
      DeadlineWatchdog.Watched watchdog,
      int localMinor) {
    this.endpoint = endpoint;
    this.channelMinor = localMinor;
    this.channel = channel;
    this.peer = peer;
    this.watchdog = watchdog;
    this.disarm = watchdog::disarm;
  }

  /**
   * Connects and handshakes; a refused handshake throws {@link HandshakeException} naming both
   * sides' versions.
   */
  public static RpcConnection open(HostPort endpoint, Handshake local, Duration timeout)
      throws IOException {
    return open(endpoint, local, 0, timeout);
  }

  /**
   * As {@link #open(HostPort, Handshake, Duration)}, announcing a master's leadership {@code view}.
   */
  public static RpcConnection open(HostPort endpoint, Handshake local, long view, Duration timeout)
      throws IOException {
    return open(endpoint, local, view, ConnectionSecurity.NONE, timeout);
  }

  /**
   * Connects (inside TLS when {@code security} has it), handshakes and, with a key, authenticates
   * (PROTOCOL.md, "Authentication"): the server must prove it holds the key before this side proves
   * it does. A process given a key refuses a server that does not authenticate (it could be an
   * impostor collecting values); one without a key is refused by a server that does.
   */
  public static RpcConnection open(
      HostPort endpoint, Handshake local, long view, ConnectionSecurity security, Duration timeout)
      throws IOException {
    PoolKey key = security.key();
    SocketChannel ch = SocketChannel.open();
    DeadlineWatchdog.Watched watchdog = DeadlineWatchdog.watch(ch);
    Duration connectTimeout = timeout.compareTo(CONNECT_TIMEOUT) < 0 ? timeout : CONNECT_TIMEOUT;
    watchdog.arm(connectTimeout.toNanos());
    try {
      try {
        ch.connect(endpoint.toSocketAddress());
      } catch (java.nio.channels.UnresolvedAddressException e) {
        // a pod's DNS name while the pod is away: a failure to connect like any other, so callers
        // try the next
        throw new java.net.UnknownHostException("cannot resolve " + endpoint.host());
      } catch (IOException e) {
        if (watchdog.expired()) {
          throw new SocketTimeoutException(
              "no connection to " + endpoint + " within " + connectTimeout.toMillis() + " ms");
        }
        throw e;
      }
      watchdog.arm(timeout.toNanos());
      FrameChannel fc =
          new FrameChannel(
              ch,
              security.tls(),
              false,
              local.version().protocolMajor(),
              local.version().protocolMinor());
      BodyWriter w = new BodyWriter();
      byte[] nonce = new byte[HandshakeRequest.NONCE_BYTES];
      NONCES.nextBytes(nonce);
      new HandshakeRequest(local, view, key == null ? new byte[0] : key.id(), nonce).encode(w);
      ByteBuffer request = w.toBuffer();
      byte[] requestBody = new byte[request.remaining()];
      request.duplicate().get(requestBody);
      fc.write(Opcode.HANDSHAKE.code(), 0, 0, request);
      Frame reply = fc.read();
      if (reply == null) {
        throw new ProtocolException(
            "peer " + endpoint + " closed the connection during the handshake");
      }
      if (reply.header().isError()) {
        ErrorReply e = ErrorReply.decode(reply.reader());
        throw new HandshakeException(e.code(), "refused by " + endpoint + ": " + e.message());
      }
      BodyReader r = reply.reader();
      Handshake peer = Handshake.decodePrefix(r);
      HandshakeException refusal = HandshakeRules.check(local, peer);
      if (refusal != null) {
        throw new HandshakeException(
            refusal.code(), "refusing " + endpoint + ": " + refusal.getMessage());
      }
      HandshakeReply full = HandshakeReply.decodeRest(peer, r);
      authenticate(endpoint, fc, full, key, requestBody);
      watchdog.disarm();
      return new RpcConnection(endpoint, fc, full, watchdog, local.version().protocolMinor());
    } catch (IOException | RuntimeException e) {
      DeadlineWatchdog.unwatch(watchdog);
      closeQuietly(ch);
      if (watchdog.expired()
          && !(e instanceof HandshakeException)
          && !(e instanceof SocketTimeoutException)) {
        throw new SocketTimeoutException(
            "no handshake from " + endpoint + " within " + timeout.toMillis() + " ms");
      }
      throw e;
    }
  }

  private static void authenticate(
      HostPort endpoint, FrameChannel fc, HandshakeReply reply, PoolKey key, byte[] requestBody)
      throws IOException {
    if (!reply.auth()) {
      if (key != null) {
        throw new HandshakeException(
            ErrorCode.AUTH_FAILED,
            endpoint
                + " does not authenticate peers but this"
                + " process was given the pool's key: refusing a server that cannot prove it belongs to the pool");
      }
      return;
    }
    if (key == null) {
      throw new HandshakeException(
          ErrorCode.AUTH_REQUIRED,
          endpoint
              + " authenticates peers and this process has"
              + " no pool key: give it the pool's secret");
    }
    if (!PoolKey.same(key.serverProof(requestBody, reply.nonce()), reply.proof())) {
      throw new HandshakeException(
          ErrorCode.AUTH_FAILED,
          endpoint + " could not prove it holds the pool's key:" + " refusing it");
    }
    BodyWriter w = new BodyWriter();
    new AuthRequest(key.clientProof(requestBody, reply.nonce())).encode(w);
    fc.write(Opcode.AUTH.code(), 0, 0, w.toBuffer());
    Frame answer = fc.read();
    if (answer == null) {
      throw new ProtocolException(
          "peer " + endpoint + " closed the connection during authentication");
    }
    if (answer.header().isError()) {
      ErrorReply e = ErrorReply.decode(answer.reader());
      throw new HandshakeException(e.code(), "refused by " + endpoint + ": " + e.message());
    }
    answer.reader().finish();
  }

  public HostPort endpoint() {
    return endpoint;
  }

  public Handshake peer() {
    return peer.prefix();
  }

  /** The whole handshake reply: the server's view, state and the leader it knows. */
  public HandshakeReply peerReply() {
    return peer;
  }

  /** False once an exchange failed mid-way; such a connection must not be reused. */
  public boolean isUsable() {
    return !broken && channel.channel().isOpen();
  }

  /**
   * Arms the deadline for one exchange (request, reply and payload); close the returned handle when
   * done.
   */
  public Deadline deadline(Duration timeout) {
    watchdog.arm(timeout.toNanos());
    return disarm;
  }

  /** Cancels a watchdog armed by {@link #deadline}. */
  public interface Deadline extends AutoCloseable {
    @Override
    void close();
  }

  /**
   * Sends a request (with an optional payload) and returns the reply frame; any payload of the
   * reply is still on the socket for {@link #readPayload}. An error reply throws {@link
   * RemoteErrorException}.
   */
  public Frame call(Opcode opcode, BodyWriter body, ByteBuffer... payload) throws IOException {
    return receive(opcode, send(opcode, body, payload));
  }

  /**
   * Sends a request without waiting for its reply and returns its request id. Replies come in the
   * order the requests were sent; read each with {@link #receive} (the peer serves one connection's
   * requests in order).
   */
  public long send(Opcode opcode, BodyWriter body, ByteBuffer... payload) throws IOException {
    long id = nextRequestId++;
    try {
      channel.write(
          opcode.code(), 0, id, body == null ? EMPTY.duplicate() : body.toBuffer(), payload);
      return id;
    } catch (IOException e) {
      broken = true;
      throw watchdog.expired() ? timeout(opcode, e) : e;
    }
  }

  /**
   * The reply to request {@code id} sent with {@link #send}; an error reply throws {@link
   * RemoteErrorException}.
   */
  public Frame receive(Opcode opcode, long id) throws IOException {
    return checked(opcode, id, () -> channel.read());
  }

  /**
   * As {@link #receive}, for the one request outstanding on this connection, whose reply has {@code
   * bodyBytes} of body and a payload of {@code dst.remaining()} bytes: the payload is read into
   * {@code dst} as the reply arrives ({@link FrameChannel#readWithPayload}), {@code checksum} (if
   * given) updated over it. The caller checks the body; a payload of another length leaves the
   * stream out of step (mark the connection broken).
   */
  public Frame receiveWithPayload(
      Opcode opcode, long id, int bodyBytes, ByteBuffer dst, java.util.zip.Checksum checksum)
      throws IOException {
    return checked(opcode, id, () -> channel.readWithPayload(bodyBytes, dst, checksum));
  }

  private interface FrameRead {
    Frame read() throws IOException;
  }

  private Frame checked(Opcode opcode, long id, FrameRead read) throws IOException {
    try {
      Frame reply = read.read();
      if (reply == null) {
        throw new ProtocolException(
            "peer " + endpoint + " closed the connection before replying to " + opcode);
      }
      if (!reply.header().isResponse()
          || reply.header().requestId() != id
          || reply.header().opcode() != opcode.code()) {
        throw new ProtocolException(
            "reply from " + endpoint + " does not match request " + opcode + " #" + id);
      }
      if (reply.header().isError()) {
        ErrorReply e = ErrorReply.decode(reply.reader());
        throw new RemoteErrorException(e.code(), e.message());
      }
      return reply;
    } catch (RemoteErrorException e) {
      throw e;
    } catch (IOException e) {
      broken = true;
      throw watchdog.expired() ? timeout(opcode, e) : e;
    }
  }

  public void readPayload(ByteBuffer dst) throws IOException {
    try {
      channel.readPayload(dst);
    } catch (IOException e) {
      broken = true;
      throw watchdog.expired() ? timeout(null, e) : e;
    }
  }

  /**
   * As {@link #readPayload(ByteBuffer)}, updating {@code checksum} with the bytes as they arrive.
   */
  public void readPayload(ByteBuffer dst, java.util.zip.Checksum checksum) throws IOException {
    try {
      channel.readPayload(dst, checksum);
    } catch (IOException e) {
      broken = true;
      throw watchdog.expired() ? timeout(null, e) : e;
    }
  }

  /** The protocol minor both sides speak on this connection (the older of the two). */
  public int agreedMinor() {
    return Math.min(peer.prefix().version().protocolMinor(), channelMinor);
  }

  /**
   * Marks the stream out of step (e.g. a payload was not consumed); the connection will be closed,
   * not reused.
   */
  public void markBroken() {
    broken = true;
  }

  private SocketTimeoutException timeout(Opcode opcode, IOException cause) {
    SocketTimeoutException t =
        new SocketTimeoutException(
            "no complete reply from "
                + endpoint
                + (opcode == null ? "" : " to " + opcode)
                + " before the deadline");
    t.initCause(cause);
    return t;
  }

  private static void closeQuietly(SocketChannel ch) {
    try {
      ch.close();
    } catch (IOException ignored) {
      // nothing useful to do when closing an already failed socket fails
    }
  }

  @Override
  public void close() {
    DeadlineWatchdog.unwatch(watchdog);
    closeQuietly(channel.channel());
  }
}
