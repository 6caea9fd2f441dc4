package io.kvpool.bench.compare;

import io.kvpool.cli.FreePorts;
import io.kvpool.cli.LocalPool;
import io.kvpool.cli.LocalPoolConfig;
import io.kvpool.cli.StatusTable;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * The {@code events} workload of {@code kvpool bench compare}: put throughput of two local pools of
 * the same shape, one whose master publishes KV events (docs/events.md) to a subscriber that reads
 * and applies every batch, one without events; the pools take turns round by round (the first of
 * each round alternates), so that every ratio compares figures of the same minutes. Prints the
 * rounds and the issue's goal (on / off &gt;= 0.95, printed, never asserted) and writes them to
 * {@code benchmarks-events.md} in the report folder.
 */
public final class EventsComparison {
  /** The workload's name in {@code --workloads}. */
  public static final String WORKLOAD = "events";

  private static final int NODES = 2;
  private static final double GOAL = 0.95;

  /**
   * What to run.
   *
   * @param memoryPerNode each storage node's memory (both pools)
   * @param valueBytes the values' size
   * @param clients client threads putting
   * @param rounds measured rounds (each puts on both pools)
   * @param seconds length of each put phase
   * @param outputDir where {@code benchmarks-events.md} goes
   */
  public record Settings(
      long memoryPerNode, int valueBytes, int clients, int rounds, double seconds, Path outputDir) {

    public static Settings of(boolean quick, Path outputDir) {
      return quick
          ? new Settings(128L << 20, 4 << 10, 4, 2, 1.5, outputDir)
          : new Settings(512L << 20, 4 << 10, 4, 5, 4, outputDir);
    }

    /** Puts one phase may make at most: 40 % of the pool, well under the eviction watermark. */
    long maxPuts() {
      return (long) (0.4 * NODES * memoryPerNode / valueBytes);
    }
  }

  private final Settings s;
  private final PrintStream out;
  private final List<String> outOfStep = new ArrayList<>();
  private EventsSubscriber subscriber;

  public EventsComparison(Settings settings, PrintStream out) {
    this.s = settings;
    this.out = out;
  }

  /** Runs both pools round by round; returns the written report. */
  public Path run() throws Exception {
    out.printf(
        Locale.ROOT,
        "events: two pools of %d storage nodes x %s, one with KV events and a subscriber; %d"
            + " rounds of %.1f s puts of %s values from %d client threads (R=1)%n",
        NODES,
        StatusTable.bytes(s.memoryPerNode()),
        s.rounds(),
        s.seconds(),
        Workload.size(s.valueBytes()),
        s.clients());
    int pubPort = FreePorts.take();
    int replayPort = FreePorts.take();
    List<String> rows = new ArrayList<>();
    double[] on = new double[s.rounds()];
    double[] off = new double[s.rounds()];
    String subscriberCheck;
    try (LocalPool offPool = start("eventsoff", -1, -1);
        LocalPool onPool = start("eventson", pubPort, replayPort);
        PutLoad offLoad = new PutLoad(offPool.masterAddress(), "off", s.valueBytes(), s.clients());
        PutLoad onLoad = new PutLoad(onPool.masterAddress(), "on", s.valueBytes(), s.clients());
        EventsSubscriber following =
            new EventsSubscriber("127.0.0.1", pubPort, replayPort, "kv@pool:eventson@")) {
      subscriber = following.start();
      out.println("events: warm-up round (not measured)");
      phase(offLoad, 0);
      phase(onLoad, 0);
      for (int round = 1; round <= s.rounds(); round++) {
        String load =
            String.join(
                " ", Arrays.asList(Machine.read("/proc/loadavg").split("\\s+")).subList(0, 3));
        boolean offFirst = round % 2 == 1;
        for (int turn = 0; turn < 2; turn++) {
          boolean events = offFirst == (turn == 1);
          PutLoad.Phase p = events ? phase(onLoad, round) : phase(offLoad, round);
          (events ? on : off)[round - 1] = p.opsPerSecond();
          String row =
              String.format(
                  Locale.ROOT,
                  "| %d | %s | %.0f | %d | %d | %s |",
                  round,
                  events ? "on" : "off",
                  p.opsPerSecond(),
                  p.puts(),
                  p.failures(),
                  load);
          rows.add(row);
          out.println("  " + row);
        }
      }
      subscriberCheck =
          String.format(
              Locale.ROOT,
              "The subscriber applied %d batches of %d events and healed %d gaps by replay. After"
                  + " each put phase on the events pool it held %s.",
              subscriber.batches(),
              subscriber.events(),
              subscriber.gaps(),
              outOfStep.isEmpty()
                  ? "exactly as many block hashes as the master had objects"
                  : "a different count than the master's objects: " + String.join("; ", outOfStep));
    }
    // the goal is judged on each round's on / off, two figures of the same minutes; the medians of
    // each setting over all rounds follow the machine's drift (the JIT, other load) as well
    double[] perRound = new double[s.rounds()];
    for (int r = 0; r < s.rounds(); r++) {
      perRound[r] = off[r] == 0 ? 0 : on[r] / off[r];
    }
    double ratio = median(perRound);
    String goal =
        String.format(
            Locale.ROOT,
            "| put ops/s with KV events on (a subscriber reading) >= %.2fx off | %s | median of the"
                + " rounds' on / off %.2f (rounds %s); median on %.0f, median off %.0f |",
            GOAL,
            ratio >= GOAL ? "met" : "NOT met",
            ratio,
            String.join(
                ", ",
                Arrays.stream(perRound)
                    .mapToObj(x -> String.format(Locale.ROOT, "%.2f", x))
                    .toList()),
            median(on),
            median(off));
    return report(rows, goal, subscriberCheck);
  }

