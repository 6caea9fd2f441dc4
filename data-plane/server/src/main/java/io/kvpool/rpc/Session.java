package io.kvpool.rpc;

import io.kvpool.common.VersionInfo;
import io.kvpool.protocol.BodyWriter;
import io.kvpool.protocol.ErrorCode;
import io.kvpool.protocol.ErrorReply;
import io.kvpool.protocol.Frame;
import io.kvpool.protocol.FrameChannel;
import io.kvpool.protocol.FrameHeader;
import io.kvpool.protocol.Handshake;
import io.kvpool.protocol.PayloadPart;
import io.kvpool.protocol.SocketBuffers;
import java.io.IOException;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.List;
import java.util.zip.Checksum;

/** Server side of one accepted connection after a successful handshake. */
public final class Session {
  private static final ByteBuffer EMPTY = ByteBuffer.allocate(0);

  /** Replies from this size on have their send buffer fitted to the server's load. */
  static final int LARGE_REPLY_BYTES = 256 << 10;

  private final FrameChannel channel;
  private final Handshake peer;
  private final long peerView;
  private final String remoteAddress;
  private final ConnectionDeadline deadline;
  private final ServerLimits limits;
  private final ServingLoad load;
  private ErrorCode
      requestError; // of the request being served: the code it was refused with, or null
  private int run; // requests of this session in a row on the server, the one being served included

  Session(
      FrameChannel channel,
      Handshake peer,
      long peerView,
      String remoteAddress,
      ConnectionDeadline deadline,
      ServerLimits limits,
      ServingLoad load) {
    this.load = load;
    this.channel = channel;
    this.peer = peer;
    this.peerView = peerView;
    this.remoteAddress = remoteAddress;
    this.deadline = deadline;
    this.limits = limits;
  }

  /** The leadership view the peer announced (a master's; 0 from other roles). */
  public long peerView() {
    return peerView;
  }

  /**
   * Whether the connection is still open (a node id is bound to the connection that registered it).
   */
  public boolean isOpen() {
    return channel.channel().isOpen();
  }

  public Handshake peer() {
    return peer;
  }

  /** The protocol minor both sides speak on this connection (the older of the two). */
  public int agreedMinor() {
    return Math.min(peer.version().protocolMinor(), VersionInfo.PROTOCOL_MINOR);
  }

  /** The connection's send buffer as the kernel has it now. */
  int sendBufferBytes() throws IOException {
    return channel.sendBufferBytes();
  }

  public String remoteAddress() {
    return remoteAddress;
  }

  /**
   * Reads a request's payload into {@code dst} within the payload deadline (a base plus an
   * allowance per MiB): a peer that stalls mid-payload is disconnected and the caller discards what
   * arrived.
   */
  public void readPayload(ByteBuffer dst) throws IOException {
    deadline.arm("payload_timeout", limits.payloadNanos(dst.remaining()));
    channel.readPayload(dst);
    deadline.disarm();
  }

  /**
   * As {@link #readPayload(ByteBuffer)}, updating {@code checksum} with each run of bytes as it
   * lands.
   */
  public void readPayload(ByteBuffer dst, Checksum checksum) throws IOException {
    deadline.arm("payload_timeout", limits.payloadNanos(dst.remaining()));
    channel.readPayload(dst, checksum);
    deadline.disarm();
  }

  /** Reads and drops a refused request's payload, within the payload deadline. */
  public void skipPayload(long length) throws IOException {
    deadline.arm("payload_timeout", limits.payloadNanos(length));
    channel.skipPayload(length);
    deadline.disarm();
  }

  public void reply(Frame request, BodyWriter body) throws IOException {
    reply(request, body, (ByteBuffer[]) null);
  }

