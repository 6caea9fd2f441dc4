package io.kvpool.operator.common;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Quantity;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

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
    assertThat(ByteQuantity.bytes("f", new Quantity("1Gi"))).isEqualTo(1L << 30);
    assertThat(ByteQuantity.bytes("f", new Quantity("1G"))).isEqualTo(1_000_000_000L);
    assertThat(ByteQuantity.bytes("f", new Quantity("1.5Gi"))).isEqualTo(3L << 29);
  }

  /**
   * Quantities the API server admits that are no byte count: a typed, readable refusal, never an
   * arithmetic crash.
   */
  @ParameterizedTest
  @CsvSource({
    "1m, not a whole number of bytes",
    "1500m, not a whole number of bytes",
    "100Ei, not a whole number of bytes below 8Ei",
    "-1Gi, negative"
  })
  void bytesRefusesWhatIsNoByteCountNamingTheField(String written, String expected) {
    assertThatThrownBy(
            () -> ByteQuantity.bytes("spec.storage.memoryPerNode", new Quantity(written)))
        .isInstanceOf(InvalidSpecException.class)
        .hasMessageStartingWith("spec.storage.memoryPerNode '" + written + "'")
        .hasMessageContaining(expected);
  }
}
