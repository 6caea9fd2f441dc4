package io.kvpool.bench.compare;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The suite's report: {@code docs/benchmarks.md} (method, machine, the headline ratios, the goals,
 * every workload's figures) and {@code docs/benchmarks/results.json} (every measurement, which
 * {@code report.py} draws the charts from). Figures are medians over the rounds with their min-max;
 * a ratio is taken within each round (kvpool and the peer measured minutes apart at most) and then
 * its median is reported.
 */
final class Report {
  static final String KVPOOL = "kvpool";
  private static final String[] PEERS_OF_HEADLINE = {
    "loopback-stream", "memcached", "redis", "mooncake"
  };

  private final CompareSettings settings;
  private final List<Target> targets;
  private final Map<String, String> skipped;
  private final List<String> peerFailures;
  private final List<Measurement> results;
  private final List<double[]> load;
  private final Duration took;
  private final List<Workload> workloads;

  Report(
      CompareSettings settings,
      List<Target> targets,
      Map<String, String> skipped,
      List<String> peerFailures,
      List<Measurement> results,
      List<double[]> load,
      Duration took) {
    this.settings = settings;
    this.targets = targets;
    this.skipped = skipped;
    this.peerFailures = peerFailures;
    this.results = results;
    this.load = load;
    this.took = took;
    this.workloads = settings.workloads();
  }

  // ---- figures ----

  private List<Measurement> of(String workload, String target, String op) {
    List<Measurement> out = new ArrayList<>();
    for (Measurement m : results) {
      if (m.workload().equals(workload) && m.target().equals(target) && m.op().equals(op)) {
        out.add(m);
      }
    }
    return out;
  }

  private Measurement inRound(String workload, String target, String op, int round) {
    for (Measurement m : results) {
      if (m.round() == round
          && m.workload().equals(workload)
          && m.target().equals(target)
          && m.op().equals(op)) {
        return m;
      }
    }
    return null;
  }

  /** Median, min and max; NaNs when empty. */
  record Spread(double median, double min, double max, int n) {
    static Spread of(double[] v) {
      if (v.length == 0) {
        return new Spread(Double.NaN, Double.NaN, Double.NaN, 0);
      }
      double[] s = v.clone();
      Arrays.sort(s);
      double median =
          s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
      return new Spread(median, s[0], s[s.length - 1], s.length);
    }

    boolean present() {
      return n > 0;
    }

    String text(String format) {
      if (!present()) {
        return "–";
      }
      String m = String.format(Locale.ROOT, format, median);
      return n == 1
          ? m
          : m
              + " ("
              + String.format(Locale.ROOT, format, min)
              + "–"
              + String.format(Locale.ROOT, format, max)
              + ")";
    }
  }

  Spread gbps(String workload, String target, String op) {
    return Spread.of(
        of(workload, target, op).stream().mapToDouble(Measurement::gigabytesPerSecond).toArray());
  }

  Spread opsPerSecond(String workload, String target, String op) {
    return Spread.of(
        of(workload, target, op).stream().mapToDouble(Measurement::opsPerSecond).toArray());
  }

  /**
   * a ÷ b of GB/s (ops/s when no bytes move), within each round, over the rounds where both ran.
   */
  Spread ratio(String workload, String op, String a, String b, String opOfB) {
    List<Double> r = new ArrayList<>();
    for (int round = 1; round <= settings.rounds(); round++) {
      Measurement x = inRound(workload, a, op, round);
      Measurement y = inRound(workload, b, opOfB, round);
      if (x != null && y != null && y.opsPerSecond() > 0) {
        r.add(
            x.bytes() > 0 && y.bytes() > 0
                ? x.gigabytesPerSecond() / y.gigabytesPerSecond()
                : x.opsPerSecond() / y.opsPerSecond());
      }
    }
    return Spread.of(r.stream().mapToDouble(Double::doubleValue).toArray());
  }

  Spread ratio(String workload, String op, String a, String b) {
    return ratio(workload, op, a, b, op);
  }

  private double medianOf(
      List<Measurement> ms, java.util.function.ToDoubleFunction<Measurement> f) {
    return Spread.of(ms.stream().mapToDouble(f).toArray()).median();
  }

