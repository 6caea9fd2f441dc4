package io.kvpool.bench.compare;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * What {@code kvpool bench compare} runs: rounds, phase lengths, the working set, which workloads
 * and targets, where the checkout (agent, report script) and the Python environment are, and where
 * the report goes.
 */
public record CompareSettings(
    int rounds,
    Phase phase,
    boolean fullMatrix,
    Set<String> onlyTargets,
    Path home,
    Path venv,
    Path outputDir,
    boolean install,
    boolean warmUp) {

  public static CompareSettings of(
      int rounds,
      long workingSetBytes,
      double putMaxSeconds,
      double getSeconds,
      boolean fullMatrix,
      Set<String> onlyTargets,
      Path home,
      Path venv,
      Path outputDir,
      boolean install,
      boolean warmUp) {
    return new CompareSettings(
        rounds,
        new Phase(workingSetBytes, putMaxSeconds, getSeconds),
        fullMatrix,
        onlyTargets,
        home,
        venv,
        outputDir,
        install,
        warmUp);
  }

  /**
   * The workloads: single values of 64 KiB, 1 MiB and 4 MiB with 4 clients and 1 MiB with 1 and 8
   * clients (every size and every client count of the full matrix, which runs all nine);
   * inference-shaped batches (a request's prefix of 128 x 64 KiB, 32 x 512 KiB); the master's
   * metadata requests with 1, 4 and 8 clients.
   */
  List<Workload> workloads() {
    List<Workload> out = new ArrayList<>();
    int k64 = 64 << 10;
    int m1 = 1 << 20;
    int m4 = 4 << 20;
    if (fullMatrix) {
      for (int size : new int[] {k64, m1, m4}) {
        for (int clients : new int[] {1, 4, 8}) {
          out.add(Workload.single(size, clients));
        }
      }
    } else {
      out.add(Workload.single(k64, 4));
      out.add(Workload.single(m1, 1));
      out.add(Workload.single(m1, 4));
      out.add(Workload.single(m1, 8));
      out.add(Workload.single(m4, 4));
    }
    out.add(Workload.batch(128, k64, 1));
    out.add(Workload.batch(128, k64, 4));
    out.add(Workload.batch(32, 512 << 10, 4));
    for (Workload.MetaOp op : Workload.MetaOp.values()) {
      for (int clients : new int[] {1, 4, 8}) {
        out.add(Workload.meta(op, clients));
      }
    }
    return out;
  }

  /** Whether {@code target} runs: every target unless {@code --targets} names some. */
  public boolean wants(String target) {
    return onlyTargets.isEmpty() || onlyTargets.contains(target);
  }

  /**
   * Memory for each of the suite's two storage nodes: room for every kvpool target's working set
   * twice over (kvpool-r2 stores its set twice). A target's keys are removed only before its next
   * run, and keys still under a read lease then stay until the run after, so the sets of two
   * workloads can be stored at once; at half the pool that stays under the eviction watermark, and
   * nothing a run stored is evicted before it reads it back.
   */
  public long storageNodeBytes() {
    long sets = 0;
    for (CompareSuite.KvPoolVariant v : CompareSuite.KvPoolVariant.values()) {
      sets += wants(v.target) ? v.replicas : 0;
    }
    sets += wants("kvpool-py") ? 1 : 0;
    return Math.max(256L << 20, 2 * sets * phase.workingSetBytes());
  }

  /**
   * Memory for each of the two storage nodes of the sendfile pool: one target's set, twice over.
   */
  public long sendfileNodeBytes() {
    return Math.max(256L << 20, 2 * phase.workingSetBytes());
  }

  /**
   * Memory for the one storage node of the target {@value CompareSuite#ONE_NODE}'s pool: one
   * target's set, twice over, as the two nodes of the other pools hold between them.
   */
  public long oneNodeBytes() {
    return 2 * sendfileNodeBytes();
  }
}
