package io.kvpool.operator.common;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;

class StatusMessageTest {

  @Test
  void aShortMessageStaysAsWrittenOnOneLine() {
    assertThat(StatusMessage.bound("  two\n  lines\tand  spaces "))
        .isEqualTo("two lines and spaces");
    assertThat(StatusMessage.bound(null)).isEmpty();
  }

  @Test
  void aStackTraceOfAHundredKilobytesBecomesOneBoundedLine() {
    StringWriter trace = new StringWriter();
    Exception deep = new IllegalStateException("outer", new RuntimeException("inner"));
    PrintWriter out = new PrintWriter(trace);
    while (trace.getBuffer().length() < 110_000) {
      deep.printStackTrace(out);
    }
    out.flush();

    String bounded = StatusMessage.bound(trace.toString());

    assertThat(bounded)
        .hasSizeLessThanOrEqualTo(StatusMessage.MAX_LENGTH)
        .doesNotContain("\n")
        .endsWith("[...]")
        .startsWith("java.lang.IllegalStateException: outer");
  }

  @Test
  void aLongMessageIsCutAtAWordBoundary() {
    String words = "word ".repeat(200);

    String bounded = StatusMessage.bound(words, 40);

    assertThat(bounded)
        .hasSizeLessThanOrEqualTo(40)
        .isEqualTo("word word word word word word word [...]");
  }
}
