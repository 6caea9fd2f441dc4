package io.kvpool.protocol;

import java.io.IOException;
import java.nio.channels.SocketChannel;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Closes sockets whose exchange overran its deadline (blocking socket reads cannot time out by themselves). One
 * shared thread polls every {@link #PERIOD_MILLIS} ms, so arming and clearing a deadline costs two volatile
 * writes and wakes no thread: a scheduled task per exchange woke the timer thread on every request.
 */
public final class DeadlineWatchdog {
  static final long PERIOD_MILLIS = 20;

  /** A socket with an optional deadline. */
  public static final class Watched {
    private final SocketChannel channel;
    private volatile long deadlineNanos; // 0: no exchange in progress
    private volatile boolean expired;

    Watched(SocketChannel channel) {
      this.channel = channel;
    }

    public void arm(long timeoutNanos) {
      expired = false;
      long d = System.nanoTime() + timeoutNanos;
      deadlineNanos = d == 0 ? 1 : d;
    }

    public void disarm() {
      deadlineNanos = 0;
    }

    /** Whether the last armed deadline passed (and the socket was closed for it). */
    public boolean expired() {
      return expired;
    }

    private void check(long now) {
      long d = deadlineNanos;
      if (d != 0 && now - d > 0) {
        expired = true;
        try {
          channel.close();
        } catch (IOException ignored) {
          // the blocked reader sees the close; there is nothing else to report
        }
      }
    }
  }

  private static final Set<Watched> WATCHED = ConcurrentHashMap.newKeySet();

  static {
    Thread t = new Thread(DeadlineWatchdog::run, "kvpool-rpc-watchdog");
    t.setDaemon(true);
    t.start();
  }

  private DeadlineWatchdog() {
  }

  public static Watched watch(SocketChannel channel) {
    Watched w = new Watched(channel);
    WATCHED.add(w);
    return w;
  }

  public static void unwatch(Watched w) {
    WATCHED.remove(w);
  }

  private static void run() {
    while (true) {
      try {
        Thread.sleep(PERIOD_MILLIS);
      } catch (InterruptedException e) {
        return;
      }
      long now = System.nanoTime();
      for (Watched w : WATCHED) {
        w.check(now);
      }
    }
  }
}
