package io.kvpool.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.util.List;
import org.junit.jupiter.api.Test;

class LocalPoolConfigTest {

  /** Maven's surefire sets the variable for every suite (root pom); a run without it skips this. */
  @Test
  void thePoolsJvmsGetTheExtraFlagsAfterTheirOwn() throws Exception {
    String extra = System.getenv("KVPOOL_CHILD_EXTRA_JAVA_OPTS");
    assumeTrue(extra != null && !extra.isBlank(), "KVPOOL_CHILD_EXTRA_JAVA_OPTS is not set");
    assumeTrue(System.getenv("KVPOOL_CHILD_JAVA_OPTS") == null, "KVPOOL_CHILD_JAVA_OPTS is set");
    LocalPoolConfig config =
        LocalPoolConfig.builder().jvmOptions(List.of("-Xmx64m", "-XX:+UseSerialGC")).build();
    try {
      assertThat(config.jvmOptions())
          .startsWith("-Xmx64m", "-XX:+UseSerialGC")
          .endsWith(extra.strip().split("\\s+"));
    } finally {
      Files.deleteIfExists(config.logDir());
    }
  }
}
