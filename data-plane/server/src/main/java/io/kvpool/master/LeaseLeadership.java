package io.kvpool.master;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElectionConfigBuilder;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Leadership through Fabric8's {@code LeaderElector} on the pool's Lease. The leader labels its own
 * pod {@code kvpool.io/role=leader} (and takes the label off the other master pods) so that the
 * pool's master Service selects it; it removes the label when it stops leading. Step-down releases
 * the Lease (a standby takes over within its retry period) and campaigns again only after one lease
 * duration. The Lease also records the storage nodes the leader serves ({@link PoolLeaseLock}),
 * which the next leader's recovery waits for.
 */
final class LeaseLeadership implements Leadership {
  private static final Logger LOG = LoggerFactory.getLogger(LeaseLeadership.class);
  static final String ROLE_LABEL = "kvpool.io/role";
  static final String LEADER = "leader";

  private final LeaseElection election;
  private final String identity;
  private final KubernetesClient client;
  /*
   * Labelling pods and re-campaigning after a step-down are API calls that can take seconds on a loaded node; they run
   * here, in order, never on the elector's own thread, whose renewals they would delay past the renew deadline.
   */
  private final ScheduledExecutorService background =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "master-election");
            t.setDaemon(true);
            return t;
          });
  private volatile Listener listener;
  private volatile CompletableFuture<?> running;
  private volatile PoolLeaseLock lock;
  private volatile boolean closed;

  /**
   * Whether this master leads now, as the elector last said: what the pod labels must come to show.
   */
  private volatile boolean leading;

  private boolean steppingDown;

  LeaseLeadership(LeaseElection election, LeaderIdentity identity) {
    this(election, identity, new KubernetesClientBuilder().build());
  }

  LeaseLeadership(LeaseElection election, LeaderIdentity identity, KubernetesClient client) {
    this.election = election;
    this.identity = identity.encode();
    this.client = client;
  }

  @Override
  public boolean certain() {
    PoolLeaseLock l = lock;
    return leading && l != null && l.writtenWithin(election.renewDeadline());
  }

  @Override
  public void start(Listener listener) {
    this.listener = listener;
    campaign();
  }

  /**
   * Runs one elector until it stops: Fabric8's elector ends when this master loses the Lease (a
   * missed renewal on a loaded node) and then must campaign again, or the pool would run out of
   * candidates.
   */
  private synchronized void campaign() {
    if (closed) {
      return;
    }
    lock =
        new PoolLeaseLock(
            election.namespace(), election.leaseName(), identity, () -> listener.servedNodes());
    CompletableFuture<?> elector =
        client
            .leaderElector()
            .withConfig(
                new LeaderElectionConfigBuilder()
                    .withName(election.leaseName())
                    .withLock(lock)
                    .withLeaseDuration(election.leaseDuration())
                    .withRenewDeadline(election.renewDeadline())
                    .withRetryPeriod(election.retryPeriod())
                    .withReleaseOnCancel(true)
                    .withLeaderCallbacks(
                        new LeaderCallbacks(
                            this::startedLeading, this::stoppedLeading, this::newLeader))
                    .build())
            .build()
            .start();
    running = elector;
    elector.whenComplete((done, error) -> electorStopped(elector));
  }

  private synchronized void electorStopped(CompletableFuture<?> elector) {
    if (closed || steppingDown || running != elector) {
      return;
    }
    LOG.info(
        "event=campaign_again lease={}/{} identity={}",
        election.namespace(),
        election.leaseName(),
        identity);
    background.schedule(this::campaign, election.retryPeriod().toMillis(), TimeUnit.MILLISECONDS);
  }

  private void startedLeading() {
    // the Lease as read right before taking it: its record is the previous leader's
    Set<String> previousNodes = lock.recorded();
    LOG.info(
        "event=leading lease={}/{} identity={} previous_nodes={}",
        election.namespace(),
        election.leaseName(),
        identity,
        previousNodes);
    leading = true;
    listener.startedLeading(previousNodes);
    inBackground(() -> labelPods(true));
  }

  private void stoppedLeading() {
    LOG.warn(
        "event=stopped_leading lease={}/{} identity={}",
        election.namespace(),
        election.leaseName(),
        identity);
    leading = false;
    listener.stoppedLeading();
    inBackground(() -> labelPods(false));
  }

  private void newLeader(String leader) {
    if (!identity.equals(leader)) {
      LOG.info(
          "event=new_leader lease={}/{} leader={}",
          election.namespace(),
          election.leaseName(),
          leader);
      listener.newLeader(leader);
    }
  }

  /**
   * Leading: the label on this pod and off every other master pod (a deposed leader that could not
   * clean up); not leading: off this pod. Each label is a JSON merge patch without a
   * resourceVersion, so a kubelet updating the pod's status meanwhile cannot make it conflict; a
   * failure (the API server away, a 403) is retried every retry period for as long as this master's
   * leadership is what it was, since the pool's master Service selects the leader by this label and
   * serves no one without it.
   */
  private void labelPods(boolean leadingNow) {
    if (election.podName().isEmpty() || closed && leadingNow || leading != leadingNow) {
      return;
    }
    boolean failed = false;
    for (String pod : election.masterPods()) {
      boolean mine = pod.equals(election.podName());
      if (!mine && !leadingNow) {
        continue;
      }
      String value = mine && leadingNow ? "\"" + LEADER + "\"" : "null";
      try {
        client
            .pods()
            .inNamespace(election.namespace())
            .withName(pod)
            .patch(
                PatchContext.of(PatchType.JSON_MERGE),
                "{\"metadata\":{\"labels\":{\"" + ROLE_LABEL + "\":" + value + "}}}");
      } catch (KubernetesClientException e) {
        if (e.getCode() == 404) {
          // a master pod that does not exist (scaled down, being replaced) carries no label
          continue;
        }
        failed = true;
        LOG.warn(
            "event=leader_label_failed pod={} leading={} error=\"{}\"",
            pod,
            leadingNow,
            e.getMessage());
      }
    }
    if (failed && !closed) {
      try {
        background.schedule(
            () -> labelPods(leadingNow), election.retryPeriod().toMillis(), TimeUnit.MILLISECONDS);
      } catch (RejectedExecutionException closing) {
        // closing: the label comes off inline
      }
    }
  }

  @Override
  public synchronized void stepDown() {
    CompletableFuture<?> current = running;
    if (current == null || closed) {
      return;
    }
    LOG.info(
        "event=step_down lease={}/{} identity={}",
        election.namespace(),
        election.leaseName(),
        identity);
    steppingDown = true;
    current.cancel(true); // releases the Lease: a standby takes it within its retry period
    background.schedule(
        () -> {
          synchronized (this) {
            steppingDown = false;
          }
          campaign();
        },
        election.leaseDuration().toMillis(),
        TimeUnit.MILLISECONDS);
  }

  /**
   * Runs {@code task} after the ones queued before it; inline once closing (the label must still
   * come off).
   */
  private void inBackground(Runnable task) {
    try {
      background.execute(task);
    } catch (RejectedExecutionException e) {
      task.run();
    }
  }

  @Override
  public void close() {
    synchronized (this) {
      closed = true;
      if (running != null) {
        running.cancel(true); // releases the Lease
      }
    }
    background.shutdown();
    try {
      if (!background.awaitTermination(5, TimeUnit.SECONDS)) {
        background.shutdownNow();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    client.close();
  }
}
