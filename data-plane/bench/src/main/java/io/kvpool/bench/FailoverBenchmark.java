package io.kvpool.bench;

import io.kvpool.admin.MasterStatus;
import io.kvpool.cli.AdminApi;
import io.kvpool.cli.LocalPool;
import io.kvpool.cli.LocalPoolConfig;
import io.kvpool.cli.PoolProcessException;
import io.kvpool.client.ClientConfig;
import io.kvpool.client.KvPoolClient;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;

/**
 * {@code kvpool bench failover}: a local pool of elected masters (on a Kubernetes Lease) and
 * storage nodes, filled with objects, whose leader is killed with SIGKILL again and again. Each run
 * prints leader kill → first successful put and leader kill → every object read back intact (see
 * {@link LeaderFailover}); the killed master is restarted and the pool settles (a serving leader,
 * every node alive, nothing under-replicated) before the next run. Ends with the median and maximum
 * next to the election's lease duration and Mooncake's reported client reattach time.
 */
public final class FailoverBenchmark {
  /**
   * Mooncake's users measured this long for clients to reattach after a master failover
   * (kvcache-ai/Mooncake#3740).
   */
  static final Duration MOONCAKE_REATTACH = Duration.ofSeconds(121);

  private static final String NAMESPACE_ON_TEST_SERVER = "kvpool-bench";
  private static final String POD_PREFIX = "bench-master";

  /**
   * What to run. {@code kubeconfig}: the API server to elect on; empty: start the test API server.
   * {@code namespace}: for the Lease (on the test server the bench uses its own).
   */
  public record Settings(
      Optional<Path> kubeconfig,
      String namespace,
      int masters,
      int storageNodes,
      long memoryPerNode,
      int objects,
      int valueSize,
      int replicas,
      int runs,
      Duration electionLease,
      Duration timeout) {}

  private FailoverBenchmark() {}

  public static void run(Settings settings, PrintStream out) {
    if (settings.kubeconfig().isEmpty()) {
      out.println(
          "kvpool bench failover: starting the test kube-apiserver for the election (test-kube; "
              + "up to a minute or more on a busy machine)");
    }
    try (ElectionApiServer api =
        settings
            .kubeconfig()
            .map(ElectionApiServer::fromKubeconfig)
            .orElseGet(ElectionApiServer::startTestServer)) {
      String namespace =
          settings.kubeconfig().isPresent() ? settings.namespace() : NAMESPACE_ON_TEST_SERVER;
      String lease =
          "kvpool-bench-failover-"
              + Long.toHexString(ThreadLocalRandom.current().nextLong() >>> 16);
      LocalPoolConfig.Election election =
          api.election(namespace, lease, settings.electionLease(), POD_PREFIX, settings.masters());
      LocalPoolConfig config =
          LocalPool.builder()
              .poolId("bench-failover")
              .masters(settings.masters(), election)
              .storageNodes(settings.storageNodes())
              .memoryPerNode(Long.toString(settings.memoryPerNode()))
              .build();
      out.printf(
          Locale.ROOT,
          "kvpool bench failover: %d masters electing on Lease %s/%s (lease %s) of %s; "
              + "%d storage nodes x %s; logs in %s%n",
          settings.masters(),
          namespace,
          lease,
          seconds(settings.electionLease()),
          api.description(),
          settings.storageNodes(),
          bytes(settings.memoryPerNode()),
          config.logDir());
      try (LocalPool pool = config.start()) {
        measure(pool, settings, out);
      } catch (PoolProcessException | BenchmarkFailedException e) {
        throw new BenchmarkFailedException(
            firstLine(e.getMessage()) + " (logs in " + config.logDir() + ")", e);
      }
    }
  }

