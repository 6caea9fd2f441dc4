package io.kvpool.nativemem;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.jna.NativeLibrary;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The "ascend" cases run against the test-only libascendcl.so stand-in that surefire points
 * KVPOOL_ASCEND_LIB at.
 */
class DeviceBackendTest {
  private static final int LENGTH = 100_000;

  @ParameterizedTest
  @ValueSource(strings = {"host", "ascend", "ascend:3"})
  void roundTripsBytesThroughDeviceMemory(String name) {
    try (DeviceBackend backend = DeviceBackend.open(name);
        NativeSegment src = NativeSegment.allocate(1 << 20, SegmentOptions.defaults());
        NativeSegment dst = NativeSegment.allocate(1 << 20, SegmentOptions.defaults());
        DeviceBuffer device = backend.allocate(2 * LENGTH)) {
      assertThat(backend.name()).isEqualTo(name);
      assertThat(device.size()).isEqualTo(2 * LENGTH);
      ByteBuffer view = src.view(4096, LENGTH);
      for (int i = 0; i < LENGTH; i++) {
        view.put(i, (byte) (i * 31));
      }
      backend.copyToDevice(device, LENGTH, src, 4096, LENGTH);
      backend.copyToHost(dst, 12345, device, LENGTH, LENGTH);
      assertThat(dst.crc32c(12345, LENGTH)).isEqualTo(src.crc32c(4096, LENGTH));
      assertThat(dst.view(12345, LENGTH)).isEqualTo(src.view(4096, LENGTH));
    }
  }

  @Test
  void ascendBackendFreesLeftoverBuffersOnClose() {
    DeviceBackend backend = DeviceBackend.open("ascend");
    DeviceBuffer kept = backend.allocate(1000);
    DeviceBuffer freed = backend.allocate(1000);
    freed.close();
    freed.close();
    assertThat(standinLiveAllocations()).isEqualTo(1);
    backend.close();
    assertThat(standinLiveAllocations()).isZero();
    kept.close();
    backend.close();
  }

  @Test
  void missingAscendLibraryIsAClearError() {
    assertThatThrownBy(() -> NativeDeviceBackend.open("ascend", "/nonexistent/libascendcl.so"))
        .isInstanceOf(DeviceBackendException.class)
        .hasMessageContaining("/nonexistent/libascendcl.so")
        .hasMessageContaining("No such file")
        .hasMessageContaining("CANN")
        .hasMessageContaining("KVPOOL_ASCEND_LIB");
  }

  /** Without KVPOOL_ASCEND_LIB the loader's search path is used; here it has no libascendcl.so. */
  @Test
  void missingAscendLibraryOnTheLoaderPathIsAClearErrorInAFreshProcess()
      throws IOException, InterruptedException {
    ProcessBuilder builder =
        new ProcessBuilder(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-cp",
            System.getProperty("java.class.path"),
            AscendOpenProbe.class.getName());
    builder.environment().remove("KVPOOL_ASCEND_LIB");
    builder.redirectErrorStream(true);
    Process process = builder.start();
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(output)
        .contains("DeviceBackendException")
        .contains(
            "cannot load the AscendCL runtime 'libascendcl.so' (from dynamic loader search path)")
        .contains("LD_LIBRARY_PATH");
    assertThat(process.exitValue()).isEqualTo(3);
  }

  @Test
  void unknownBackendNameIsRefused() {
    assertThatThrownBy(() -> DeviceBackend.open("cuda"))
        .isInstanceOf(DeviceBackendException.class)
        .hasMessageContaining("unknown device backend 'cuda'")
        .hasMessageContaining("'host'");
    assertThatThrownBy(() -> DeviceBackend.open("ascend:-1"))
        .isInstanceOf(DeviceBackendException.class);
    assertThatThrownBy(() -> DeviceBackend.open(null)).isInstanceOf(NullPointerException.class);
  }

  @Test
  void missingDeviceIsReportedByTheRuntime() {
    assertThatThrownBy(() -> DeviceBackend.open("ascend:42"))
        .isInstanceOf(DeviceBackendException.class)
        .hasMessageContaining("aclrtSetDevice(42)");
  }

  @Test
  void badArgumentsAreRefusedBeforeReachingNativeCode() {
    try (DeviceBackend backend = DeviceBackend.open("host");
        DeviceBackend other = DeviceBackend.open("host");
        NativeSegment segment = NativeSegment.allocate(4096, SegmentOptions.defaults());
        DeviceBuffer buffer = backend.allocate(1024);
        DeviceBuffer foreign = other.allocate(1024)) {
      assertThatThrownBy(() -> backend.allocate(0)).isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(() -> backend.allocate(-1)).isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(() -> backend.allocate(Long.MAX_VALUE))
          .isInstanceOf(DeviceBackendException.class)
          .hasMessageContaining("cannot allocate");
      assertThatThrownBy(() -> backend.copyToDevice(buffer, 0, segment, 0, 1025))
          .isInstanceOf(IndexOutOfBoundsException.class)
          .hasMessageContaining("device buffer of 1024 bytes");
      assertThatThrownBy(() -> backend.copyToDevice(buffer, 1, segment, Long.MAX_VALUE, 10))
          .isInstanceOf(IndexOutOfBoundsException.class);
      assertThatThrownBy(() -> backend.copyToHost(segment, 4000, buffer, 0, 100))
          .isInstanceOf(IndexOutOfBoundsException.class);
      assertThatThrownBy(() -> backend.copyToHost(segment, 0, buffer, -1, 10))
          .isInstanceOf(IndexOutOfBoundsException.class);
      assertThatThrownBy(() -> backend.copyToDevice(foreign, 0, segment, 0, 10))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("belongs to backend");
      assertThatThrownBy(() -> backend.copyToDevice(null, 0, segment, 0, 10))
          .isInstanceOf(NullPointerException.class);
    }
  }

  @Test
  void useAfterCloseIsRefused() {
    DeviceBackend backend = DeviceBackend.open("ascend");
    NativeSegment segment = NativeSegment.allocate(4096, SegmentOptions.defaults());
    DeviceBuffer buffer = backend.allocate(1024);
    DeviceBuffer closedBuffer = backend.allocate(1024);
    closedBuffer.close();
    assertThatThrownBy(() -> backend.copyToDevice(closedBuffer, 0, segment, 0, 10))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("closed");
    segment.close();
    assertThatThrownBy(() -> backend.copyToDevice(buffer, 0, segment, 0, 10))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("segment");
    backend.close();
    try (NativeSegment open = NativeSegment.allocate(4096, SegmentOptions.defaults())) {
      assertThatThrownBy(() -> backend.copyToHost(open, 0, buffer, 0, 10))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("backend 'ascend' is closed");
      assertThatThrownBy(() -> backend.allocate(10)).isInstanceOf(IllegalStateException.class);
    }
    buffer.close();
  }

  @Test
  void runtimeErrorsSurfaceAsExceptions() {
    try (DeviceBackend backend = DeviceBackend.open("ascend")) {
      assertThatThrownBy(() -> backend.allocate(Long.MAX_VALUE / 2))
          .isInstanceOf(DeviceBackendException.class)
          .hasMessageContaining("aclrtMalloc");
    }
  }

  private static long standinLiveAllocations() {
    NativeLibrary standin = NativeLibrary.getInstance(System.getenv("KVPOOL_ASCEND_LIB"));
    return standin.getFunction("kvpool_standin_live_allocations").invokeLong(new Object[0]);
  }
}
