package io.kvpool.it;

import io.kvpool.common.HostPort;
import io.kvpool.common.VersionInfo;
import io.kvpool.protocol.BodyWriter;
import io.kvpool.protocol.Frame;
import io.kvpool.protocol.FrameHeader;
import io.kvpool.protocol.Handshake;
import io.kvpool.protocol.HandshakeRequest;
import io.kvpool.protocol.Opcode;
import io.kvpool.protocol.ProtocolException;
import io.kvpool.protocol.ProtocolLimits;
import io.kvpool.protocol.Role;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.util.Optional;

/**
 * A hand-driven connection that speaks PROTOCOL.md frame by frame, so tests can send what no real
 * client would: other protocol versions, garbage, truncated or oversized frames.
 */
final class RawConnection implements AutoCloseable {

  private final Socket socket;
  private final OutputStream out;
  private final DataInputStream in;
  private long nextRequestId = 1;

  RawConnection(HostPort endpoint, int readTimeoutMillis) throws IOException {
    socket = new Socket(endpoint.host(), endpoint.port());
    socket.setSoTimeout(readTimeoutMillis);
    socket.setTcpNoDelay(true);
    out = socket.getOutputStream();
    in = new DataInputStream(socket.getInputStream());
  }

  void sendBytes(byte[] bytes) throws IOException {
    out.write(bytes);
    out.flush();
  }

  /** One request frame with the given header versions and body. */
  void sendFrame(int major, int minor, int opcode, ByteBuffer body) throws IOException {
    sendBytes(frame(major, minor, opcode, nextRequestId++, body).array());
  }

  void sendRequest(Opcode opcode, BodyWriter body) throws IOException {
    sendFrame(
        VersionInfo.CURRENT.protocolMajor(),
        VersionInfo.CURRENT.protocolMinor(),
        opcode.code(),
        body.toBuffer());
  }

  /** Sends a handshake claiming {@code version} and returns the peer's answer. */
  Frame handshake(VersionInfo version, String poolId) throws IOException, ProtocolException {
    sendFrame(
        version.protocolMajor(),
        version.protocolMinor(),
        Opcode.HANDSHAKE.code(),
        handshakeBody(version, poolId, "it-raw-client"));
    return readFrame()
        .orElseThrow(
            () -> new EOFException("peer closed the connection without answering the handshake"));
  }

  /**
   * A whole HANDSHAKE frame (request id 0) of client {@code clientId}, of this release and no pool
   * in particular, without a proof (a pool without keys accepts it), for tests that write it
   * themselves.
   */
  static ByteBuffer clientHandshakeFrame(String clientId) {
    return frame(
        VersionInfo.PROTOCOL_MAJOR,
        VersionInfo.PROTOCOL_MINOR,
        Opcode.HANDSHAKE.code(),
        0,
        handshakeBody(VersionInfo.CURRENT, "", clientId));
  }

  private static ByteBuffer handshakeBody(VersionInfo version, String poolId, String clientId) {
    BodyWriter body = new BodyWriter();
    new HandshakeRequest(
            new Handshake(version, Role.CLIENT, poolId, clientId),
            0,
            new byte[0],
            new byte[HandshakeRequest.NONCE_BYTES])
        .encode(body);
    return body.toBuffer();
  }

  private static ByteBuffer frame(
      int major, int minor, int opcode, long requestId, ByteBuffer body) {
    ByteBuffer frame = ByteBuffer.allocate(ProtocolLimits.HEADER_BYTES + body.remaining());
    new FrameHeader(major, minor, opcode, 0, requestId, body.remaining()).encode(frame);
    return frame.put(body.duplicate()).flip();
  }

  /** The next frame, or empty when the peer closed the connection. */
  Optional<Frame> readFrame() throws IOException, ProtocolException {
    byte[] header = new byte[ProtocolLimits.HEADER_BYTES];
    try {
      in.readFully(header);
    } catch (EOFException closed) {
      return Optional.empty();
    }
    FrameHeader decoded = FrameHeader.decode(ByteBuffer.wrap(header));
    byte[] body = new byte[decoded.bodyLength()];
    in.readFully(body);
    return Optional.of(new Frame(decoded, ByteBuffer.wrap(body)));
  }

  /** True when the peer closed the connection (EOF or reset) within the read timeout. */
  boolean peerClosed() throws IOException {
    try {
      byte[] sink = new byte[64 * 1024];
      while (true) {
        if (in.read(sink) < 0) {
          return true;
        }
      }
    } catch (SocketTimeoutException stillOpen) {
      return false;
    } catch (IOException reset) {
      return true;
    }
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
