package io.kvpool.images;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * Started by {@link ImagesIT} with the image's own JRE, jars and JAVA_TOOL_OPTIONS: loads libkvpool
 * through kvpool-native (by reflection: this module does not compile against it) and prints a
 * CRC32C.
 */
public final class NativeLoadProbe {
  private NativeLoadProbe() {}

  public static void main(String[] args) throws Exception {
    Class<?> crc = Class.forName("io.kvpool.nativemem.Crc32c");
    ByteBuffer data =
        ByteBuffer.allocateDirect(9).put("123456789".getBytes(StandardCharsets.US_ASCII)).flip();
    int value = (int) crc.getMethod("compute", ByteBuffer.class).invoke(null, data);
    System.out.printf("crc32c=%08x%n", value);
  }
}
