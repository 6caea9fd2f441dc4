package io.kvpool.operator.common;

import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.quarkus.runtime.Quarkus;
import io.quarkus.runtime.ShutdownEvent;
import jakarta.annotation.Priority;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Singleton;
import jakarta.interceptor.Interceptor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.IntConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the operator does when it stops leading. Java Operator SDK 5.2.1 calls {@code
 * System.exit(1)} from its stop-leading callback, and on SIGTERM that callback runs inside the JVM
 * shutdown hook (Quarkus stops the operator there), where {@code System.exit} waits forever for the
 * shutdown lock its own hook thread's caller holds: the pod hangs until its grace period ends
 * (java-operator-sdk #1614/#3376, fixed by PR #3383 in 5.3.5, which does not resolve from the Maven
 * repository here). So the operator turns the SDK's exit off and decides itself: a lease lost while
 * running ends the process (a standby replica takes over; two leaders must never reconcile at
 * once), and leadership released because the application is shutting down needs nothing more.
 */
@Singleton
public class LeadershipLoss {
  private static final Logger LOG = LoggerFactory.getLogger(LeadershipLoss.class);

  private final AtomicBoolean shuttingDown = new AtomicBoolean();
  private final IntConsumer exit;

  /**
   * Exits through Quarkus on another thread, so the shutdown hooks never run on the callback's
   * thread.
   */
  public LeadershipLoss() {
    this(Quarkus::asyncExit);
  }

  public LeadershipLoss(IntConsumer exit) {
    this.exit = exit;
  }

  /** Runs before the operator SDK extension stops the operator (default observer priority). */
  void onShutdown(@Observes @Priority(Interceptor.Priority.PLATFORM_BEFORE) ShutdownEvent event) {
    applicationStopping();
  }

  public void applicationStopping() {
    shuttingDown.set(true);
  }

  /** The callbacks given to the SDK's leader election; only losing the lease matters here. */
  public LeaderCallbacks callbacks() {
    return new LeaderCallbacks(() -> {}, this::stoppedLeading, leader -> {});
  }

  public void stoppedLeading() {
    if (shuttingDown.get()) {
      LOG.info("leadership released because the operator is shutting down");
      return;
    }
    LOG.error(
        "lost the leader election lease while running; exiting so that no two operators reconcile at once");
    exit.accept(1);
  }
}
