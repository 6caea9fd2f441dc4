package io.kvpool.master;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElectionConfigBuilder;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Leadership through Fabric8's {@code LeaderElector} on the pool's Lease. The leader labels its own
 * pod {@code kvpool.io/role=leader} (and takes the label off the other master pods) so that the
 * pool's master Service selects it, checks the labels every lease duration and puts right what a
 * deposed leader's late patch undid; it removes the label when it stops leading. Step-down releases
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

  /** Whether a relabelling after a failed one is scheduled (one at a time). */
  private final AtomicBoolean retryPending = new AtomicBoolean();

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
    long check = election.leaseDuration().toMillis();
    background.scheduleWithFixedDelay(this::reconcileLabels, check, check, TimeUnit.MILLISECONDS);
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
    inBackground(this::reconcileLabels);
  }

  private void stoppedLeading() {
    LOG.warn(
        "event=stopped_leading lease={}/{} identity={}",
        election.namespace(),
        election.leaseName(),
        identity);
    leading = false;
    listener.stoppedLeading();
    inBackground(this::reconcileLabels);
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
   * Makes the pod labels show this master's leadership as the elector last said it. Leading: the
   * label on this pod and off every other master pod (a deposed leader that could not clean up);
   * not leading: off this pod. Each pod is read and patched only where its label differs, with a
   * JSON merge patch without a resourceVersion, so a kubelet updating the pod's status meanwhile
   * cannot make it conflict.
   *
   * <p>It runs when the leadership changes, again every lease duration (a deposed leader's last
   * patch, in flight when it lost the Lease, can take the label off the new leader's pod after the
   * new leader set it: the pool's master Service then selects no one), and every retry period after
   * a failure (the API server away, a 403). A change of leadership in the middle ends the run: the
   * change queued the run for the new state.
   */
  private void reconcileLabels() {
    boolean leadingNow = leading;
    if (election.podName().isEmpty() || closed && leadingNow) {
      return;
    }
    boolean failed = false;
    for (String pod : election.masterPods()) {
      boolean mine = pod.equals(election.podName());
      if (!mine && !leadingNow) {
        continue;
      }
      if (leading != leadingNow) {
        return;
      }
      try {
        relabel(pod, mine && leadingNow);
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
      } catch (RuntimeException e) {
        failed = true;
        LOG.warn("event=leader_label_failed pod={} leading={} error=\"{}\"", pod, leadingNow, e);
      }
    }
    if (failed && !closed && retryPending.compareAndSet(false, true)) {
      try {
        background.schedule(
            () -> {
              retryPending.set(false);
              reconcileLabels();
            },
            election.retryPeriod().toMillis(),
            TimeUnit.MILLISECONDS);
      } catch (RejectedExecutionException closing) {
        // closing: the label comes off inline
        retryPending.set(false);
      }
    }
  }

  /** Sets or removes the leader label of {@code pod} where it differs from {@code labelled}. */
  private void relabel(String pod, boolean labelled) {
    var resource = client.pods().inNamespace(election.namespace()).withName(pod);
    Pod current = resource.get();
    if (current == null) {
      return; // a master pod that does not exist carries no label
    }
    Map<String, String> labels = current.getMetadata().getLabels();
    boolean hasLabel = labels != null && LEADER.equals(labels.get(ROLE_LABEL));
    if (hasLabel == labelled) {
      return;
    }
    LOG.info("event=leader_label pod={} labelled={}", pod, labelled);
    String value = labelled ? "\"" + LEADER + "\"" : "null";
    resource.patch(
        PatchContext.of(PatchType.JSON_MERGE),
        "{\"metadata\":{\"labels\":{\"" + ROLE_LABEL + "\":" + value + "}}}");
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