  private static void measure(LocalPool pool, Settings settings, PrintStream out) {
    ClientConfig.Builder clients =
        ClientConfig.builder()
            .master(pool.masterAddress())
            .timeout(Duration.ofSeconds(10))
            .operationTimeout(settings.timeout());
    try (KvPoolClient loader =
            KvPoolClient.connect(clients.clientId("bench-failover-load").build());
        KvPoolClient writer = KvPoolClient.connect(clients.clientId("bench-failover-put").build());
        KvPoolClient reader =
            KvPoolClient.connect(clients.clientId("bench-failover-read").build())) {
      int leaderBefore = awaitSettled(pool, settings);
      long t0 = System.nanoTime();
      StoredObjects objects =
          StoredObjects.fill(
              loader,
              "failover/object-",
              settings.objects(),
              settings.valueSize(),
              settings.replicas(),
              42);
      out.printf(
          Locale.ROOT,
          "stored %d objects of %s with %d replicas in %s%n",
          objects.size(),
          bytes(settings.valueSize()),
          settings.replicas(),
          seconds(Duration.ofNanos(System.nanoTime() - t0)));
      int leader = awaitSettled(pool, settings);
      requireAllReadable(objects, reader, leaderBefore, leader, settings);
      restartStandbys(pool, leader, settings);
      out.printf(
          Locale.ROOT,
          "%-4s %-9s %-11s %-17s %s%n",
          "run",
          "killed",
          "new leader",
          "kill->first put",
          "kill->all " + objects.size() + " objects read back (CRC-checked)");
      List<LeaderFailover.Outcome> outcomes = new ArrayList<>();
      int unplannedChanges = 0;
      for (int run = 1; run <= settings.runs(); run++) {
        LeaderFailover.Outcome o =
            LeaderFailover.killLeader(
                pool, writer, reader, objects, settings.replicas(), settings.timeout(), () -> {});
        outcomes.add(o);
        StoredObjects.ReadBack r = o.readBack();
        out.printf(
            Locale.ROOT,
            "%-4d %-9s %-11s %-17s %s%s%n",
            run,
            "master-" + o.killedMaster(),
            "master-" + o.newLeader(),
            seconds(o.toFirstPut()),
            r.complete() ? seconds(r.elapsed()) : "INCOMPLETE",
            notes(o));
        if (!r.complete()) {
          throw new BenchmarkFailedException(
              "run "
                  + run
                  + ": "
                  + r.unreadable().size()
                  + " objects not readable "
                  + settings.timeout().toSeconds()
                  + " s after the kill and "
                  + r.corrupt().size()
                  + " read back with "
                  + "other bytes (e.g. "
                  + (r.corrupt().isEmpty() ? r.unreadable() : r.corrupt()).get(0)
                  + ")"
                  + (r.lastError() == null ? "" : "; last read error: " + r.lastError()));
        }
        pool.restartMaster(o.killedMaster());
        leader = awaitSettled(pool, settings);
        if (leader != o.newLeader()) {
          unplannedChanges++;
          out.printf(
              Locale.ROOT,
              "     (leadership moved from master-%d to master-%d without a kill: a Lease renewal "
                  + "was missed on this busy machine%s)%n",
              o.newLeader(),
              leader,
              run < settings.runs() ? "; restarting the standbys" : "");
          if (run < settings.runs()) {
            restartStandbys(pool, leader, settings);
          }
        }
      }
      summarise(outcomes, unplannedChanges, settings, out);
    }
  }

  /**
   * Every object reads back before the first kill, so that a run measures the failover alone. An
   * object whose put was acknowledged but that does not read back is a lost write, reported as
   * such, with whether leadership moved while the objects were stored.
   */
  private static void requireAllReadable(
      StoredObjects objects,
      KvPoolClient reader,
      int leaderBefore,
      int leaderAfter,
      Settings settings) {
    StoredObjects.ReadBack r = objects.readAll(reader, System.nanoTime(), settings.timeout());
    if (!r.complete()) {
      List<String> examples = r.corrupt().isEmpty() ? r.unreadable() : r.corrupt();
      throw new BenchmarkFailedException(
          "before any kill, "
              + r.unreadable().size()
              + " of "
              + objects.size()
              + " acknowledged objects are not readable and "
              + r.corrupt().size()
              + " read back with other bytes (e.g. "
              + examples.get(0)
              + ")"
              + (leaderBefore != leaderAfter
                  ? "; leadership moved from master-"
                      + leaderBefore
                      + " to master-"
                      + leaderAfter
                      + " while they were stored"
                  : "")
              + (r.lastError() == null ? "" : "; last read error: " + r.lastError()));
    }
  }

  private static String notes(LeaderFailover.Outcome o) {
    List<String> notes = new ArrayList<>();
    if (o.failedPuts() > 0) {
      notes.add(o.failedPuts() + " put calls failed before");
    }
    if (o.readBack().failedCalls() > 0) {
      notes.add(o.readBack().failedCalls() + " batch reads failed before");
    }
    return notes.isEmpty() ? "" : "  (" + String.join(", ", notes) + ")";
  }

