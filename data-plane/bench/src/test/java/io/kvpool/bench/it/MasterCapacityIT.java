package io.kvpool.bench.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvpool.cli.CliRun;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code kvpool bench master-capacity --quick} end to end: real master JVMs filled by synthetic
 * storage nodes through the registration protocol, loaded with puts and gets, killed and recovered
 * by a second master. It checks what the bench itself verifies (the master counts every object the
 * nodes registered, before and after the failover; every get finds its key) and that each size
 * printed its row, never how fast anything was.
 */
class MasterCapacityIT {

  @Test
  void quickRunMeasuresEverySizeAndRecoversEveryObject() {
    CliRun run = CliRun.of("bench", "master-capacity", "--quick");
    assertThat(run.code()).as("exit code; stderr: %s%nstdout: %s", run.err(), run.out()).isZero();
    List<String> rows =
        run.out().lines().filter(l -> l.matches("^\\s+[0-9,]+\\s+[0-9.]+ s\\s.*")).toList();
    assertThat(rows).as(run.out()).hasSize(3);
    assertThat(rows.get(0)).startsWith("      20,000");
    assertThat(rows.get(1)).startsWith("     100,000");
    assertThat(run.out())
        .contains("bytes per object; a 16 GiB heap holds about")
        .contains("recovery of ")
        .contains("io.kvpool.master.StoredObject");
  }
}