  private boolean ran(String target) {
    return results.stream().anyMatch(m -> m.target().equals(target));
  }

  // ---- goals ----

  /** One goal of issues 15 and 34, evaluated on this run. */
  record Goal(String text, String measured, Boolean met) {}

  List<Goal> goals() {
    List<Goal> out = new ArrayList<>();
    String m1c8 = Workload.single(1 << 20, 8).id();
    List<String> parts = new ArrayList<>();
    Boolean met = true;
    for (String op : List.of("get", "put")) {
      Spread s = ratio(m1c8, op, KVPOOL, "memcached");
      parts.add(op + " " + s.text("%.2f"));
      met = and(met, s, 1.0);
    }
    out.add(
        new Goal(
            "1 MiB get and put with 8 clients ≥ 1.0× memcached", String.join(", ", parts), met));

    Workload k64c4 = Workload.single(64 << 10, 4);
    Spread small = ratio(k64c4.id(), "put", KVPOOL, "memcached");
    Spread smallExtents = ratio(k64c4.id(), "put", "kvpool-extents", "memcached");
    Spread ceiling = withOneMasterRequest(k64c4);
    out.add(
        new Goal(
            "64 KiB put with 4 clients ≥ 0.8× memcached",
            small.text("%.2f")
                + (smallExtents.present()
                    ? "; with extents (kvpool-extents, off by default) " + smallExtents.text("%.2f")
                    : "")
                + (ceiling.present()
                    ? "; the most a put that makes one master request besides its write reaches here"
                        + " while CPU sets throughput: "
                        + ceiling.text("%.2f")
                        + " (memcached's CPU per put ÷ a bare write exchange's, nio-rr, plus one"
                        + " master request's, Exists from 4 clients, in each round)"
                    : ""),
            and(true, small, 0.8)));

    parts = new ArrayList<>();
    met = true;
    List<String> sendfileParts = new ArrayList<>();
    List<String> oneNodeParts = new ArrayList<>();
    for (Workload w : workloads) {
      if (w.kind() == Workload.Kind.SINGLE && w.valueSize() == 1 << 20) {
        List<Measurement> ours = of(w.id(), KVPOOL, "get");
        List<Measurement> theirs = of(w.id(), "memcached", "get");
        if (ours.isEmpty() || theirs.isEmpty()) {
          met = null;
          continue;
        }
        double storage = medianOf(ours, m -> m.cpuMicrosPerOp().getOrDefault("storage", 0.0));
        double memcached = medianOf(theirs, m -> m.cpuMicrosPerOp().getOrDefault("memcached", 0.0));
        parts.add(String.format(Locale.ROOT, "%s %.0f vs %.0f µs", w.label(), storage, memcached));
        met = met == null ? null : met && storage <= memcached;
        storageCpu(w, CompareSuite.SENDFILE, sendfileParts);
        storageCpu(w, CompareSuite.ONE_NODE, oneNodeParts);
      }
    }
    out.add(
        new Goal(
            "a storage node's CPU per 1 MiB get ≤ memcached's (storage vs memcached µs/op, medians)",
            String.join("; ", parts)
                + (sendfileParts.isEmpty()
                    ? ""
                    : "; with sendfile ("
                        + CompareSuite.SENDFILE
                        + ", off by default) "
                        + String.join("; ", sendfileParts)
                        + " µs")
                + (oneNodeParts.isEmpty()
                    ? ""
                    : "; a pool of one storage node ("
                        + CompareSuite.ONE_NODE
                        + ", one server process as memcached's) "
                        + String.join("; ", oneNodeParts)
                        + " µs"),
            met));

    parts = new ArrayList<>();
    met = true;
    for (Workload w : workloads) {
      if (w.kind() == Workload.Kind.BATCH && w.valueSize() == 64 << 10) {
        Spread s = ratio(w.id(), "get", KVPOOL, "memcached");
        parts.add(w.label() + ": " + s.text("%.2f"));
        met = and(met, s, 1.0);
      }
    }
    out.add(new Goal("64 KiB batch get ≥ 1.0× memcached multi-get", String.join("; ", parts), met));

    String m1c1 = Workload.single(1 << 20, 1).id();
    Spread stream = ratio(m1c1, "get", KVPOOL, "loopback-stream");
    Spread bare = ratio(m1c1, "get", "nio-rr", "loopback-stream");
    out.add(
        new Goal(
            "1 MiB get on one connection ≥ 0.9× the raw loopback stream",
            stream.text("%.2f")
                + (bare.present()
                    ? "; a bare request/response (nio-rr, no protocol) in the same rounds "
                        + bare.text("%.2f")
                    : ""),
            and(true, stream, 0.9)));

    parts = new ArrayList<>();
    met = true;
    for (Workload w : workloads) {
      if (w.kind() == Workload.Kind.SINGLE && w.valueSize() == 1 << 20) {
        for (String op : List.of("put", "get")) {
          Spread s = ratio(w.id(), op, KVPOOL, "redis");
          parts.add(w.label() + " " + op + " " + s.text("%.2f"));
          met = and(met, s, 1.5);
        }
      }
    }
    out.add(new Goal("≥ 1.5× Redis on every 1 MiB row", String.join("; ", parts), met));

    out.add(aheadOnEveryRow("redis", "Redis"));

    out.add(aheadOnEveryRow("mooncake", "Mooncake Store"));
    return out;
  }