  private static void summarise(
      List<LeaderFailover.Outcome> outcomes,
      int unplannedChanges,
      Settings settings,
      PrintStream out) {
    List<Duration> puts = outcomes.stream().map(LeaderFailover.Outcome::toFirstPut).toList();
    List<Duration> reads = outcomes.stream().map(o -> o.readBack().elapsed()).toList();
    out.printf(
        Locale.ROOT,
        "kill -> first put:            median %s, max %s (%d run%s)%n",
        seconds(median(puts)),
        seconds(max(puts)),
        outcomes.size(),
        outcomes.size() == 1 ? "" : "s");
    out.printf(
        Locale.ROOT,
        "kill -> all objects readable: median %s, max %s%n",
        seconds(median(reads)),
        seconds(max(reads)));
    out.printf(
        Locale.ROOT,
        "election lease %s: a standby takes over once it expires (goal: first put within lease "
            + "+ 2 s); Mooncake: %d s for clients to reattach after a master failover (kvcache-ai/Mooncake#3740)%n",
        seconds(settings.electionLease()),
        MOONCAKE_REATTACH.toSeconds());
    if (unplannedChanges > 0) {
      out.printf(
          Locale.ROOT,
          "leadership also moved %d times without a kill (missed Lease renewals)%n",
          unplannedChanges);
    }
  }

  /**
   * Restarts every master but the leader. A master that lost its Lease without being killed (a
   * renewal missed while the machine was busy, as when the pool and the API server start together)
   * stays a standby that never campaigns again (the Fabric8 elector of LeaseLeadership is not
   * restarted after it stops leading), so without this a later kill could leave no candidate at
   * all. A restarted master campaigns, as the restarted killed master of every run.
   */
  private static void restartStandbys(LocalPool pool, int leader, Settings settings) {
    for (LocalPool.MasterProcess m : pool.masters()) {
      if (m.index() != leader) {
        m.process().stop();
        pool.restartMaster(m.index());
      }
    }
    if (awaitSettled(pool, settings) != leader) {
      throw new BenchmarkFailedException(
          "leadership moved while the standbys restarted; the machine is too busy for "
              + "a lease of "
              + seconds(settings.electionLease())
              + " (try a longer --election-lease)");
    }
  }

  /**
   * Waits until a leader serves with every storage node alive and no object under-replicated, and
   * every master runs, so that each run starts from the same state; returns the leader's index.
   */
  private static int awaitSettled(LocalPool pool, Settings settings) {
    long deadline = System.nanoTime() + settings.timeout().toNanos();
    String last = "no status yet";
    while (System.nanoTime() - deadline < 0) {
      LocalPool.MasterProcess leader = pool.awaitServingLeader(settings.timeout());
      try {
        MasterStatus status = new AdminApi(leader.adminAddress()).masterStatus();
        long alive = status.aliveNodes();
        long underReplicated = status.counters() == null ? -1 : status.counters().underReplicated();
        boolean mastersRun =
            pool.masters().stream().allMatch(m -> m.process() != null && m.process().isAlive());
        if (alive == settings.storageNodes() && underReplicated == 0 && mastersRun) {
          return leader.index();
        }
        last =
            "leader master-"
                + leader.index()
                + ": "
                + alive
                + " nodes alive, "
                + underReplicated
                + " objects under-replicated, all masters running: "
                + mastersRun;
      } catch (AdminApi.AdminApiException e) {
        last = e.getMessage(); // the leader changed under us: ask again
      }
      StoredObjects.pause(
          100); // polling the admin API: there is no event to wait on across processes
    }
    throw new BenchmarkFailedException(
        "the pool did not settle within " + settings.timeout().toSeconds() + " s: " + last);
  }

  static Duration median(List<Duration> values) {
    List<Duration> sorted = values.stream().sorted().toList();
    int n = sorted.size();
    return n % 2 == 1
        ? sorted.get(n / 2)
        : sorted.get(n / 2 - 1).plus(sorted.get(n / 2)).dividedBy(2);
  }

  static Duration max(List<Duration> values) {
    return values.stream().max(Comparator.naturalOrder()).orElse(Duration.ZERO);
  }

  static String seconds(Duration d) {
    return String.format(Locale.ROOT, "%.2f s", d.toNanos() / 1e9);
  }

  private static String bytes(long n) {
    return n % (1L << 20) == 0 ? (n >> 20) + " MiB" : n % 1024 == 0 ? (n >> 10) + " KiB" : n + " B";
  }

  private static String firstLine(String message) {
    return message == null ? "" : message.lines().findFirst().orElse("");
  }
}
