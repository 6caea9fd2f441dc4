package io.kvpool.nativemem;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.util.List;
import org.junit.jupiter.api.Test;

class NativeCopyTest {

  @Test
  void copiesEveryRequestInOrder() {
    try (NativeSegment a = NativeSegment.allocate(1 << 16, SegmentOptions.defaults());
        NativeSegment b = NativeSegment.allocate(1 << 16, SegmentOptions.defaults())) {
      ByteBuffer source = a.view(0, 3000);
      for (int i = 0; i < 3000; i++) {
        source.put(i, (byte) (i * 7 + 1));
      }
      NativeCopy.copyBatch(
          List.of(
              new CopyRequest(b, 0, a, 0, 1000),
              new CopyRequest(b, 1000, a, 2000, 1000),
              // reads what the first request wrote
              new CopyRequest(b, 2000, b, 0, 1000),
              new CopyRequest(a, 10_000, a, 1000, 1000)));
      assertThat(b.view(0, 1000)).isEqualTo(a.view(0, 1000));
      assertThat(b.view(1000, 1000)).isEqualTo(a.view(2000, 1000));
      assertThat(b.view(2000, 1000)).isEqualTo(a.view(0, 1000));
      assertThat(a.view(10_000, 1000)).isEqualTo(a.view(1000, 1000));
      NativeCopy.copyBatch(List.of());
    }
  }

  @Test
  void copiesNothingWhenAnyRequestIsOutOfBounds() {
    try (NativeSegment a = NativeSegment.allocate(4096, SegmentOptions.defaults());
        NativeSegment b = NativeSegment.allocate(4096, SegmentOptions.defaults())) {
      a.view(0, 10).put(new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10});
      assertThatThrownBy(
              () ->
                  NativeCopy.copyBatch(
                      List.of(new CopyRequest(b, 0, a, 0, 10), new CopyRequest(b, 4090, a, 0, 10))))
          .isInstanceOf(IndexOutOfBoundsException.class)
          .hasMessageContaining("destination segment of copy request 1");
      assertThat(b.view(0, 10)).isEqualTo(ByteBuffer.allocate(10));
      assertThatThrownBy(
              () -> NativeCopy.copyBatch(List.of(new CopyRequest(b, 0, a, Long.MAX_VALUE, 2))))
          .isInstanceOf(IndexOutOfBoundsException.class)
          .hasMessageContaining("source segment of copy request 0");
      assertThatThrownBy(() -> NativeCopy.copyBatch(List.of(new CopyRequest(b, 0, a, 0, -1))))
          .isInstanceOf(IndexOutOfBoundsException.class);
      assertThatThrownBy(() -> new CopyRequest(null, 0, a, 0, 1))
          .isInstanceOf(NullPointerException.class);
      assertThatThrownBy(() -> NativeCopy.copyBatch(null)).isInstanceOf(NullPointerException.class);
    }
  }

  @Test
  void refusesClosedSegments() {
    NativeSegment a = NativeSegment.allocate(4096, SegmentOptions.defaults());
    try (NativeSegment b = NativeSegment.allocate(4096, SegmentOptions.defaults())) {
      a.close();
      assertThatThrownBy(() -> NativeCopy.copyBatch(List.of(new CopyRequest(b, 0, a, 0, 10))))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("closed");
    }
  }
}
