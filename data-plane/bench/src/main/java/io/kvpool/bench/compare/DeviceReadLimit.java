package io.kvpool.bench.compare;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The disk's own read limit, measured with {@code fio} (Debian's package) in the folder the disk
 * tiers use (its file is left there, removed with the run's folder): sequential reads of one block
 * size with O_DIRECT (no page cache), one job, one request at a time, as a kvpool client's gets
 * are.
 */
final class DeviceReadLimit {
  private static final String JOB = "kvpool-disk-limit";

  /** What fio measured, or why it could not run ({@code bytesPerSecond} 0). */
  record Result(double bytesPerSecond, String command, String problem) {
    double gigabytesPerSecond() {
      return bytesPerSecond / 1e9;
    }

    boolean measured() {
      return problem.isEmpty();
    }
  }

  private DeviceReadLimit() {}

  /**
   * @param fileBytes what the jobs read in all (each job reads its share, whole blocks)
   */
  static Result measure(Path folder, int blockBytes, long fileBytes, int jobs)
      throws InterruptedException {
    long perJob = Math.max(blockBytes, fileBytes / jobs / blockBytes * blockBytes);
    Path fio = CompareSuite.which("fio");
    List<String> command =
        List.of(
            fio == null ? "fio" : fio.toString(),
            "--name=" + JOB,
            "--directory=" + folder,
            "--rw=read",
            "--bs=" + blockBytes,
            "--direct=1",
            "--ioengine=psync",
            "--numjobs=" + jobs,
            "--group_reporting",
            "--size=" + perJob,
            "--output-format=json");
    String shown = String.join(" ", command);
    if (fio == null) {
      return new Result(0, shown, "no fio on PATH (apt-get install fio; the setup step does it)");
    }
    try {
      Process p = new ProcessBuilder(command).redirectErrorStream(false).start();
      byte[] stdout = p.getInputStream().readAllBytes();
      String stderr = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8).trim();
      if (!p.waitFor(5, TimeUnit.MINUTES) || p.exitValue() != 0) {
        p.destroyForcibly();
        return new Result(0, shown, "fio failed: " + stderr);
      }
      JsonNode read = new ObjectMapper().readTree(stdout).path("jobs").path(0).path("read");
      double bw = read.path("bw_bytes").asDouble(0);
      return bw > 0
          ? new Result(bw, shown, "")
          : new Result(0, shown, "fio reported no read bandwidth: " + read);
    } catch (IOException e) {
      return new Result(0, shown, "fio failed: " + e.getMessage());
    }
  }
}
