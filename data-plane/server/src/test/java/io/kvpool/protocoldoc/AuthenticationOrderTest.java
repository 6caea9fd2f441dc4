package io.kvpool.protocoldoc;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvpool.common.HostPort;
import io.kvpool.common.VersionInfo;
import io.kvpool.master.Master;
import io.kvpool.master.MasterConfig;
import io.kvpool.master.MasterSettings;
import io.kvpool.protocol.AuthRequest;
import io.kvpool.protocol.BodyReader;
import io.kvpool.protocol.BodyWriter;
import io.kvpool.protocol.ErrorCode;
import io.kvpool.protocol.ErrorReply;
import io.kvpool.protocol.Frame;
import io.kvpool.protocol.FrameHeader;
import io.kvpool.protocol.Handshake;
import io.kvpool.protocol.HandshakeReply;
import io.kvpool.protocol.HandshakeRequest;
import io.kvpool.protocol.Opcode;
import io.kvpool.protocol.PoolKey;
import io.kvpool.protocol.ProtocolLimits;
import io.kvpool.protocol.Role;
import io.kvpool.security.PoolSecrets;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.Socket;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * PROTOCOL.md, "Authentication", "Request ids and order", against a real master over a socket:
 * AUTH's request id is echoed, a frame in AUTH's place closes the connection unanswered, requests
 * pipelined behind AUTH are served, and AUTH where none was asked for is an unknown opcode.
 */
class AuthenticationOrderTest {
  private static final String CLIENT_KEY = "authentication-order-test-client-key-0123456789";
  private static final int READ_TIMEOUT_MILLIS = 10_000;

  @TempDir Path secrets;
  private Master secured;
  private Master open;

  @BeforeEach
  void start() throws Exception {
    Files.writeString(secrets.resolve("client-key"), CLIENT_KEY + "\n");
    Files.writeString(
        secrets.resolve("cluster-key"), "authentication-order-test-cluster-key-0123456789");
    MasterSettings local = MasterSettings.local(MasterConfig.defaults("doc"), "127.0.0.1", 0, 0);
    secured =
        new Master(
                new MasterSettings(
                    local.config(),
                    "127.0.0.1",
                    0,
                    0,
                    "127.0.0.1",
                    PoolSecrets.fromDirectory(secrets.toString()),
                    Optional.empty()))
            .start();
    open = new Master(local).start();
  }

  @AfterEach
  void stop() {
    secured.close();
    open.close();
  }

  /** One hand-driven connection: frames with the request ids a test chooses. */
  private static final class Raw implements AutoCloseable {
    private final Socket socket;
    private final DataInputStream in;

    Raw(HostPort endpoint) throws IOException {
      socket = new Socket(endpoint.host(), endpoint.port());
      socket.setSoTimeout(READ_TIMEOUT_MILLIS);
      in = new DataInputStream(socket.getInputStream());
    }

    void send(Opcode opcode, long requestId, byte[] body) throws IOException {
      ByteBuffer frame = ByteBuffer.allocate(ProtocolLimits.HEADER_BYTES + body.length);
      new FrameHeader(
              VersionInfo.CURRENT.protocolMajor(),
              VersionInfo.CURRENT.protocolMinor(),
              opcode.code(),
              0,
              requestId,
              body.length)
          .encode(frame);
      frame.put(body);
      socket.getOutputStream().write(frame.array());
    }

    /** The next frame, or empty once the server closed the connection (within the read timeout). */
    Optional<Frame> read() throws IOException {
      byte[] header = new byte[ProtocolLimits.HEADER_BYTES];
      try {
        in.readFully(header);
      } catch (EOFException | SocketException closed) {
        return Optional.empty();
      }
      FrameHeader decoded = FrameHeader.decode(ByteBuffer.wrap(header));
      byte[] body = new byte[decoded.bodyLength()];
      in.readFully(body);
      return Optional.of(new Frame(decoded, ByteBuffer.wrap(body)));
    }

    Frame reply() throws IOException {
      return read()
          .orElseThrow(
              () -> new AssertionError("the server closed the connection instead of answering"));
    }

    @Override
    public void close() throws IOException {
      socket.close();
    }
  }

  private static byte[] handshakeBody(PoolKey key) {
    BodyWriter w = new BodyWriter();
    new HandshakeRequest(
            new Handshake(VersionInfo.CURRENT, Role.CLIENT, "", "auth-order"),
            0,
            key == null ? new byte[0] : key.id(),
            new byte[HandshakeRequest.NONCE_BYTES])
        .encode(w);
    ByteBuffer b = w.toBuffer();
    byte[] out = new byte[b.remaining()];
    b.get(out);
    return out;
  }

