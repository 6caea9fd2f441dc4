package io.kvpool.storage;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvpool.common.HostPort;
import io.kvpool.common.VersionInfo;
import io.kvpool.protocol.BodyWriter;
import io.kvpool.protocol.FrameHeader;
import io.kvpool.protocol.Handshake;
import io.kvpool.protocol.HandshakeRequest;
import io.kvpool.protocol.Opcode;
import io.kvpool.protocol.ProtocolLimits;
import io.kvpool.protocol.Role;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.time.Duration;

/**
 * A client written from PROTOCOL.md that reads as slowly as it likes: a tiny receive buffer, so a
 * large reply stays mostly on the node while the reader does not read. It sends a request, reads
 * the head of the reply's payload and stalls; once the test made the node reuse the range the reply
 * reads, it {@linkplain #resume resumes} and checks that whatever still arrives is the bytes of the
 * object it asked for, and that the node stopped the reply (issue 28).
 */
final class StalledReader implements AutoCloseable {
  private static final Duration T = Duration.ofSeconds(30);

  private final Socket socket = new Socket();
  private final OutputStream out;
  private final DataInputStream in;
  private long requestId = 1;
  private ByteBuffer lastBody;

  StalledReader(HostPort node) throws IOException {
    socket.setReceiveBufferSize(4096);
    socket.connect(node.toSocketAddress(), (int) T.toMillis());
    socket.setSoTimeout((int) T.toMillis());
    out = socket.getOutputStream();
    in = new DataInputStream(socket.getInputStream());
    BodyWriter hs = new BodyWriter();
    new HandshakeRequest(
            new Handshake(VersionInfo.CURRENT, Role.CLIENT, "", "stalled-reader"),
            0,
            new byte[0],
            new byte[HandshakeRequest.NONCE_BYTES])
        .encode(hs);
    FrameHeader h = send(Opcode.HANDSHAKE, hs);
    assertThat(h.isError()).isFalse();
  }

  /** Sends a request and returns its reply's body; the payload is left unread. */
  ByteBuffer request(Opcode opcode, BodyWriter body) throws IOException {
    FrameHeader h = send(opcode, body);
    assertThat(h.isError()).as("an error reply").isFalse();
    return lastBody;
  }

  /** Reads the payload's first {@code n} bytes, which must be {@code expected}'s first. */
  void readHead(ByteBuffer expected, int n) throws IOException {
    byte[] head = new byte[n];
    in.readFully(head);
    assertThat(ByteBuffer.wrap(head)).isEqualTo(expected.duplicate().limit(n));
  }

  /**
   * Reads on after the stall, from byte {@code from} of a payload that should be {@code expected}:
   * whatever the node still sends, until the payload's end, the connection's end or a reset. Every
   * byte received must be {@code expected}'s, and the reply must have been stopped before its end
   * ({@code what} happened during the stall, for the message). Returns the bytes received.
   */
  int resume(ByteBuffer expected, int from, String what) {
    byte[] rest = new byte[expected.remaining() - from];
    int got = 0;
    try {
      while (got < rest.length) {
        int k = in.read(rest, got, rest.length - got);
        if (k < 0) {
          break;
        }
        got += k;
      }
    } catch (IOException reset) {
      // the node stopped the reply with a reset
    }
    int firstWrong = -1;
    for (int i = 0; i < got && firstWrong < 0; i++) {
      if (rest[i] != expected.get(expected.position() + from + i)) {
        firstWrong = i;
      }
    }
    assertThat(firstWrong)
        .as("the first of %d bytes read after %s that is not the object read (-1: none)", got, what)
        .isEqualTo(-1);
    assertThat(got).as("the reply was stopped before its end").isLessThan(rest.length);
    return got;
  }

  private FrameHeader send(Opcode opcode, BodyWriter body) throws IOException {
    ByteBuffer b = body.toBuffer();
    ByteBuffer frame = ByteBuffer.allocate(ProtocolLimits.HEADER_BYTES + b.remaining());
    new FrameHeader(
            VersionInfo.PROTOCOL_MAJOR,
            VersionInfo.PROTOCOL_MINOR,
            opcode.code(),
            0,
            requestId++,
            b.remaining())
        .encode(frame);
    out.write(frame.put(b).array());
    out.flush();
    byte[] header = new byte[ProtocolLimits.HEADER_BYTES];
    in.readFully(header);
    FrameHeader h = FrameHeader.decode(ByteBuffer.wrap(header));
    byte[] replyBody = new byte[h.bodyLength()];
    in.readFully(replyBody);
    lastBody = ByteBuffer.wrap(replyBody);
    return h;
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