  /**
   * One put phase on one pool; then removes its objects (not measured), so that every phase starts
   * on an empty pool. On the events pool it waits until the subscriber holds the pool's objects,
   * after the puts and after the removal: otherwise the subscriber would still be applying the
   * removal's events during the other pool's next phase, on the same cores.
   */
  private PutLoad.Phase phase(PutLoad load, int round) throws Exception {
    PutLoad.Phase p = load.put("r" + round + "/", s.seconds(), s.maxPuts());
    boolean events = load.name().equals("on");
    if (events) {
      awaitSubscriber(load, round);
    }
    load.removeAll();
    if (events) {
      awaitSubscriber(load, round);
    }
    return p;
  }

  /**
   * Waits until the subscriber holds as many block hashes as the master holds objects (values put
   * without metadata are announced by one hash each, their key); a count still different after 60 s
   * is reported, not thrown.
   */
  private void awaitSubscriber(PutLoad load, int round) throws InterruptedException {
    long objects = load.objects();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (subscriber.held() != objects && System.nanoTime() < deadline) {
      if (subscriber.failure() != null) {
        throw new IllegalStateException("the events subscriber failed", subscriber.failure());
      }
      Thread.sleep(20); // polling a counter the subscriber's thread sets; the deadline is 60 s
    }
    if (subscriber.held() != objects) {
      String miss =
          String.format(
              Locale.ROOT,
              "round %d: %d hashes for %d objects after 60 s",
              round,
              subscriber.held(),
              objects);
      outOfStep.add(miss);
      out.println("events: the subscriber is out of step, " + miss);
    }
  }

  private LocalPool start(String poolId, int pubPort, int replayPort) {
    LocalPoolConfig.Builder b =
        LocalPool.builder()
            .poolId(poolId)
            .storageNodes(NODES)
            .memoryPerNode(Long.toString(s.memoryPerNode()));
    if (pubPort > 0) {
      b.masterOption("--events-port", Integer.toString(pubPort))
          .masterOption("--events-replay-port", Integer.toString(replayPort));
    }
    LocalPoolConfig config = b.build();
    out.println("events: pool " + poolId + " (logs in " + config.logDir() + ")");
    return config.start();
  }

  private static double median(double[] xs) {
    double[] sorted = xs.clone();
    Arrays.sort(sorted);
    int n = sorted.length;
    return n == 0 ? 0 : n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  }

  private Path report(List<String> rows, String goal, String subscriberCheck) throws IOException {
    StringBuilder md = new StringBuilder();
    md.append("## KV events: put throughput with events on and off (")
        .append(LocalDate.now(ZoneOffset.UTC))
        .append(")\n\n")
        .append(
            String.format(
                Locale.ROOT,
                "Two local pools of %d storage nodes x %s, started side by side; the master of one"
                    + " publishes KV events (--events-port) to a JeroMQ subscriber in the bench's JVM"
                    + " that decodes and applies every batch. Each round puts %s values (R=1, no"
                    + " block metadata) for %.1f s from %d client threads on each pool, the pools"
                    + " taking turns (the first alternates) after an unmeasured warm-up round of"
                    + " the same length. Every phase starts on an empty pool: its objects are"
                    + " removed after it, and on the events pool the subscriber has applied the"
                    + " puts' and the removal's events before the next phase starts. The"
                    + " subscriber shares the machine with the pools and the clients. Load average"
                    + " (1, 5, 15 min) when the round began.%n%n",
                NODES,
                StatusTable.bytes(s.memoryPerNode()),
                Workload.size(s.valueBytes()),
                s.seconds(),
                s.clients()))
        .append("| round | events | put ops/s | puts | failed | load average |\n")
        .append("| --- | --- | --- | --- | --- | --- |\n");
    rows.forEach(r -> md.append(r).append('\n'));
    md.append('\n').append(subscriberCheck).append("\n\n");
    md.append("| goal (printed, not asserted) | | figures |\n| --- | --- | --- |\n")
        .append(goal)
        .append('\n');
    out.println();
    out.print(md);
    Files.createDirectories(s.outputDir());
    Path file = s.outputDir().resolve("benchmarks-events.md");
    Files.writeString(file, md.toString());
    out.println("events report: " + file);
    return file;
  }
}