  /** Sends the HANDSHAKE and returns the server's nonce, checking that it asks for AUTH. */
  private static byte[] handshake(Raw raw, PoolKey key, byte[] body) throws IOException {
    raw.send(Opcode.HANDSHAKE, 0, body);
    Frame reply = raw.reply();
    assertThat(reply.header().isError()).as("handshake refused").isFalse();
    BodyReader r = reply.reader();
    HandshakeReply hello = HandshakeReply.decodeRest(Handshake.decodePrefix(r), r);
    assertThat(hello.auth()).isEqualTo(key != null);
    return hello.nonce();
  }

  private static byte[] authBody(PoolKey key, byte[] handshakeBody, byte[] serverNonce) {
    BodyWriter w = new BodyWriter();
    new AuthRequest(key.clientProof(handshakeBody, serverNonce)).encode(w);
    ByteBuffer b = w.toBuffer();
    byte[] out = new byte[b.remaining()];
    b.get(out);
    return out;
  }

  @Test
  void authIsAnsweredWithItsRequestIdAndRequestsPipelinedBehindItAreServed() throws Exception {
    PoolKey key = PoolKey.parse(CLIENT_KEY);
    for (long requestId : new long[] {0, 42}) { // clients send 0; the server echoes whatever it got
      try (Raw raw = new Raw(secured.rpcEndpoint())) {
        byte[] body = handshakeBody(key);
        byte[] nonce = handshake(raw, key, body);
        raw.send(Opcode.AUTH, requestId, authBody(key, body, nonce));
        raw.send(Opcode.PING, 7, new byte[0]); // pipelined behind AUTH
        Frame auth = raw.reply();
        assertThat(auth.header().isError()).isFalse();
        assertThat(auth.header().requestId()).isEqualTo(requestId);
        assertThat(auth.opcode()).isEqualTo(Opcode.AUTH);
        assertThat(auth.body().remaining()).as("AUTH's reply body").isZero();
        Frame ping = raw.reply();
        assertThat(ping.opcode()).isEqualTo(Opcode.PING);
        assertThat(ping.header().requestId()).isEqualTo(7);
      }
    }
  }

  @Test
  void aFrameInAuthsPlaceClosesTheConnectionUnanswered() throws Exception {
    PoolKey key = PoolKey.parse(CLIENT_KEY);
    try (Raw raw = new Raw(secured.rpcEndpoint())) {
      handshake(raw, key, handshakeBody(key));
      raw.send(Opcode.PING, 1, new byte[0]);
      assertThat(raw.read()).as("what the server sent for a PING in AUTH's place").isEmpty();
    }
  }

  @Test
  void requestsPipelinedBehindARefusedAuthGetNoReply() throws Exception {
    PoolKey key = PoolKey.parse(CLIENT_KEY);
    try (Raw raw = new Raw(secured.rpcEndpoint())) {
      byte[] body = handshakeBody(key);
      byte[] nonce = handshake(raw, key, body);
      byte[] wrong = authBody(key, body, nonce);
      wrong[wrong.length - 1] ^= 1;
      raw.send(Opcode.AUTH, 0, wrong);
      raw.send(Opcode.PING, 1, new byte[0]);
      Frame refused = raw.reply();
      assertThat(refused.header().isError()).isTrue();
      assertThat(ErrorReply.decode(refused.reader()).code()).isEqualTo(ErrorCode.AUTH_FAILED);
      assertThat(raw.read()).as("a reply to the PING behind the refused AUTH").isEmpty();
    }
  }

  @Test
  void authWhereNoneWasAskedForIsAnUnknownOpcodeAndTheConnectionStaysOpen() throws Exception {
    PoolKey key = PoolKey.parse(CLIENT_KEY);
    try (Raw raw = new Raw(open.rpcEndpoint())) {
      byte[] body = handshakeBody(null);
      handshake(raw, null, body);
      raw.send(Opcode.AUTH, 0, authBody(key, body, new byte[HandshakeRequest.NONCE_BYTES]));
      Frame refused = raw.reply();
      assertThat(refused.header().isError()).isTrue();
      assertThat(ErrorReply.decode(refused.reader()).code()).isEqualTo(ErrorCode.UNKNOWN_OPCODE);
      raw.send(Opcode.PING, 2, new byte[0]);
      assertThat(raw.reply().header().isError()).isFalse();
    }
    try (Raw raw = new Raw(secured.rpcEndpoint())) { // a second AUTH on an authenticated connection
      byte[] body = handshakeBody(key);
      byte[] nonce = handshake(raw, key, body);
      raw.send(Opcode.AUTH, 0, authBody(key, body, nonce));
      assertThat(raw.reply().header().isError()).isFalse();
      raw.send(Opcode.AUTH, 1, authBody(key, body, nonce));
      Frame second = raw.reply();
      assertThat(second.header().isError()).isTrue();
      assertThat(ErrorReply.decode(second.reader()).code()).isEqualTo(ErrorCode.UNKNOWN_OPCODE);
      raw.send(Opcode.PING, 2, new byte[0]);
      assertThat(raw.reply().header().isError()).isFalse();
    }
  }
}
