package io.kvpool.bench.chaos;

import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The outcome of a chaos soak and its summary table; {@link #violations()} decides the exit code.
 * {@code extentPuts} is null when the soak's clients do not use extents.
 */
public record ChaosReport(
    ChaosSoak.Settings settings,
    Duration ran,
    Workload.Counts operations,
    ExtentPaths extentPuts,
    Map<Workload.Op, String> lastErrors,
    Map<FaultKind, Integer> faults,
    List<Duration> settleTimes,
    List<EvictionBurst.Outcome> bursts,
    int leaderChanges,
    int unplannedLeaderChanges,
    long evictions,
    long evictionsOutsideBursts,
    long objectsLostCounted,
    Verifier.Result check,
    GaugeCheck gauges,
    List<ResourceTracker.Judgement> resources,
    Map<String, Integer> restarts,
    Map<String, Integer> roleChanges,
    Map<String, BudgetTracker.Reading> budgets,
    boolean budgetsUnavailable,
    Map<String, Integer> violationCounts,
    Map<String, List<String>> violationDetails,
    String stoppedEarly,
    Path logDir) {

  public int violations() {
    return violationCounts.values().stream().mapToInt(Integer::intValue).sum();
  }

  public int faultsInjected() {
    return faults.values().stream().mapToInt(Integer::intValue).sum();
  }

  /** The summary table. */
  public void print(PrintStream out) {
    out.println();
    out.printf(
        Locale.ROOT,
        "== kvpool bench chaos: summary (seed %s, %s, %d masters, %d storage nodes, R=%d) ==%n",
        ChaosSoak.seedText(settings.seed()),
        minutes(ran),
        settings.masters(),
        settings.storageNodes(),
        settings.replicas());
    if (stoppedEarly != null) {
      out.println("faults stopped early: " + stoppedEarly);
    }
    out.printf(Locale.ROOT, "%-22s %10s %10s%n", "operations", "ok", "failed");
    for (Workload.Op op : Workload.Op.values()) {
      out.printf(
          Locale.ROOT,
          "%-22s %10d %10d%s%n",
          op.name().toLowerCase(Locale.ROOT).replace('_', ' '),
          operations.ok().get(op),
          operations.failed().get(op),
          lastErrors.containsKey(op) ? "   last failure: " + abbreviate(lastErrors.get(op)) : "");
    }
    out.printf(
        Locale.ROOT,
        "%-22s %10d acknowledged, %d values read and checked%n",
        "keys",
        operations.keysPut(),
        operations.keysRead());
    if (extentPuts != null) {
      out.printf(
          Locale.ROOT,
          "%-22s %10d through extents, %d through PUT_START (no extent granted, or one refused or"
              + " failed)%n",
          "single puts",
          extentPuts.throughExtents(),
          extentPuts.throughPutStart());
    }
    out.println();
    out.printf(Locale.ROOT, "%-22s %10s%n", "faults injected", "count");
    for (FaultKind k : FaultKind.values()) {
      if (settings.faults().contains(k)) {
        out.printf(Locale.ROOT, "%-22s %10d%n", k.cliName(), faults.getOrDefault(k, 0));
      }
    }
    List<Duration> sorted = settleTimes.stream().sorted().toList();
    out.printf(
        Locale.ROOT,
        "%-22s %10d   one at a time, each healed and the pool settled before the next "
            + "(settling: median %s, max %s)%n",
        "total",
        faultsInjected(),
        seconds(median(sorted)),
        seconds(sorted.isEmpty() ? Duration.ZERO : sorted.get(sorted.size() - 1)));
    out.printf(
        Locale.ROOT,
        "leadership changes: %d (%d without a master fault)%n",
        leaderChanges,
        unplannedLeaderChanges);
    long ranBursts = bursts.stream().filter(EvictionBurst.Outcome::ran).count();
    out.printf(
        Locale.ROOT,
        "eviction bursts: %d ran, %d skipped; their keyspace: %d acknowledged, %d vanished, %d "
            + "evictions counted by the leader (rule: vanished <= counted)%n",
        ranBursts,
        bursts.size() - ranBursts,
        bursts.stream().mapToLong(EvictionBurst.Outcome::acknowledged).sum(),
        bursts.stream().mapToLong(EvictionBurst.Outcome::vanished).sum(),
        bursts.stream().mapToLong(EvictionBurst.Outcome::counted).sum());
    out.printf(
        Locale.ROOT,
        "leader counters over the run: %d evictions (%d outside eviction bursts), %d objects "
            + "lost (objectsLost)%n",
        evictions,
        evictionsOutsideBursts,
        objectsLostCounted);
    out.println();
    out.println(
        "final check (acknowledged = put returned / batch listed it stored; never evicted: below the "
            + "watermark and pinned before each eviction burst):");
    if (check == null) {
      out.println("  not run");
    } else {
      out.printf(
          Locale.ROOT,
          "  acknowledged objects checked byte for byte %8d   lost %d   wrong %d%n",
          check.acknowledged(),
          check.lost().size(),
          check.wrong().size());
      out.printf(
          Locale.ROOT,
          "  failed puts/removes (absent or whole)      %8d   present and whole %d%n",
          check.uncertain(),
          check.uncertainPresent());
      out.printf(
          Locale.ROOT,
          "  removed keys (must stay absent)            %8d   readable again %d%n",
          check.removed(),
          check.resurrected().size());
      out.printf(
          Locale.ROOT,
          "  unreadable (no read succeeded)             %8d%n",
          check.unreadable().size());
    }
    out.println();
    if (gauges == null) {
      out.println("gauges vs full scan: not compared (the pool did not settle)");
    } else if (!gauges.available()) {
      out.println("gauges vs full scan: " + gauges.note());
    } else {
      out.printf(
          Locale.ROOT,
          "gauges vs full scan (leader %s): objects %d / objectCount %d, pending %d / %d, "
              + "under-replicated %d / %d: %s%n",
          gauges.leader(),
          gauges.scan().objects(),
          gauges.status().objectCount(),
          gauges.scan().pending(),
          gauges.status().counters().pendingObjects(),
          gauges.scan().underReplicated(),
          gauges.status().counters().underReplicated(),
          gauges.mismatches().isEmpty() ? "equal" : "DIFFERENT");
    }
    out.println();
    out.println(
        "resources (private RSS = VmRSS less the nodes' value files on tmpfs; baseline after the warm-up, or "
            + "after a restart once warm or a role change once settled, so each row compares one "
            + "process in one role; flagged above +10 % and +16 MiB / +16 fds):");
    out.printf(
        Locale.ROOT,
        "  %-10s %8s %8s %-20s %-22s %-22s %-14s %s%n",
        "process",
        "pid",
        "restarts",
        "role (changes)",
        "private RSS MiB",
        "VmRSS MiB",
        "fds",
        "verdict");
    for (ResourceTracker.Judgement j : resources) {
      ResourceTracker.Track t = j.track();
      String verdict =
          (!j.judged() ? "not judged (baseline too recent)" : j.flagged() ? "GREW" : "flat")
              + (j.ended() ? " (an ended stretch in this role: RSS only)" : "");
      out.printf(
          Locale.ROOT,
          "  %-10s %8d %8d %-20s %-22s %-22s %-14s %s%n",
          t.name(),
          t.pid(),
          restarts.getOrDefault(t.name(), 0),
          t.role() + " (" + roleChanges.getOrDefault(t.name(), 0) + ")",
          t.baseline() == null
              ? "-"
              : (t.baseline().privateKiB() >> 10) + " -> " + (t.last().privateKiB() >> 10),
          t.baseline() == null
              ? "-"
              : (t.baseline().rssKiB() >> 10) + " -> " + (t.last().rssKiB() >> 10),
          t.baseline() == null ? "-" : t.baseline().fds() + " -> " + t.last().fds(),
          verdict);
    }
    if (budgetsUnavailable) {
      out.println(
          "body budgets: not judged (a server has no kvpool_body_budget_available_bytes gauge)");
    } else {
      StringBuilder b = new StringBuilder("body budgets available at the end (MiB, of whole): ");
      budgets.values().stream()
          .sorted(Comparator.comparing(BudgetTracker.Reading::name))
          .forEach(
              r ->
                  b.append(
                      String.format(
                          Locale.ROOT,
                          "%s %.1f/%.1f  ",
                          r.name(),
                          r.last() / 1048576.0,
                          r.whole() / 1048576.0)));
      out.println(b.toString().strip());
    }
    out.println();
    if (violations() == 0) {
      out.println("violations: 0");
    } else {
      out.println("violations: " + violations());
      violationCounts.forEach(
          (category, n) -> {
            out.printf(Locale.ROOT, "  %s: %d%n", category, n);
            violationDetails.getOrDefault(category, List.of()).stream()
                .limit(5)
                .forEach(d -> out.println("    " + d));
          });
    }
    out.println("logs of every process: " + logDir);
  }

  private static String abbreviate(String s) {
    String line = s == null ? "" : s.lines().findFirst().orElse("");
    return line.length() > 240 ? line.substring(0, 237) + "..." : line;
  }

  static Duration median(List<Duration> sorted) {
    if (sorted.isEmpty()) {
      return Duration.ZERO;
    }
    int n = sorted.size();
    return n % 2 == 1
        ? sorted.get(n / 2)
        : sorted.get(n / 2 - 1).plus(sorted.get(n / 2)).dividedBy(2);
  }

  private static String seconds(Duration d) {
    return String.format(Locale.ROOT, "%.1f s", d.toMillis() / 1000.0);
  }

  private static String minutes(Duration d) {
    return String.format(Locale.ROOT, "%.1f min", d.toMillis() / 60000.0);
  }
}
