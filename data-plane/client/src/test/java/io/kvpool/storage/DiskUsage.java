package io.kvpool.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/** What a folder occupies on disk, as {@code du} counts it: the physical cap of a disk tier. */
final class DiskUsage {
  private DiskUsage() {}

  /**
   * Allocated bytes under {@code dir}; taken again when a file the tier reclaimed vanished between
   * du's listing and its look at the file.
   */
  static long of(Path dir) throws IOException, InterruptedException {
    for (int attempt = 1; ; attempt++) {
      Process p =
          new ProcessBuilder("du", "-s", "--block-size=1", dir.toString())
              .redirectErrorStream(true)
              .start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
      int code = p.waitFor();
      if (code != 0 && attempt < 10 && out.contains("No such file or directory")) {
        continue;
      }
      assertThat(code).as(out).isZero();
      return Long.parseLong(out.split("\\s+")[0]);
    }
  }
}
