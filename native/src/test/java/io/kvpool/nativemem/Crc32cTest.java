package io.kvpool.nativemem;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import java.util.function.ToIntFunction;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

class Crc32cTest {

  private static void checkVectors(ToIntFunction<ByteBuffer> crc) {
    byte[] ascending = new byte[32];
    byte[] ones = new byte[32];
    for (int i = 0; i < 32; i++) {
      ascending[i] = (byte) i;
      ones[i] = (byte) 0xFF;
    }
    assertThat(crc.applyAsInt(direct("123456789".getBytes(StandardCharsets.US_ASCII))))
        .isEqualTo(0xE3069283);
    assertThat(crc.applyAsInt(direct(new byte[32]))).isEqualTo(0x8A9136AA);
    assertThat(crc.applyAsInt(direct(ones))).isEqualTo(0x62A8AB43);
    assertThat(crc.applyAsInt(direct(ascending))).isEqualTo(0x46DD794E);
    assertThat(crc.applyAsInt(ByteBuffer.wrap(ascending))).isEqualTo(0x46DD794E);
    assertThat(crc.applyAsInt(direct(new byte[0]))).isZero();
  }

  @Test
  void portableImplementationMatchesStandardVectors() {
    checkVectors(Crc32c::computePortable);
  }

  @Test
  void hardwareImplementationMatchesStandardVectors() {
    if (Crc32c.hardwareAvailable()) {
      checkVectors(Crc32c::computeHardware);
    }
    checkVectors(Crc32c::compute);
  }

  @Test
  void clmulImplementationMatchesStandardVectorsAndTheJdkAroundItsSuperblocks() {
    if (!Crc32c.clmulAvailable()) {
      return; // the C tests say so; compute() then uses the crc32 instruction or tables
    }
    checkVectors(Crc32c::computeClmul);
    byte[] data = randomBytes((1 << 20) + 16, 7);
    ByteBuffer direct = direct(data);
    int[] lengths = {3583, 3584, 3585, 7168, 7169, 65_536, 1 << 20};
    for (int offset = 0; offset < 9; offset += 4) {
      for (int length : lengths) {
        CRC32C jdk = new CRC32C();
        jdk.update(data, offset, length);
        ByteBuffer slice = direct.duplicate().position(offset).limit(offset + length);
        assertThat(Crc32c.computeClmul(slice))
            .as("clmul offset=%d length=%d", offset, length)
            .isEqualTo((int) jdk.getValue());
      }
    }
  }

  /**
   * NativeCrc32c as the storage node uses it, in runs as they land from a socket: equal to the
   * JDK's over direct, heap and read-only buffers, single bytes and arrays, and after a reset.
   */
  @Test
  void nativeChecksumEqualsTheJdksRunByRun() {
    byte[] data = randomBytes(300_000, 11);
    ByteBuffer direct = direct(data);
    NativeCrc32c crc = new NativeCrc32c();
    CRC32C jdk = new CRC32C();
    int at = 0;
    int[] runs = {1, 7, 4096, 3584, 65_536, 100_003, 17, 120_000};
    for (int i = 0; i < runs.length; i++) {
      int run = Math.min(runs[i], data.length - at);
      ByteBuffer piece =
          switch (i % 3) {
            case 0 -> direct.duplicate().position(at).limit(at + run);
            case 1 -> ByteBuffer.wrap(data, at, run);
            default -> direct.duplicate().position(at).limit(at + run).asReadOnlyBuffer();
          };
      crc.update(piece);
      assertThat(piece.position()).as("position after run %d", i).isEqualTo(piece.limit());
      jdk.update(data, at, run);
      at += run;
      assertThat(crc.getValue()).as("after %d bytes", at).isEqualTo(jdk.getValue());
    }
    crc.update(data[0]);
    crc.update(data, 5, 1000);
    jdk.update(data[0]);
    jdk.update(data, 5, 1000);
    assertThat(crc.getValue()).isEqualTo(jdk.getValue());
    crc.reset();
    assertThat(crc.getValue()).isZero();
    crc.update(data, 0, data.length);
    jdk.reset();
    jdk.update(data, 0, data.length);
    assertThat(crc.getValue()).isEqualTo(jdk.getValue());
  }

  @Test
  void equalsJdkCrc32cOnRandomDataOfManyLengthsAndAlignments() {
    byte[] data = randomBytes(200_000, 42);
    ByteBuffer direct = direct(data);
    int[] lengths = {
      0, 1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 63, 64, 65, 255, 1000, 4096, 65_535, 65_536, 65_537,
      199_000
    };
    for (int offset = 0; offset < 9; offset++) {
      for (int length : lengths) {
        CRC32C jdk = new CRC32C();
        jdk.update(data, offset, length);
        int expected = (int) jdk.getValue();
        ByteBuffer slice = direct.duplicate().position(offset).limit(offset + length);
        ByteBuffer heap = ByteBuffer.wrap(data, offset, length);
        assertThat(Crc32c.compute(slice))
            .as("direct offset=%d length=%d", offset, length)
            .isEqualTo(expected);
        assertThat(Crc32c.computePortable(slice))
            .as("portable offset=%d length=%d", offset, length)
            .isEqualTo(expected);
        assertThat(Crc32c.compute(heap))
            .as("heap offset=%d length=%d", offset, length)
            .isEqualTo(expected);
        assertThat(Crc32c.compute(heap.asReadOnlyBuffer())).isEqualTo(expected);
        assertThat(slice.position()).isEqualTo(offset);
        assertThat(heap.position()).isEqualTo(offset);
      }
    }
  }

  @Test
  void updateContinuesARunningChecksum() {
    byte[] data = "the quick brown fox jumps over the lazy dog".getBytes(StandardCharsets.US_ASCII);
    ByteBuffer whole = direct(data);
    int partial = Crc32c.compute(whole.duplicate().limit(10));
    int continued = Crc32c.update(partial, ByteBuffer.wrap(data, 10, data.length - 10));
    assertThat(continued).isEqualTo(Crc32c.compute(whole));
  }

  private static byte[] randomBytes(int size, long seed) {
    byte[] data = new byte[size];
    new Random(seed).nextBytes(data);
    return data;
  }

  private static ByteBuffer direct(byte[] bytes) {
    ByteBuffer buffer = ByteBuffer.allocateDirect(bytes.length);
    buffer.put(bytes).flip();
    return buffer;
  }
}