  /**
   * Per round, memcached's CPU per put on {@code w} ÷ the CPU of a bare write exchange (nio-rr's
   * put) plus one request to kvpool's master (an Exists from as many clients): the most a put that
   * makes at least one master request besides its write (a PUT_START, or a node's commit) can reach
   * against memcached while CPU sets throughput, as it does when every core is busy.
   */
  Spread withOneMasterRequest(Workload w) {
    String exists = Workload.meta(Workload.MetaOp.EXISTS, w.clients()).id();
    List<Double> r = new ArrayList<>();
    for (int round = 1; round <= settings.rounds(); round++) {
      Measurement memcached = inRound(w.id(), "memcached", "put", round);
      Measurement write = inRound(w.id(), "nio-rr", "put", round);
      Measurement request = inRound(exists, "kvpool-master", "op", round);
      if (memcached != null && write != null && request != null) {
        double floor = write.totalCpuMicrosPerOp() + request.totalCpuMicrosPerOp();
        if (floor > 0) {
          r.add(memcached.totalCpuMicrosPerOp() / floor);
        }
      }
    }
    return Spread.of(r.stream().mapToDouble(Double::doubleValue).toArray());
  }

  /**
   * Adds "{@code workload} µs", the median storage-node CPU per get of {@code target} on {@code w},
   * to {@code parts} when that target ran it.
   */
  private void storageCpu(Workload w, String target, List<String> parts) {
    List<Measurement> ms = of(w.id(), target, "get");
    if (!ms.isEmpty()) {
      parts.add(
          String.format(
              Locale.ROOT,
              "%s %.0f",
              w.label(),
              medianOf(ms, m -> m.cpuMicrosPerOp().getOrDefault("storage", 0.0))));
    }
  }

  /** kvpool ahead of {@code peer} on every put and get row where the peer ran. */
  private Goal aheadOnEveryRow(String peer, String name) {
    Boolean met = true;
    List<String> behind = new ArrayList<>();
    for (Workload w : workloads) {
      if (w.kind() == Workload.Kind.META) {
        continue;
      }
      for (String op : List.of("put", "get")) {
        Spread s = ratio(w.id(), op, KVPOOL, peer);
        if (s.present()) {
          met = and(met, s, 1.0000001);
          if (s.median() < 1.0) {
            behind.add(w.label() + " " + op + " " + s.text("%.2f"));
          }
        }
      }
    }
    if (!ran(peer)) {
      met = null;
    }
    return new Goal(
        "ahead of " + name + " on every row where it runs",
        met == null
            ? name + " did not run: " + skipped.getOrDefault(peer, "not selected")
            : behind.isEmpty()
                ? "ahead on every row (table below)"
                : "behind on " + String.join("; ", behind),
        met);
  }

