package io.kvpool.protocol;

import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.ptr.IntByReference;
import java.lang.reflect.Method;
import java.nio.channels.SocketChannel;
import java.util.Locale;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Waits for the rest of a large payload to be queued on a connection before it is read, so that the
 * reader wakes once for it instead of once per TCP segment.
 *
 * <p>Why: a blocking read of a 1 MiB reply sleeps and wakes for every segment that lands (64 KiB on
 * loopback), and the sender pays for each wake-up and for spinning on the reader's socket lock.
 * With Linux's {@code SO_RCVLOWAT} set to the bytes still missing, the kernel wakes the reader only
 * when they are all queued. Measured with 1 MiB gets (data-plane/README.md, "Waking a reader once
 * per payload"): from 8 readers 1.19–1.38× the gets per second, the nodes' CPU per get down 14–21 %
 * and the client's 22–36 %.
 *
 * <p>How: the mark is set, the socket polled until it is readable (in short slices, checking that
 * the channel is still open, as a deadline closes it from another thread), and the mark set back to
 * 1 before the read. So the read itself never waits on the mark: the kernel wakes a sleeping reader
 * only when the unread bytes reach it, which a read that had copied part of the payload already
 * would never see. A readable socket with fewer bytes than the mark (the peer closed, an error, the
 * kernel short of receive memory) is read as before.
 *
 * <p>Needs the socket's descriptor, which the JDK keeps in {@code sun.nio.ch}: the JVM must run
 * with {@code --add-opens java.base/sun.nio.ch=ALL-UNNAMED} (the {@code kvpool} launcher and the
 * tests do). Without it, or off Linux, {@link #of} returns null and reads go as before; the reason
 * is logged once.
 */
final class ReceiveLowWater {
  /** Payloads with fewer bytes still to come are read as before: one segment wakes one read. */
  static final int MIN_BYTES = 64 << 10;

  /** The largest mark set; the kernel caps it at half the receive buffer in any case. */
  private static final int MAX_MARK = SocketBuffers.LARGE_BYTES / 2;

  /** How long one poll waits before the channel is checked for a close. */
  private static final int SLICE_MILLIS = 50;

  private static final int SOL_SOCKET = 1;
  private static final int SO_RCVLOWAT = 18;
  private static final short POLLIN = 1;

  private static final Logger LOG = LoggerFactory.getLogger(ReceiveLowWater.class);
  private static final Method FD_VAL;

  static {
    Method fdVal = null;
    String unavailable = null;
    if (!System.getProperty("os.name", "").toLowerCase(Locale.ROOT).startsWith("linux")) {
      unavailable = "not Linux";
    } else {
      try {
        fdVal = Class.forName("sun.nio.ch.SocketChannelImpl").getDeclaredMethod("getFDVal");
        fdVal.setAccessible(true);
        Native.register(ReceiveLowWater.class, "c");
      } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
        fdVal = null;
        unavailable = e.toString();
      }
    }
    FD_VAL = fdVal;
    if (unavailable != null) {
      LOG.info(
          "large payloads are read as their segments land, not once they are all there ({});"
              + " run the JVM with --add-opens java.base/sun.nio.ch=ALL-UNNAMED to read them at once",
          unavailable);
    }
  }

  private final SocketChannel channel;
  private final int fd;
  private final Memory pollFd = new Memory(8); // struct pollfd { int fd; short events, revents; }
  private final IntByReference mark = new IntByReference();

  private ReceiveLowWater(SocketChannel channel, int fd) {
    this.channel = channel;
    this.fd = fd;
    pollFd.setInt(0, fd);
    pollFd.setShort(4, POLLIN);
  }

  /** Whether this JVM can wait for payloads this way. */
  static boolean available() {
    return FD_VAL != null;
  }

  /** The low-water wait for {@code channel}'s reads, or null when this JVM cannot do it. */
  static ReceiveLowWater of(SocketChannel channel) {
    if (FD_VAL == null) {
      return null;
    }
    try {
      return new ReceiveLowWater(channel, (int) FD_VAL.invoke(channel));
    } catch (ReflectiveOperationException | RuntimeException e) {
      return null;
    }
  }

  /**
   * Returns once {@code bytes} unread bytes are queued, the socket is readable for another reason,
   * or the channel was closed; the read that follows takes what is there, as any read does.
   */
  void await(int bytes) {
    if (!channel.isOpen() || !setMark(Math.min(bytes, MAX_MARK))) {
      return;
    }
    try {
      while (channel.isOpen()) {
        pollFd.setShort(6, (short) 0);
        if (poll(pollFd, 1, SLICE_MILLIS) != 0) {
          return; // readable, or an error (EINTR among them): the read finds out which
        }
      }
    } finally {
      if (channel.isOpen()) {
        setMark(1);
      }
    }
  }

  private boolean setMark(int value) {
    mark.setValue(value);
    return setsockopt(fd, SOL_SOCKET, SO_RCVLOWAT, mark, 4) == 0;
  }

  private static native int setsockopt(int fd, int level, int name, IntByReference value, int len);

  private static native int poll(Memory fds, long count, int timeoutMillis);
}
