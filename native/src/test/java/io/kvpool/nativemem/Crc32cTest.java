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
  void equalsJdkCrc32cOnRandomDataOfManyLengthsAndAlignments() {
    Random random = new Random(42);
    byte[] data = new byte[200_000];
    random.nextBytes(data);
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

  private static ByteBuffer direct(byte[] bytes) {
    ByteBuffer buffer = ByteBuffer.allocateDirect(bytes.length);
    buffer.put(bytes).flip();
    return buffer;
  }
}