  private static Boolean and(Boolean acc, Spread s, double threshold) {
    if (!s.present()) {
      return null;
    }
    return acc == null ? null : acc && s.median() >= threshold;
  }

  // ---- output ----

  Path write() throws IOException {
    Path dir = settings.outputDir();
    Path data = dir.resolve("benchmarks");
    Files.createDirectories(data);
    writeJson(data.resolve("results.json"));
    Path md = dir.resolve("benchmarks.md");
    Files.writeString(md, markdown());
    return md;
  }

  private void writeJson(Path file) throws IOException {
    Map<String, Object> root = new LinkedHashMap<>();
    root.put("generated", ZonedDateTime.now().format(DateTimeFormatter.ISO_OFFSET_DATE_TIME));
    root.put("seconds", took.toSeconds());
    root.put("rounds", settings.rounds());
    root.put("workingSetBytes", settings.phase().workingSetBytes());
    root.put("machine", Machine.describe());
    root.put("load", load);
    List<Map<String, Object>> ws = new ArrayList<>();
    for (Workload w : workloads) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("id", w.id());
      m.put("kind", w.kind().name());
      m.put("label", w.label());
      m.put("valueSize", w.valueSize());
      m.put("clients", w.clients());
      m.put("batch", w.batch());
      ws.add(m);
    }
    root.put("workloads", ws);
    List<Map<String, Object>> ts = new ArrayList<>();
    for (Target t : targets) {
      ts.add(Map.of("name", t.name(), "family", t.family().name(), "description", t.description()));
    }
    root.put("targets", ts);
    root.put("skipped", skipped);
    root.put("peerFailures", peerFailures);
    List<Map<String, Object>> ms = new ArrayList<>();
    for (Measurement m : results) {
      Map<String, Object> x = new LinkedHashMap<>();
      x.put("workload", m.workload());
      x.put("target", m.target());
      x.put("op", m.op());
      x.put("round", m.round());
      x.put("ops", m.ops());
      x.put("bytes", m.bytes());
      x.put("wallNanos", m.wallNanos());
      x.put("gbps", m.gigabytesPerSecond());
      x.put("opsPerSecond", m.opsPerSecond());
      x.put("latencyMicros", m.latencyMicros());
      x.put("cpuMicrosPerOp", m.cpuMicrosPerOp());
      x.put("jitMicrosPerOp", m.cpu().jitMicros());
      x.put("jitLowerBound", m.cpu().jitLowerBound());
      x.put("notes", m.notes());
      ms.add(x);
    }
    root.put("measurements", ms);
    new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(file.toFile(), root);
  }

  String markdown() {
    StringBuilder b = new StringBuilder();
    b.append("# kvpool benchmarks\n\n");
    b.append("Written by `./kvpool bench compare` (")
        .append(
            ZonedDateTime.now()
                .format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm z", Locale.ROOT)))
        .append(", ")
        .append(took.toMinutes())
        .append(" min ")
        .append(took.toSecondsPart())
        .append(
            " s). Do not edit: run the command again; it rewrites this"
                + " page, `benchmarks/results.json` and the charts.\n\n");
    method(b);
    machine(b);
    headline(b);
    goalsTable(b);
    variants(b);
    b.append("## Charts\n\n");
    for (String[] c :
        new String[][] {
          {"throughput-vs-size.png", "GB/s vs value size, 4 clients"},
          {"throughput-vs-clients.png", "GB/s vs clients, 1 MiB values"},
          {"latency.png", "latency percentiles, 1 MiB x 4 clients"},
          {"cpu.png", "CPU µs per operation by process, 1 MiB x 4 clients"},
          {"batch.png", "inference-shaped batches"},
          {"metadata.png", "master metadata throughput vs clients"}
        }) {
      b.append("![").append(c[1]).append("](benchmarks/").append(c[0]).append(")\n\n");
    }
    details(b);
    metadata(b);
    return b.toString();
  }

  private void method(StringBuilder b) {
    Phase p = settings.phase();
    b.append("## Method\n\n");
    b.append(
            "Everything runs on this machine over 127.0.0.1 at once: a kvpool pool (one master, two storage nodes"
                + " as separate JVMs; for the target kvpool-sendfile a second pool of the same shape, for"
                + " kvpool-one-node a pool of one master and one storage node, each idle while the others run), the peers' servers and the benchmark's clients. **Targets are interleaved**: each of ")
        .append(settings.rounds())
        .append(
            " rounds runs every workload on every target, one after the other, in an"
                + " order rotated by round; a ratio kvpool ÷ peer is taken within a round and its median over the rounds is"
                + " reported with its min–max. Absolute figures drift with the machine's load; ratios of the same round much"
                + " less.")
        .append(
            settings.warmUp()
                ? " Before round 1 an untimed warm-up round runs every workload on every"
                    + " target once, so that the JVMs (the pool's and the benchmark's) have compiled their paths before anything is"
                    + " measured."
                : " This run skipped the warm-up round (`--no-warm-up`): round 1 includes JIT compilation.")
        .append("\n\n");
    b.append(
        String.format(
            Locale.ROOT,
            "- **Single values**: N client threads (processes for the Python targets),"
                + " each with its own connection or client. A *put* phase writes a working set of %s once under fresh keys"
                + " (at most %.1f s); a *get* phase reads those keys for %.1f s in each client's order, starting at a random"
                + " key. The working set is larger than the CPU caches (see Machine), so values come from memory. Every value"
                + " read is checked (length and an 8-byte stamp of its key); kvpool also checks each value's CRC32C, as it always"
                + " does.%n",
            Workload.size(p.workingSetBytes()),
            p.putMaxSeconds(),
            p.getSeconds()));
    b.append(
        "- **Batches** (the shape of an inference request's prefix): each client puts its share of the working"
            + " set as batches of consecutive blocks, then fetches random whole batches, each as one request: kvpool's"
            + " `getBatch`/`putBatch`, memcached's multi-key `get` (pipelined `set`s), Redis's `MGET` (pipelined"
            + " `SET`s), Mooncake's `batch_get_into`/`batch_put_from`. A batch counts as one operation.\n");
    b.append(
        "- **Keys** of a run are removed (untimed) before the same target's next run, a whole cycle of the"
            + " other targets later (kvpool's read leases have expired by then).\n");
    b.append(
        "- **Machine limits** in the same rounds: `loopback-stream` (a one-way TCP stream of value-sized"
            + " messages per client: no request, reply or protocol — the ceiling of one connection), `nio-rr` (one"
            + " request and one reply per operation over plain NIO, values in the server's memory) and `memcpy`"
            + " (value-sized copies between two working-set-sized regions).\n");
    b.append(
            "- **CPU µs per operation** by process, user + system, read before and after each phase ")
        .append(
            Cpu.precise()
                ? "from each process's CPU clock (`clock_gettime`, nanoseconds, every thread of the process)"
                : "from `/proc` (scheduler ticks of 10 ms: coarse for the short put phases)")
        .append(
            ": the"
                + " benchmark JVM (`client`; for the limits client and server share it), kvpool's `master` and `storage`"
                + " nodes, `redis-server`, `memcached`, Mooncake's `master` and `storage` processes; for the Python targets"
                + " `client` is the worker processes. On 2 cores throughput follows CPU per operation.")
        .append(
            " For each JVM the figure is followed by the part its JIT compiler threads took, \"(JIT"
                + " n)\" (C1 and C2 `CompilerThread`s, nanoseconds on CPU from"
                + " `/proc/<pid>/task/<tid>/schedstat`, read at the same two moments; \">=\" where a"
                + " compiler thread exited during the phase, its time since the first read unknown):"
                + " compilation, not the cost of an operation once compiled.\n");
    b.append(
        "- **Latency**: per operation (per batch), p50/p90/p99/p99.9 over all clients of a phase.\n");
    b.append(
        "- GB/s are 10^9 bytes of values per second of wall time (a put with R=2 stores each value twice but"
            + " counts it once).\n\n");
    b.append("Targets:\n\n");
    for (Target t : targets) {
      b.append("- `")
          .append(t.name())
          .append("` (")
          .append(t.family().name().toLowerCase(Locale.ROOT))
          .append("): ")
          .append(t.description())
          .append('\n');
    }
    skipped.forEach(
        (t, why) ->
            b.append("- `").append(t).append("`: **did not run**: ").append(why).append('\n'));
    b.append('\n');
    if (!peerFailures.isEmpty()) {
      b.append(
          "Peers that failed a run (run again once; a second failure leaves that run out of the figures):\n\n");
      peerFailures.forEach(f -> b.append("- ").append(f).append('\n'));
      b.append('\n');
    }
  }

  private void machine(StringBuilder b) {
    b.append("## Machine\n\n");
    Machine.describe()
        .forEach((k, v) -> b.append("- ").append(k).append(": ").append(v).append('\n'));
    if (!load.isEmpty()) {
      b.append("- load average (1/5/15 min) at the start of each round: ")
          .append(
              load.stream()
                  .map(l -> String.format(Locale.ROOT, "%.1f/%.1f/%.1f", l[0], l[1], l[2]))
                  .collect(Collectors.joining(", ")))
          .append(
              " — the machine is shared with other builds, so absolute"
                  + " figures move between runs\n");
    }
    b.append('\n');
  }

  private void headline(StringBuilder b) {
    b.append("## Headline: kvpool ÷ peer in the same round\n\n");
    b.append(
        "kvpool = the Java client, R=1. GB/s of kvpool (median, min–max), then kvpool's GB/s ÷ the target's"
            + " in the same round (median of the rounds, min–max). Above 1: kvpool is faster.\n\n");
    b.append("| workload | op | kvpool GB/s |");
    for (String p : PEERS_OF_HEADLINE) {
      b.append(" ÷ ").append(p).append(" |");
    }
    b.append(" kvpool-py ÷ mooncake |\n|---|---|---|");
    b.append("---|".repeat(PEERS_OF_HEADLINE.length + 1)).append('\n');
    for (Workload w : workloads) {
      if (w.kind() == Workload.Kind.META) {
        continue;
      }
      for (String op : List.of("put", "get")) {
        b.append("| ")
            .append(w.label())
            .append(" | ")
            .append(op)
            .append(" | ")
            .append(gbps(w.id(), KVPOOL, op).text("%.2f"))
            .append(" |");
        for (String p : PEERS_OF_HEADLINE) {
          b.append(' ').append(ratio(w.id(), op, KVPOOL, p).text("%.2f")).append(" |");
        }
        b.append(' ')
            .append(ratio(w.id(), op, "kvpool-py", "mooncake").text("%.2f"))
            .append(" |\n");
      }
    }
    b.append('\n');
  }

  private void goalsTable(StringBuilder b) {
    b.append(
        "## Goals (issues 15 and 34)\n\n| goal | measured (kvpool ÷ target, median of rounds, min–max) | met |\n"
            + "|---|---|---|\n");
    for (Goal g : goals()) {
      b.append("| ")
          .append(g.text())
          .append(" | ")
          .append(g.measured())
          .append(" | ")
          .append(g.met() == null ? "not measured" : g.met() ? "**yes**" : "no")
          .append(" |\n");
    }
    b.append('\n');
  }

  /** kvpool's client variants against the default, same rounds: what each shortcut is worth. */
  private void variants(StringBuilder b) {
    List<String> others = new ArrayList<>();
    for (Target t : targets) {
      if (t.family() == Target.Family.KVPOOL
          && !t.name().equals(KVPOOL)
          && !t.name().equals("kvpool-master")) {
        others.add(t.name());
      }
    }
    if (others.isEmpty()) {
      return;
    }
    b.append("## kvpool variants in the same rounds: what each shortcut is worth\n\n");
    b.append(
        "kvpool's GB/s (default Java client, R=1: every shortcut on) ÷ the variant's in the same round, median"
            + " (min–max): above 1, the shortcut the variant turns off makes kvpool faster. kvpool-r2 stores every value"
            + " twice; kvpool-sendfile is the other way round, an option the default leaves off (sendfile for gets, on a"
            + " second pool): above 1, kvpool is faster without it. kvpool-one-node is the default client on a pool of"
            + " one storage node: above 1, the suite's pool of two is faster.\n\n");
    b.append("| workload | op |");
    others.forEach(o -> b.append(" kvpool ÷ ").append(o).append(" |"));
    b.append("\n|---|---|").append("---|".repeat(others.size())).append('\n');
    for (Workload w : workloads) {
      if (w.kind() == Workload.Kind.META) {
        continue;
      }
      for (String op : List.of("put", "get")) {
        b.append("| ").append(w.label()).append(" | ").append(op).append(" |");
        for (String o : others) {
          b.append(' ').append(ratio(w.id(), op, KVPOOL, o).text("%.2f")).append(" |");
        }
        b.append('\n');
      }
    }
    b.append('\n');
  }

  private void details(StringBuilder b) {
    b.append("## Every workload\n\n");
    b.append(
        "Median of the rounds (min–max for GB/s); latency in µs; CPU µs per operation, total and by process"
            + " (JIT compilation in it, for the JVMs); last column kvpool's GB/s ÷ the target's in the same"
            + " round.\n\n");
    for (Workload w : workloads) {
      if (w.kind() == Workload.Kind.META) {
        continue;
      }
      b.append("### ").append(w.label()).append("\n\n");
      b.append(
          "| target | op | GB/s | ops/s | p50 / p90 / p99 / p99.9 µs | CPU µs/op | by process | kvpool ÷ |\n"
              + "|---|---|---|---|---|---|---|---|\n");
      for (Target t : targets) {
        for (String op : List.of("put", "get", "copy")) {
          List<Measurement> ms = of(w.id(), t.name(), op);
          if (ms.isEmpty()) {
            continue;
          }
          double[] lat = new double[4];
          for (int i = 0; i < 4; i++) {
            int k = i;
            lat[i] = medianOf(ms, m -> m.latencyMicros()[k]);
          }
          Set<String> groups = new LinkedHashSet<>(ms.get(0).cpuMicrosPerOp().keySet());
          String byProcess =
              groups.stream()
                  .map(
                      g ->
                          CpuPerOp.label(
                              g,
                              medianOf(ms, m -> m.cpuMicrosPerOp().getOrDefault(g, 0.0)),
                              ms.stream().anyMatch(m -> m.cpu().jitMicros().containsKey(g))
                                  ? medianOf(ms, m -> m.cpu().jitMicros().getOrDefault(g, 0.0))
                                  : null,
                              ms.stream().anyMatch(m -> m.cpu().jitLowerBound().contains(g))))
                  .collect(Collectors.joining(", "));
          String vs =
              t.name().equals(KVPOOL) || op.equals("copy")
                  ? ""
                  : ratio(w.id(), op, KVPOOL, t.name()).text("%.2f");
          b.append("| ")
              .append(t.name())
              .append(" | ")
              .append(op)
              .append(" | ")
              .append(gbps(w.id(), t.name(), op).text("%.2f"))
              .append(" | ")
              .append(String.format(Locale.ROOT, "%.0f", medianOf(ms, Measurement::opsPerSecond)))
              .append(" | ")
              .append(
                  lat[0] == 0 && lat[3] == 0
                      ? "–"
                      : String.format(
                          Locale.ROOT, "%.0f / %.0f / %.0f / %.0f", lat[0], lat[1], lat[2], lat[3]))
              .append(" | ")
              .append(
                  String.format(
                      Locale.ROOT, "%.0f", medianOf(ms, Measurement::totalCpuMicrosPerOp)))
              .append(" | ")
              .append(byProcess)
              .append(" | ")
              .append(vs)
              .append(" |\n");
        }
      }
      String held = heldLists(w.id());
      if (held != null) {
        b.append('\n').append(held).append('\n');
      }
      b.append('\n');
    }
  }

  /**
   * How kvpool's gets of a workload found their replicas (the client's location cache), or null.
   */
  private String heldLists(String workload) {
    long hits = 0;
    long misses = 0;
    long stale = 0;
    for (Measurement m : of(workload, KVPOOL, "get")) {
      hits += ((Number) m.notes().getOrDefault("locationCacheHits", 0L)).longValue();
      misses += ((Number) m.notes().getOrDefault("locationCacheMisses", 0L)).longValue();
      stale += ((Number) m.notes().getOrDefault("locationCacheStale", 0L)).longValue();
    }
    if (hits + misses == 0) {
      return null;
    }
    return String.format(
        Locale.ROOT,
        "kvpool's get phases read %.0f%% of their values with a replica list the client"
            + " already held (no master round trip; %d of %d gets, %d held lists refused by a node): %.1f gets per master"
            + " lookup; a list is kept for 80%% of the pool's 5 s read lease.",
        100.0 * hits / (hits + misses),
        hits,
        hits + misses,
        stale,
        (hits + misses) / Math.max(1.0, misses));
  }

  private void metadata(StringBuilder b) {
    if (!ran("kvpool-master")) {
      return;
    }
    b.append("## Master metadata throughput\n\n");
    b.append(
        "One request per operation for Exists and GetReplicaList (one key each, raw protocol, each client on"
            + " its own connection); for the batch an operation is one key of a 64-key `getBatch` of 1 KiB values (one"
            + " master request and one request per storage node per batch).\n\n");
    b.append(
        "| request | clients | ops/s | master CPU µs/op | client CPU µs/op | storage CPU µs/op | p50 / p99 µs per"
            + " request |\n|---|---|---|---|---|---|---|\n");
    for (Workload w : workloads) {
      if (w.kind() != Workload.Kind.META) {
        continue;
      }
      List<Measurement> ms = of(w.id(), "kvpool-master", "op");
      if (ms.isEmpty()) {
        continue;
      }
      b.append("| ")
          .append(w.metaOp().label)
          .append(" | ")
          .append(w.clients())
          .append(" | ")
          .append(opsPerSecond(w.id(), "kvpool-master", "op").text("%.0f"))
          .append(" | ")
          .append(
              String.format(
                  Locale.ROOT,
                  "%.1f",
                  medianOf(ms, m -> m.cpuMicrosPerOp().getOrDefault("master", 0.0))))
          .append(" | ")
          .append(
              String.format(
                  Locale.ROOT,
                  "%.1f",
                  medianOf(ms, m -> m.cpuMicrosPerOp().getOrDefault("client", 0.0))))
          .append(" | ")
          .append(
              String.format(
                  Locale.ROOT,
                  "%.1f",
                  medianOf(ms, m -> m.cpuMicrosPerOp().getOrDefault("storage", 0.0))))
          .append(" | ")
          .append(
              String.format(
                  Locale.ROOT,
                  "%.0f / %.0f",
                  medianOf(ms, m -> m.latencyMicros()[0]),
                  medianOf(ms, m -> m.latencyMicros()[2])))
          .append(" |\n");
    }
    b.append('\n');
  }

  /** The headline ratios and the goals, on the console. */
  void printHeadline(PrintStream out) {
    out.println();
    out.println(
        "kvpool (Java client, R=1) GB/s ÷ target's GB/s in the same round, median of "
            + settings.rounds()
            + " rounds:");
    out.printf(Locale.ROOT, "%-30s %-4s %9s", "workload", "op", "kvpool");
    for (String p : PEERS_OF_HEADLINE) {
      out.printf(Locale.ROOT, " %16s", p);
    }
    out.println();
    for (Workload w : workloads) {
      if (w.kind() == Workload.Kind.META) {
        continue;
      }
      for (String op : List.of("put", "get")) {
        out.printf(
            Locale.ROOT,
            "%-30s %-4s %9s",
            w.label(),
            op,
            gbps(w.id(), KVPOOL, op).text("%.2f").split(" ")[0]);
        for (String p : PEERS_OF_HEADLINE) {
          Spread s = ratio(w.id(), op, KVPOOL, p);
          out.printf(
              Locale.ROOT,
              " %16s",
              s.present() ? String.format(Locale.ROOT, "%.2f", s.median()) : "–");
        }
        out.println();
      }
    }
    out.println();
    for (Goal g : goals()) {
      out.println(
          (g.met() == null ? "[n/a] " : g.met() ? "[met] " : "[not met] ")
              + g.text()
              + ": "
              + g.measured());
    }
  }
}
