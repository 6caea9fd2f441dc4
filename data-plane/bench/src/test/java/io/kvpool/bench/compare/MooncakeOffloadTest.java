package io.kvpool.bench.compare;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The disk-3x workload's Mooncake target is skipped, with the reason, when the wheel is missing.
 */
class MooncakeOffloadTest {

  @Test
  void aPythonEnvironmentWithoutMooncakeMasterIsSkippedWithTheReason(@TempDir Path dir)
      throws InterruptedException {
    String[] reason = new String[1];
    MooncakeOffload m =
        MooncakeOffload.start(
            dir.resolve("no-venv"),
            dir.resolve("agent.py"),
            dir.resolve("work"),
            2,
            32L << 20,
            128L << 20,
            4,
            1 << 20,
            reason);
    assertThat(m).isNull();
    assertThat(reason[0])
        .startsWith("mooncake_master is not installed in " + dir.resolve("no-venv"))
        .contains("pip install mooncake-transfer-engine-non-cuda");
  }
}
