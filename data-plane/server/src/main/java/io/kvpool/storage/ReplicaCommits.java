package io.kvpool.storage;

import io.kvpool.protocol.NodeCommit;
import io.kvpool.protocol.ProtocolLimits;
import io.kvpool.protocol.PutDeadline;
import io.kvpool.protocol.WriteRequest;
import io.kvpool.security.NodeKey;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The replicas this node commits at the master for protocol-2.2 writers (PROTOCOL.md, "Commits by
 * storage nodes"). A connection thread {@link #promise promises} the commits of the replicas a
 * WRITE completed before it replies (saying so in the reply), and {@link #flush sends} them after
 * replying, so the COMMIT is off the writer's path; whichever thread finds the queue idle sends
 * everything queued as one COMMIT, so concurrent writes share one frame and nobody waits for a
 * lock. A promise is kept even when its send fails: it is made only while the node's registration
 * admitted the write and is current, so a failed send (a broken connection, a new registration) is
 * followed by a registration whose inventory, taken after the replica was complete, proves the
 * replica again.
 */
final class ReplicaCommits {
  /**
   * A write that completed a verified replica: the receipt it earned and the registration that
   * admitted it.
   */
  record Completed(WriteRequest write, byte[] receipt, NodeKey admittedUnder) {}

  private record Promised(NodeKey admittedUnder, NodeCommit.Item item) {}

  private final MasterLink link;
  private final ConcurrentLinkedQueue<Promised> queue = new ConcurrentLinkedQueue<>();
  private final AtomicBoolean sending = new AtomicBoolean();
  private final Counter outcomes;

  /** Fault injection for tests: promise commits but never send them (see {@link CommitFault}). */
  private final boolean held;

  ReplicaCommits(MasterLink link, PrometheusRegistry metrics) {
    this.link = link;
    this.held = CommitFault.holds(link.nodeId());
    this.outcomes =
        Counter.builder()
            .name("kvpool_storage_commits_total")
            .help(
                "Replicas completed for protocol-2.2 writers: committed at the master by this node (sent), left to the"
                    + " writer's PUT_END (left_to_writer), or promised but not sent because the master link failed or a new"
                    + " registration began (proven again by the next registration's inventory: unsent)")
            .labelNames("outcome")
            .register(metrics);
    for (String outcome : List.of("sent", "left_to_writer", "unsent")) {
      outcomes.labelValues(outcome);
    }
  }

  /**
   * Which of {@code done} this node will commit at the master: those admitted under its current
   * registration, with a master link that can take them, whose puts may still be acknowledged
   * ({@link PutDeadline}). The writer commits the rest itself with PUT_END. Call {@link #flush}
   * once the reply has gone.
   */
  boolean[] promise(List<Completed> done) {
    boolean[] promised = new boolean[done.size()];
    long now = link.masterNow();
    int left = 0;
    for (int i = 0; i < promised.length; i++) {
      Completed c = done.get(i);
      promised[i] =
          now <= PutDeadline.ackCutoffMillis(c.write().generation(), c.write().expiresAtMillis())
              && link.mayCommit(c.admittedUnder());
      if (promised[i]) {
        queue.add(
            new Promised(
                c.admittedUnder(),
                new NodeCommit.Item(c.write().key(), c.write().generation(), c.receipt())));
      } else {
        left++;
      }
    }
    outcomes.labelValues("left_to_writer").inc(left);
    return promised;
  }

  /**
   * Sends the promised commits, as one COMMIT per registration and batch, unless another thread is
   * sending them.
   */
  void flush() {
    while (!held && !queue.isEmpty() && sending.compareAndSet(false, true)) {
      try {
        sendQueued();
      } finally {
        sending.set(false);
      }
    }
  }

  /**
   * Only the thread that set {@link #sending} takes from the queue: a peeked entry is still there
   * to be polled.
   */
  private void sendQueued() {
    while (!queue.isEmpty()) {
      NodeKey under = queue.peek().admittedUnder();
      List<NodeCommit.Item> items = new ArrayList<>();
      for (Promised p = queue.peek();
          p != null && p.admittedUnder() == under && items.size() < ProtocolLimits.MAX_BATCH;
          p = queue.peek()) {
        items.add(queue.poll().item());
      }
      outcomes.labelValues(link.sendCommit(under, items) ? "sent" : "unsent").inc(items.size());
    }
  }
}
