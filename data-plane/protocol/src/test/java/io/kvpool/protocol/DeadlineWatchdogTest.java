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
 * The watchdog against real loopback sockets, each test with a watchdog of its own that would sleep for an hour with
 * nothing due: a deadline closes its socket in time only because arming it woke the watchdog.
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

  @Test
  void aShortDeadlineArmedWhileTheWatchdogSleepsTowardsALongOneClosesItsSocket() throws Exception {
    SocketChannel patient = connected();
    SocketChannel hasty = connected();
    DeadlineWatchdog.Watched far = watchdog.add(patient);
    DeadlineWatchdog.Watched near = watchdog.add(hasty);
    far.arm(Duration.ofHours(1).toNanos());

    near.arm(Duration.ofMillis(50).toNanos());

    assertThat(closedWithin(hasty, GENEROUS_NANOS)).as("the short deadline closed its socket").isTrue();
    assertThat(near.expired()).isTrue();
    assertThat(patient.isOpen()).isTrue();
    assertThat(far.expired()).isFalse();
  }

  @Test
  void aClearedDeadlineClosesNothing() throws Exception {
    SocketChannel cleared = connected();
    SocketChannel later = connected();
    DeadlineWatchdog.Watched c = watchdog.add(cleared);
    DeadlineWatchdog.Watched l = watchdog.add(later);
    c.arm(Duration.ofMillis(20).toNanos());
    c.disarm();
    l.arm(Duration.ofMillis(100).toNanos());

    // once the later deadline has fired, the cleared one's time has passed too
    assertThat(closedWithin(later, GENEROUS_NANOS)).isTrue();
    assertThat(cleared.isOpen()).isTrue();
    assertThat(c.expired()).isFalse();
  }

  @Test
  void aDeadlineRearmedLaterThanBeforeFiresAtItsNewTime() throws Exception {
    SocketChannel rearmed = connected();
    SocketChannel marker = connected();
    DeadlineWatchdog.Watched r = watchdog.add(rearmed);
    DeadlineWatchdog.Watched m = watchdog.add(marker);
    r.arm(Duration.ofMillis(30).toNanos());
    r.arm(Duration.ofHours(1).toNanos());
    m.arm(Duration.ofMillis(100).toNanos());

    assertThat(closedWithin(marker, GENEROUS_NANOS)).isTrue();
    assertThat(rearmed.isOpen()).as("the earlier deadline was replaced").isTrue();

    r.arm(Duration.ofMillis(10).toNanos());
    assertThat(closedWithin(rearmed, GENEROUS_NANOS)).isTrue();
    assertThat(r.expired()).isTrue();
  }

  @Test
  void withNothingDueTheWatchdogSleepsInsteadOfTicking() throws Exception {
    DeadlineWatchdog.Watched far = watchdog.add(connected());
    far.arm(Duration.ofHours(1).toNanos());
    long before = watchdog.wakeups();

    Thread.sleep(2_500); // a window to count wake-ups in, not a wait for something to happen

    // the fixed 20 ms tick this replaced woke 125 times in such a window
    assertThat(watchdog.wakeups() - before).isLessThanOrEqualTo(2);
  }
}
