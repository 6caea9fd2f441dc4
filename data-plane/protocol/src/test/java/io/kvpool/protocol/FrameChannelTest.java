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
 * Frames sent back to back over a real loopback socket come out byte-exact, whether a body fits the
 * read-ahead buffer or not and whether payload bytes arrived with the header or later.
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
    Thread writer =
        new Thread(
            () -> {
              try {
                for (int i = 0; i < bodySizes.length; i++) {
                  out.write(
                      Opcode.WRITE.code(),
                      0,
                      i,
                      bytes(bodySizes[i], i, false),
                      bytes(payloadSizes[i], 100 + i, true));
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
  void closingTheChannelFromAnotherThreadGivesBackWhatItsBodyHoldsExactlyOnce() throws Exception {
    BodyBudget budget = new BodyBudget(4 << 20);
    FrameChannel in = new FrameChannel(receiveSide, 1, 0);
    in.useBudget(budget);
    ByteBuffer header = ByteBuffer.allocate(ProtocolLimits.HEADER_BYTES);
    new FrameHeader(1, 0, Opcode.PING.code(), 0, 1, 2 << 20).encode(header);
    sendSide.write(header.flip());
    ByteBuffer part =
        ByteBuffer.allocate(
            600 << 10); // of 2 MiB: the reader grows its buffer to 1 MiB, then waits
    while (part.hasRemaining()) {
      sendSide.write(part);
    }
    java.util.concurrent.CompletableFuture<Frame> reader =
        java.util.concurrent.CompletableFuture.supplyAsync(
            () -> {
              try {
                return in.read();
              } catch (IOException e) {
                throw new java.util.concurrent.CompletionException(e);
              }
            });
    long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(30);
    while (budget.available() > (3 << 20)) {
      assertThat(System.nanoTime())
          .as("the reader took 1 MiB; left %d", budget.available())
          .isLessThan(deadline);
      Thread.sleep(10);
    }
    in.close();
    assertThatThrownBy(() -> reader.get(30, java.util.concurrent.TimeUnit.SECONDS))
        .hasCauseInstanceOf(IOException.class);
    in.close();
    assertThat(budget.available()).isEqualTo(4 << 20);
  }

  @Test
  void streamCutInsideAHeaderIsMalformed() throws Exception {
    sendSide.write(ByteBuffer.wrap(new byte[] {0x4B, 0x56, 0x50}));
    sendSide.close();
    assertThatThrownBy(() -> new FrameChannel(receiveSide, 1, 0).read())
        .isInstanceOf(ProtocolException.class)
        .hasMessageContaining("inside a frame header after 3 bytes");
  }

  @Test
  void aReplyReadWithItsPayloadLandsWholeAndChecksummedEvenWhenItArrivesInPieces()
      throws Exception {
    FrameChannel out = new FrameChannel(sendSide, 1, 0);
    FrameChannel in = new FrameChannel(receiveSide, 1, 0);
    ByteBuffer value = bytes(3 << 20, 7, true);
    Thread writer =
        new Thread(
            () -> {
              try {
                out.write(
                    Opcode.READ.code(),
                    FrameHeader.FLAG_RESPONSE,
                    5,
                    bytes(4, 8, false),
                    value.duplicate());
              } catch (IOException e) {
                throw new IllegalStateException(e);
              }
            });
    writer.start();
    ByteBuffer dst = ByteBuffer.allocateDirect(value.remaining() + 10).position(10);
    java.util.zip.CRC32C crc = new java.util.zip.CRC32C();

    Frame reply = in.readWithPayload(4, dst, crc);

    writer.join();
    assertThat(reply.header().requestId()).isEqualTo(5);
    assertThat(reply.body()).isEqualTo(bytes(4, 8, false));
    assertThat(dst.hasRemaining()).isFalse();
    assertThat(dst.flip().position(10)).isEqualTo(value);
    java.util.zip.CRC32C expected = new java.util.zip.CRC32C();
    expected.update(value.duplicate());
    assertThat(crc.getValue()).isEqualTo(expected.getValue());
  }

  @Test
  void aReplyOfAnotherShapeIsReturnedWholeAndTheStreamStaysInStep() throws Exception {
    FrameChannel out = new FrameChannel(sendSide, 1, 0);
    FrameChannel in = new FrameChannel(receiveSide, 1, 0);
    // an error reply whose body is longer than the expected one (part of it lands in the payload's
    // buffer), then
    // the next frame
    out.write(
        Opcode.READ.code(),
        FrameHeader.FLAG_RESPONSE | FrameHeader.FLAG_ERROR,
        1,
        bytes(300, 1, false));
    out.write(Opcode.PING.code(), FrameHeader.FLAG_RESPONSE, 2, bytes(20, 2, false));
    ByteBuffer dst = ByteBuffer.allocateDirect(1 << 20);

    Frame error = in.readWithPayload(4, dst, new java.util.zip.CRC32C());

    assertThat(error.header().isError()).isTrue();
    assertThat(error.body()).isEqualTo(bytes(300, 1, false));
    assertThat(dst.position()).isZero(); // nothing counted as payload
    Frame next = in.read();
    assertThat(next.header().requestId()).isEqualTo(2);
    assertThat(next.body()).isEqualTo(bytes(20, 2, false));
  }

  @Test
  void aReplyWithNothingAfterItsHeaderRoomIsReadInFull() throws Exception {
    FrameChannel out = new FrameChannel(sendSide, 1, 0);
    FrameChannel in = new FrameChannel(receiveSide, 1, 0);
    // a shorter body than expected: the header's room takes bytes of the next frame, which stay in
    // step
    out.write(Opcode.READ.code(), FrameHeader.FLAG_RESPONSE, 1, bytes(0, 1, false));
    out.write(Opcode.PING.code(), FrameHeader.FLAG_RESPONSE, 2, bytes(3, 2, false));
    ByteBuffer dst = ByteBuffer.allocateDirect(64);

    Frame empty = in.readWithPayload(4, dst, null);

    assertThat(empty.header().requestId()).isEqualTo(1);
    assertThat(empty.body().remaining()).isZero();
    assertThat(dst.position()).isZero();
    assertThat(in.read().body()).isEqualTo(bytes(3, 2, false));
  }

  @Test
  void aConnectionClosedBeforeTheReplyIsTheEndOfTheStream() throws Exception {
    FrameChannel in = new FrameChannel(receiveSide, 1, 0);
    sendSide.close();
    assertThat(in.readWithPayload(4, ByteBuffer.allocateDirect(16), null)).isNull();
  }
}
