package io.kvpool.master;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Eviction settings follow the config folder while the master runs; bad values leave the running
 * ones.
 */
class LiveEvictionSettingsTest {
  private final List<double[]> updates = new ArrayList<>();

  private LiveEvictionSettings following(Path dir) {
    return new LiveEvictionSettings(
        (w, r) -> {
          MasterConfig.defaults("p").withEviction(w, r); // the master's own validation
          updates.add(new double[] {w, r});
        },
        dir,
        0.9,
        0.1);
  }

  @Test
  void aChangedFileIsTakenOnceAndAnUnchangedOneNever(@TempDir Path dir) throws Exception {
    LiveEvictionSettings live = following(dir);
    Files.writeString(dir.resolve("KVPOOL_HIGH_WATERMARK"), "0.9");
    live.check();
    assertThat(updates).isEmpty();
    Files.writeString(dir.resolve("KVPOOL_HIGH_WATERMARK"), "0.75\n");
    live.check();
    live.check();
    assertThat(updates).hasSize(1);
    assertThat(updates.get(0)).containsExactly(0.75, 0.1);
    Files.writeString(dir.resolve("KVPOOL_EVICT_RATIO"), "0.25");
    live.check();
    assertThat(updates).hasSize(2);
    assertThat(updates.get(1)).containsExactly(0.75, 0.25);
  }

  @Test
  void valuesThatDoNotParseOrAreOutOfRangeAreIgnored(@TempDir Path dir) throws Exception {
    LiveEvictionSettings live = following(dir);
    Files.writeString(dir.resolve("KVPOOL_HIGH_WATERMARK"), "lots");
    live.check();
    Files.writeString(dir.resolve("KVPOOL_HIGH_WATERMARK"), "1.5");
    live.check();
    assertThat(updates).isEmpty();
    Files.writeString(dir.resolve("KVPOOL_HIGH_WATERMARK"), "0.5");
    live.check();
    assertThat(updates).hasSize(1);
  }
}
