package io.kvpool.e2e.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.JarInputStream;
import org.junit.jupiter.api.Test;

class WorkloadPodTest {
  @Test
  void readsTheLastWorkloadLine() {
    String log =
        """
        Picked up JAVA_TOOL_OPTIONS: -Djna.nounpack=true
        error: v-000001: not found
        WORKLOAD op=verify keys=2000 ok=1999 failed=1 missing=1 mismatched=0 bytes=10 millis=5
        """;
    assertThat(WorkloadPod.summary(log))
        .containsEntry("ok", "1999")
        .containsEntry("missing", "1")
        .containsEntry("op", "verify");
  }

  @Test
  void theShippedJarHoldsTheWorkloadClasses() throws IOException {
    List<String> entries = new ArrayList<>();
    try (JarInputStream jar =
        new JarInputStream(new ByteArrayInputStream(WorkloadPod.workloadJar()))) {
      for (var e = jar.getNextJarEntry(); e != null; e = jar.getNextJarEntry()) {
        entries.add(e.getName());
      }
    }
    assertThat(entries).contains("io/kvpool/e2e/workload/PoolWorkload.class");
    assertThat(WorkloadPod.workloadJar().length).as("fits a ConfigMap easily").isLessThan(100_000);
  }
}
