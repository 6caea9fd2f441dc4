package io.kvpool.protocol;

import java.io.IOException;
import java.nio.channels.SocketChannel;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Closes sockets whose exchange overran its deadline (blocking socket reads cannot time out by
 * themselves). One thread per process sleeps until the earliest armed deadline it knows of (at most
 * a second), so an idle or steadily busy process wakes it about once per shortest timeout rather
 * than on a fixed tick. Arming a deadline costs a few volatile accesses and wakes the thread only
 * when the new deadline is earlier than the one it sleeps towards; clearing one wakes nobody.
 */
public final class DeadlineWatchdog {
  private static final DeadlineWatchdog SHARED =
      new DeadlineWatchdog("kvpool-rpc-watchdog", TimeUnit.SECONDS.toNanos(1));

  /** A socket with an optional deadline. */
  public static final class Watched {
    private final DeadlineWatchdog owner;
    private final SocketChannel channel;
    private volatile long deadlineNanos; // 0: no exchange in progress
    private volatile boolean expired;

    Watched(DeadlineWatchdog owner, SocketChannel channel) {
      this.owner = owner;
      this.channel = channel;
    }

    public void arm(long timeoutNanos) {
      expired = false;
      long d = System.nanoTime() + timeoutNanos;
      if (d == 0) {
        d = 1;
      }
      deadlineNanos = d;
      owner.armed(d);
    }

    public void disarm() {
      deadlineNanos = 0;
    }

    /** Whether the last armed deadline passed (and the socket was closed for it). */
    public boolean expired() {
      return expired;
    }

    /**
     * Closes the socket if its deadline passed at {@code now}; otherwise its deadline (0: none).
     */
    private long check(long now) {
      long d = deadlineNanos;
      if (d != 0 && now - d >= 0) {
        expired = true;
        try {
          // a shutdown first: it wakes a send the JDK does not track, such as a sendfile from a
          // FileChannel, which a close alone would leave blocked for as long as the peer reads
          // nothing
          channel.shutdownOutput();
        } catch (IOException | RuntimeException ignored) {
          // not connected or closed already: the close below is all there is to do
        }
        try {
          channel.close();
        } catch (IOException ignored) {
          // the blocked reader sees the close; there is nothing else to report
        }
        return 0;
      }
      return d;
    }
  }

  private final Set<Watched> watched = ConcurrentHashMap.newKeySet();
  private final Thread thread;
  private final long maxSleepNanos; // a bound on a sleep with nothing due, not the mechanism
  private final AtomicLong wakeups = new AtomicLong();

  /** True while the thread reads the deadlines: a deadline armed meanwhile must wake it again. */
  private volatile boolean scanning = true;

  /** When the thread will next look, once it sleeps (valid while {@link #scanning} is false). */
  private volatile long wakeAtNanos;

  DeadlineWatchdog(String threadName, long maxSleepNanos) {
    this.maxSleepNanos = maxSleepNanos;
    thread = new Thread(this::run, threadName);
    thread.setDaemon(true);
    thread.start();
  }

  public static Watched watch(SocketChannel channel) {
    return SHARED.add(channel);
  }

  public static void unwatch(Watched w) {
    w.owner.watched.remove(w);
  }

  Watched add(SocketChannel channel) {
    Watched w = new Watched(this, channel);
    watched.add(w);
    return w;
  }

  /** How many times the thread has woken up to look at the deadlines. */
  long wakeups() {
    return wakeups.get();
  }

  /** Stops the thread (the shared one runs for the life of the process). */
  void stop() {
    thread.interrupt();
  }

  private void armed(long deadline) {
    // after the deadline's volatile write: either the scan sees it, or this sees the scan's result
    // (or the scan)
    if (scanning || deadline - wakeAtNanos < 0) {
      LockSupport.unpark(thread);
    }
  }

  private void run() {
    while (!Thread.currentThread().isInterrupted()) {
      scanning = true;
      long now = System.nanoTime();
      long next = now + maxSleepNanos;
      for (Watched w : watched) {
        long d = w.check(now);
        if (d != 0 && d - next < 0) {
          next = d;
        }
      }
      wakeAtNanos = next;
      scanning = false;
      long sleep = next - System.nanoTime();
      if (sleep > 0) {
        LockSupport.parkNanos(this, sleep); // an earlier deadline, armed meanwhile, unparks it
      }
      wakeups.incrementAndGet();
    }
  }
}
