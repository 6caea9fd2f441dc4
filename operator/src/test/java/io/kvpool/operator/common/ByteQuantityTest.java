package io.kvpool.operator.common;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Quantity;
import org.junit.jupiter.api.Test;

class ByteQuantityTest {

  @Test
  void exactUsesTheLargestSuffixThatDividesTheValue() {
    assertThat(ByteQuantity.exact(4L << 30)).isEqualTo(new Quantity("4Gi"));
    assertThat(ByteQuantity.exact((4L << 30) + (512L << 20))).isEqualTo(new Quantity("4608Mi"));
    assertThat(ByteQuantity.exact(1000)).isEqualTo(new Quantity("1000"));
    assertThat(ByteQuantity.exact(0)).isEqualTo(new Quantity("0"));
  }

  @Test
  void displayIsShortForColumns() {
    assertThat(ByteQuantity.display(12L << 30)).isEqualTo("12Gi");
    assertThat(ByteQuantity.display(3L << 29)).isEqualTo("1.5Gi");
    assertThat(ByteQuantity.display(512)).isEqualTo("512");
  }

  @Test
  void bytesReadsDecimalAndBinarySuffixes() {
    assertThat(ByteQuantity.bytes(new Quantity("1Gi"))).isEqualTo(1L << 30);
    assertThat(ByteQuantity.bytes(new Quantity("1G"))).isEqualTo(1_000_000_000L);
  }
}
