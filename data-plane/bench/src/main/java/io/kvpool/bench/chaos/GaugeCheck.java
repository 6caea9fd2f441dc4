package io.kvpool.bench.chaos;

import io.kvpool.admin.MasterStatus;
import io.kvpool.admin.ObjectScan;
import io.kvpool.cli.AdminApi;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The leader's gauges against a full scan of its object table ({@code GET /scan}), once the pool is
 * quiet: objects = {@code objectCount}, pending = {@code counters.pendingObjects}, under-replicated
 * = {@code counters.underReplicated}. The status is read before and after the scan; the comparison
 * counts only when both readings agree (nothing changed in between).
 */
record GaugeCheck(
    boolean available,
    String leader,
    ObjectScan scan,
    MasterStatus status,
    List<String> mismatches,
    String note) {

  private static final int ATTEMPTS = 5;

  static GaugeCheck run(AdminApi leader, String leaderName) {
    String note = "";
    for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
      MasterStatus before;
      Optional<ObjectScan> scan;
      MasterStatus after;
      try {
        before = leader.masterStatus();
        scan = leader.scan();
        after = leader.masterStatus();
      } catch (AdminApi.AdminApiException e) {
        note = e.getMessage();
        Pause.millis(1000); // asked again: the leader may be busy
        continue;
      }
      if (scan.isEmpty()) {
        return new GaugeCheck(
            false,
            leaderName,
            null,
            before,
            List.of(),
            "scan unavailable: the master has no GET " + "/scan (404)");
      }
      if (!same(before, after)) {
        note = "the gauges moved while the table was scanned";
        Pause.millis(1000); // asked again once the pool is quieter
        continue;
      }
      return new GaugeCheck(true, leaderName, scan.get(), before, compare(scan.get(), before), "");
    }
    return new GaugeCheck(false, leaderName, null, null, List.of(), "no stable reading: " + note);
  }

  private static boolean same(MasterStatus a, MasterStatus b) {
    return a.view() == b.view()
        && a.objectCount() == b.objectCount()
        && a.counters().pendingObjects() == b.counters().pendingObjects()
        && a.counters().underReplicated() == b.counters().underReplicated();
  }

  /** The differences between a scan and the gauges read with it (empty when they agree). */
  static List<String> compare(ObjectScan scan, MasterStatus status) {
    List<String> out = new ArrayList<>();
    if (scan.objects() != status.objectCount()) {
      out.add("objects: scan " + scan.objects() + ", gauge objectCount " + status.objectCount());
    }
    if (scan.pending() != status.counters().pendingObjects()) {
      out.add(
          "pending: scan "
              + scan.pending()
              + ", gauge pendingObjects "
              + status.counters().pendingObjects());
    }
    if (scan.underReplicated() != status.counters().underReplicated()) {
      out.add(
          "under-replicated: scan "
              + scan.underReplicated()
              + ", gauge underReplicated "
              + status.counters().underReplicated());
    }
    return out;
  }
}
