package io.kvpool.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Frames sent back to back over a real loopback socket come out byte-exact, whether a body fits the read-ahead
 * buffer or not and whether payload bytes arrived with the header or later.
 */
class FrameChannelTest {
  private ServerSocketChannel server;
  private SocketChannel sendSide;
  private SocketChannel receiveSide;

  @BeforeEach
  void connect() throws IOException {
    server = ServerSocketChannel.open().bind(new InetSocketAddress("127.0.0.1", 0));
    sendSide = SocketChannel.open(server.getLocalAddress());
    receiveSide = server.accept();
  }

  @AfterEach
  void close() throws IOException {
    sendSide.close();
    receiveSide.close();
    server.close();
  }

  private static ByteBuffer bytes(int size, long seed, boolean direct) {
    byte[] b = new byte[size];
    new Random(seed).nextBytes(b);
    ByteBuffer out = direct ? ByteBuffer.allocateDirect(size) : ByteBuffer.allocate(size);
    return out.put(b).flip();
  }

  @Test
  void bodiesAndPayloadsOfEverySizeRoundTrip() throws Exception {
    int[] bodySizes = {0, 1, 100, 8 << 10, (8 << 10) + 1, 100_000};
    int[] payloadSizes = {0, 3, 5000, 1 << 20, 0, 70_000};
    FrameChannel out = new FrameChannel(sendSide, 1, 0);
    FrameChannel in = new FrameChannel(receiveSide, 1, 0);
    Thread writer = new Thread(() -> {
      try {
        for (int i = 0; i < bodySizes.length; i++) {
          out.write(Opcode.WRITE.code(), 0, i, bytes(bodySizes[i], i, false), bytes(payloadSizes[i], 100 + i, true));
        }
      } catch (IOException e) {
        throw new IllegalStateException(e);
      }
    });
    writer.start();
    for (int i = 0; i < bodySizes.length; i++) {
      Frame f = in.read();
      assertThat(f.header().requestId()).isEqualTo(i);
      assertThat(f.body()).isEqualTo(bytes(bodySizes[i], i, false));
      ByteBuffer payload = ByteBuffer.allocateDirect(payloadSizes[i]);
      in.readPayload(payload);
      assertThat(payload.flip()).isEqualTo(bytes(payloadSizes[i], 100 + i, true));
    }
    writer.join();
    sendSide.close();
    assertThat(in.read()).isNull(); // clean end of stream between frames
  }

  @Test
  void skippedPayloadKeepsTheStreamInStep() throws Exception {
    FrameChannel out = new FrameChannel(sendSide, 1, 0);
    FrameChannel in = new FrameChannel(receiveSide, 1, 0);
    out.write(Opcode.WRITE.code(), 0, 1, bytes(10, 1, false), bytes(200_000, 2, true));
    out.write(Opcode.READ.code(), 0, 2, bytes(20, 3, false));
    assertThat(in.read().header().requestId()).isEqualTo(1);
    in.skipPayload(200_000);
    Frame second = in.read();
    assertThat(second.header().requestId()).isEqualTo(2);
    assertThat(second.body()).isEqualTo(bytes(20, 3, false));
  }

  @Test
  void streamCutInsideAHeaderIsMalformed() throws Exception {
    sendSide.write(ByteBuffer.wrap(new byte[] {0x4B, 0x56, 0x50}));
    sendSide.close();
    assertThatThrownBy(() -> new FrameChannel(receiveSide, 1, 0).read()).isInstanceOf(ProtocolException.class)
        .hasMessageContaining("inside a frame header after 3 bytes");
  }
}
