package io.kvpool.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Reads of large payloads that wait for the whole payload before they read (SO_RCVLOWAT), over a
 * real loopback socket: intact whether the payload comes at once or in pieces, ended by a close
 * from another thread (as a deadline closes a connection) or by the peer, and leaving the socket as
 * it was for the next frame.
 */
class ReceiveLowWaterTest {
  private static final Duration GENEROUS = Duration.ofSeconds(60);

  private ServerSocketChannel server;
  private SocketChannel sendSide;
  private SocketChannel receiveSide;
  private FrameChannel in;

  @BeforeEach
  void connect() throws IOException {
    server = ServerSocketChannel.open().bind(new InetSocketAddress("127.0.0.1", 0));
    sendSide = SocketChannel.open(server.getLocalAddress());
    receiveSide = server.accept();
    in = new FrameChannel(receiveSide, 1, 0);
  }

  @AfterEach
  void close() throws IOException {
    sendSide.close();
    in.close();
    server.close();
  }

  private static ByteBuffer bytes(int size, long seed) {
    byte[] b = new byte[size];
    new Random(seed).nextBytes(b);
    return ByteBuffer.allocateDirect(size).put(b).flip();
  }

  private static void writeFully(SocketChannel channel, ByteBuffer src) throws IOException {
    while (src.hasRemaining()) {
      channel.write(src);
    }
  }

  @Test
  void theTestJvmWaitsForWholePayloads() {
    // the build runs tests with --add-opens java.base/sun.nio.ch: without it every other test here
    // would pass by reading as before, proving nothing
    assertThat(ReceiveLowWater.available()).isTrue();
    assertThat(in.readPayloadsWhole()).isTrue();
  }

  @Test
  void aPayloadSentInPiecesArrivesIntactWithItsChecksum() throws Exception {
    assertThat(in.readPayloadsWhole()).isTrue();
    int size = 3 << 20;
    ByteBuffer value = bytes(size, 7);
    CountDownLatch firstPieceSent = new CountDownLatch(1);
    Thread writer =
        new Thread(
            () -> {
              try {
                ByteBuffer v = value.duplicate();
                int[] pieces = {1, 100_000, 65_536, 1 << 20, 300_000};
                for (int piece : pieces) {
                  writeFully(sendSide, v.slice(v.position(), piece));
                  v.position(v.position() + piece);
                  firstPieceSent.countDown();
                  Thread.sleep(20); // pieces apart in time, so the reader waits between them
                }
                writeFully(sendSide, v);
              } catch (IOException | InterruptedException e) {
                throw new IllegalStateException(e);
              }
            });
    writer.start();
    assertThat(firstPieceSent.await(60, TimeUnit.SECONDS)).isTrue();
    ByteBuffer dst = ByteBuffer.allocateDirect(size);
    CRC32C checksum = new CRC32C();
    assertTimeoutPreemptively(GENEROUS, () -> in.readPayload(dst, checksum));
    writer.join();
    assertThat(dst.flip()).isEqualTo(value);
    CRC32C expected = new CRC32C();
    expected.update(value.duplicate());
    assertThat(checksum.getValue()).isEqualTo(expected.getValue());
  }

  @Test
  void aSmallFrameAfterALargePayloadIsReadAtOnce() throws Exception {
    assertThat(in.readPayloadsWhole()).isTrue();
    FrameChannel out = new FrameChannel(sendSide, 1, 0);
    ByteBuffer value = bytes(1 << 20, 11);
    out.write(Opcode.READ.code(), 0, 1, ByteBuffer.allocate(4).putInt(0, value.remaining()), value);
    Frame first = in.read();
    assertThat(first.header().requestId()).isEqualTo(1);
    ByteBuffer dst = ByteBuffer.allocateDirect(1 << 20);
    in.readPayload(dst);
    assertThat(dst.flip()).isEqualTo(value.rewind());
    // a frame of 28 bytes: with the mark left at the last payload's size, this read would wait
    // for bytes that never come
    out.write(Opcode.READ.code(), 0, 2, ByteBuffer.allocate(4).putInt(0, 0));
    Frame second = assertTimeoutPreemptively(GENEROUS, () -> in.read());
    assertThat(second.header().requestId()).isEqualTo(2);
  }

  @Test
  void aCloseFromAnotherThreadEndsAWaitForARestThatNeverComes() throws Exception {
    assertThat(in.readPayloadsWhole()).isTrue();
    writeFully(sendSide, bytes(200_000, 3)); // of 1 MiB; the peer then stays silent
    ByteBuffer dst = ByteBuffer.allocateDirect(1 << 20);
    Thread closer =
        new Thread(
            () -> {
              try {
                Thread.sleep(300); // most likely inside the wait by then; before it, the same holds
                receiveSide.close();
              } catch (IOException | InterruptedException e) {
                throw new IllegalStateException(e);
              }
            });
    closer.start();
    assertTimeoutPreemptively(
        GENEROUS,
        () -> assertThatThrownBy(() -> in.readPayload(dst)).isInstanceOf(IOException.class));
    closer.join();
    // the 200,000 bytes that came were left for the rest, which never came: not read in pieces
    assertThat(dst.position()).isZero();
  }

  @Test
  void aPeerThatClosesInsideThePayloadIsReportedAsSuch() throws Exception {
    assertThat(in.readPayloadsWhole()).isTrue();
    writeFully(sendSide, bytes(300_000, 5));
    sendSide.close();
    ByteBuffer dst = ByteBuffer.allocateDirect(1 << 20);
    assertTimeoutPreemptively(
        GENEROUS,
        () ->
            assertThatThrownBy(() -> in.readPayload(dst, new CRC32C()))
                .isInstanceOf(ProtocolException.class)
                .hasMessageContaining("connection closed inside a payload"));
    assertThat(dst.position()).isEqualTo(300_000);
  }
}
