package io.kvpool.bench.compare;

import com.sun.jna.Library;
import com.sun.jna.Native;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * CPU time (user + system) of groups of processes, read before and after a phase, in nanoseconds
 * from each process's CPU clock ({@code clock_gettime} on the clock {@code clock_getcpuclockid}
 * would name: every thread of the process, the exited ones included). Where that clock cannot be
 * read (not Linux, or the process is gone), the process's accounted time from {@link
 * ProcessHandle}, which the kernel keeps in scheduler ticks (10 ms here): too coarse for a phase of
 * 256 puts, where one tick is 39 µs per operation.
 */
final class Cpu {
  private static final CpuClock CLOCK = CpuClock.load();
  private final Map<String, List<ProcessHandle>> groups;

  Cpu(Map<String, List<ProcessHandle>> groups) {
    this.groups = groups;
  }

  Map<String, Long> read() {
    Map<String, Long> nanos = new LinkedHashMap<>();
    groups.forEach(
        (name, processes) -> nanos.put(name, processes.stream().mapToLong(Cpu::nanos).sum()));
    return nanos;
  }

  /** CPU microseconds per operation, by group, between two readings. */
  static Map<String, Double> perOp(Map<String, Long> before, Map<String, Long> after, long ops) {
    Map<String, Double> out = new LinkedHashMap<>();
    after.forEach(
        (name, nanos) ->
            out.put(name, ops == 0 ? 0 : (nanos - before.getOrDefault(name, 0L)) / 1e3 / ops));
    return out;
  }

  /**
   * Whether readings come from the processes' CPU clocks (else from scheduler ticks), for the
   * report.
   */
  static boolean precise() {
    return CLOCK != null && CLOCK.nanos(ProcessHandle.current().pid()) >= 0;
  }

  private static long nanos(ProcessHandle p) {
    long n = CLOCK == null ? -1 : CLOCK.nanos(p.pid());
    return n >= 0 ? n : p.info().totalCpuDuration().map(Duration::toNanos).orElse(0L);
  }

  /** Linux's per-process CPU clocks through libc. */
  private static final class CpuClock {
    private static final int CPUCLOCK_SCHED = 2;
    private final LibC libc;

    private CpuClock(LibC libc) {
      this.libc = libc;
    }

    static CpuClock load() {
      try {
        return System.getProperty("os.name", "").startsWith("Linux")
            ? new CpuClock(Native.load("c", LibC.class))
            : null;
      } catch (UnsatisfiedLinkError e) {
        return null;
      }
    }

    /** Nanoseconds of CPU of process {@code pid}, or -1 when its clock cannot be read. */
    long nanos(long pid) {
      int clock =
          (~(int) pid << 3)
              | CPUCLOCK_SCHED; // the kernel's MAKE_PROCESS_CPUCLOCK(pid, CPUCLOCK_SCHED)
      long[] timespec = new long[2];
      return libc.clock_gettime(clock, timespec) == 0
          ? timespec[0] * 1_000_000_000L + timespec[1]
          : -1;
    }
  }

  /** The one libc call. */
  public interface LibC extends Library {
    int clock_gettime(int clockId, long[] timespec);
  }
}