  /**
   * Writes the reply; a peer that does not read it within the frame deadline plus the payload's
   * allowance (counted up to {@link ServerLimits#MAX_REPLY_ALLOWANCE_BYTES}) is dropped.
   */
  public void reply(Frame request, BodyWriter body, ByteBuffer... payload) throws IOException {
    long bytes = 0;
    if (payload != null) {
      for (ByteBuffer b : payload) {
        bytes += b.remaining();
      }
    }
    if (payload != null && bytes >= LARGE_REPLY_BYTES) {
      channel.fitSendBuffer(load.localSendBytes(run, payload.length == 1));
    }
    deadline.arm("write_timeout", limits.replyNanos(bytes));
    channel.write(
        request.header().opcode(),
        FrameHeader.FLAG_RESPONSE,
        request.header().requestId(),
        body == null ? EMPTY.duplicate() : body.toBuffer(),
        payload);
    deadline.disarm();
  }

  /**
   * Whether a reply's payload can go from files straight to this connection's socket: not inside
   * TLS, which must encrypt every byte.
   */
  public boolean canSendFromFiles() {
    return channel.plaintext();
  }

  /**
   * As {@link #reply(Frame, BodyWriter, ByteBuffer...)}, with the payload's file regions sent by
   * the kernel from the files' pages ({@link FrameChannel#writeFromFiles}) under the same deadline,
   * for a reply of {@code values} values; only where {@link #canSendFromFiles()}.
   */
  public void replyFromFiles(Frame request, BodyWriter body, List<PayloadPart> payload, int values)
      throws IOException {
    long bytes = 0;
    for (PayloadPart p : payload) {
      bytes += p.length();
    }
    if (bytes >= LARGE_REPLY_BYTES) {
      channel.fitSendBuffer(SocketBuffers.LOCAL_PEER_FILE_SEND_BYTES);
    }
    deadline.arm("write_timeout", limits.replyNanos(bytes));
    channel.writeFromFiles(
        request.header().opcode(),
        FrameHeader.FLAG_RESPONSE,
        request.header().requestId(),
        body.toBuffer(),
        payload);
    deadline.disarm();
  }

  /**
   * Stops the connection from any thread, without blocking: the reply being written fails at once
   * and no further byte of it is sent (the serving thread's blocked send returns with an error and
   * the server closes the connection, with a reset that drops what its send buffer still held). For
   * a reply whose bytes are no longer its object's.
   */
  public void abort() {
    SocketChannel socket = channel.channel();
    try {
      socket.setOption(StandardSocketOptions.SO_LINGER, 0);
      socket.shutdownOutput();
    } catch (IOException | RuntimeException e) {
      // closed already (or never connected): nothing more can be sent on it
    }
  }

  /**
   * Stops the connection in both directions from any thread, without blocking: as {@link #abort},
   * and a payload being received stops too (its blocked read ends; what the kernel already holds of
   * it is read at once, nothing that arrives later). For a write whose range may be reused soon.
   */
  public void cut() {
    abort();
    try {
      channel.channel().shutdownInput();
    } catch (IOException | RuntimeException e) {
      // closed already: nothing more is received
    }
  }

  /** A request starts: no error so far. */
  void beginRequest() {
    requestError = null;
    run = load.begin(this, run);
  }

  /** The request that {@link #beginRequest} started has been answered (or failed). */
  void endRequest() {
    load.end();
  }

  /** The connection is closed. */
  void ended() {
    load.forget(this);
  }

  /** The error code the current request was answered with, or null. */
  ErrorCode requestError() {
    return requestError;
  }

  public void replyError(Frame request, ErrorCode code, String message) throws IOException {
    requestError = code;
    BodyWriter w = new BodyWriter();
    new ErrorReply(code, message).encode(w);
    deadline.arm("write_timeout", limits.frameTimeout().toNanos());
    channel.write(
        request.header().opcode(),
        FrameHeader.FLAG_RESPONSE | FrameHeader.FLAG_ERROR,
        request.header().requestId(),
        w.toBuffer());
    deadline.disarm();
  }
}
