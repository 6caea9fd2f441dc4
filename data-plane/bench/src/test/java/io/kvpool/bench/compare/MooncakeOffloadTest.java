package io.kvpool.bench.compare;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The disk-3x workload's Mooncake target is skipped, with the reason, when the wheel is missing.
 */
class MooncakeOffloadTest {

  @Test
  void aPythonEnvironmentWithoutMooncakeMasterIsSkippedWithTheReason(@TempDir Path dir) {
    assertThatThrownBy(
            () ->
                MooncakeOffload.start(
                    dir.resolve("no-venv"),
                    dir.resolve("agent.py"),
                    dir.resolve("work"),
                    2,
                    32L << 20,
                    128L << 20,
                    4,
                    1 << 20))
        .isInstanceOf(MooncakeOffload.Unavailable.class)
        .hasMessageStartingWith("mooncake_master is not installed in " + dir.resolve("no-venv"))
        .hasMessageContaining("pip install mooncake-transfer-engine-non-cuda");
  }
}
