package io.kvpool.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The watchdog against real loopback sockets, each test with a watchdog of its own that would sleep
 * for an hour with nothing due: a deadline closes its socket in time only because arming it woke
 * the watchdog.
 */
class DeadlineWatchdogTest {
  private static final long GENEROUS_NANOS = TimeUnit.SECONDS.toNanos(30);
  private DeadlineWatchdog watchdog;
  private ServerSocketChannel server;
  private final List<SocketChannel> sockets = new ArrayList<>();

  @BeforeEach
  void start() throws Exception {
    watchdog = new DeadlineWatchdog("test-watchdog", TimeUnit.HOURS.toNanos(1));
    server = ServerSocketChannel.open().bind(new InetSocketAddress("127.0.0.1", 0));
  }

  @AfterEach
  void stop() throws Exception {
    watchdog.stop();
    for (SocketChannel s : sockets) {
      s.close();
    }
    server.close();
  }

  private SocketChannel connected() throws Exception {
    SocketChannel client = SocketChannel.open(server.getLocalAddress());
    sockets.add(client);
    sockets.add(server.accept());
    return client;
  }

  /** Waits (polling, with a generous bound) until the socket is closed; false if it never was. */
  private static boolean closedWithin(SocketChannel s, long nanos) throws InterruptedException {
    long end = System.nanoTime() + nanos;
    while (s.isOpen()) {
      if (System.nanoTime() - end > 0) {
        return false;
      }
      Thread.sleep(5);
    }
    return true;
  }

  /** A connected socket under a deadline of the test's watchdog. */
  private record Guarded(SocketChannel socket, DeadlineWatchdog.Watched deadline) {}

  private Guarded guarded() throws Exception {
    SocketChannel socket = connected();
    return new Guarded(socket, watchdog.add(socket));
  }

  @Test
  void aShortDeadlineArmedWhileTheWatchdogSleepsTowardsALongOneClosesItsSocket() throws Exception {
    Guarded patient = guarded();
    Guarded hasty = guarded();
    patient.deadline().arm(Duration.ofHours(1).toNanos());

    hasty.deadline().arm(Duration.ofMillis(50).toNanos());

    assertThat(closedWithin(hasty.socket(), GENEROUS_NANOS))
        .as("the short deadline closed its socket")
        .isTrue();
    assertThat(hasty.deadline().expired()).isTrue();
    assertThat(patient.socket().isOpen()).isTrue();
    assertThat(patient.deadline().expired()).isFalse();
  }

  @Test
  void aClearedDeadlineClosesNothing() throws Exception {
    Guarded cleared = guarded();
    Guarded later = guarded();
    cleared.deadline().arm(Duration.ofMillis(20).toNanos());
    cleared.deadline().disarm();
    later.deadline().arm(Duration.ofMillis(100).toNanos());

    // once the later deadline has fired, the cleared one's time has passed too
    assertThat(closedWithin(later.socket(), GENEROUS_NANOS)).isTrue();
    assertThat(cleared.socket().isOpen()).isTrue();
    assertThat(cleared.deadline().expired()).isFalse();
  }

  @Test
  void aDeadlineRearmedLaterThanBeforeFiresAtItsNewTime() throws Exception {
    Guarded rearmed = guarded();
    Guarded marker = guarded();
    rearmed.deadline().arm(Duration.ofMillis(30).toNanos());
    rearmed.deadline().arm(Duration.ofHours(1).toNanos());
    marker.deadline().arm(Duration.ofMillis(100).toNanos());

    assertThat(closedWithin(marker.socket(), GENEROUS_NANOS)).isTrue();
    assertThat(rearmed.socket().isOpen()).as("the earlier deadline was replaced").isTrue();

    rearmed.deadline().arm(Duration.ofMillis(10).toNanos());
    assertThat(closedWithin(rearmed.socket(), GENEROUS_NANOS)).isTrue();
    assertThat(rearmed.deadline().expired()).isTrue();
  }

  @Test
  void withNothingDueTheWatchdogSleepsInsteadOfTicking() throws Exception {
    guarded().deadline().arm(Duration.ofHours(1).toNanos());
    long before = watchdog.wakeups();

    Thread.sleep(2_500); // a window to count wake-ups in, not a wait for something to happen

    // the fixed 20 ms tick this replaced woke 125 times in such a window
    assertThat(watchdog.wakeups() - before).isLessThanOrEqualTo(2);
  }
}
