package io.kvpool.bench.compare;

import com.sun.jna.Library;
import com.sun.jna.Native;
import io.kvpool.bench.compare.CompilerThreads.CompileTime;
import io.kvpool.bench.compare.CompilerThreads.CompilerThread;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * CPU time (user + system) of groups of processes, read before and after a phase, in nanoseconds
 * from each process's CPU clock ({@code clock_gettime} on the clock {@code clock_getcpuclockid}
 * would name: every thread of the process, the exited ones included). Where that clock cannot be
 * read (not Linux, or the process is gone), the process's accounted time from {@link
 * ProcessHandle}, which the kernel keeps in scheduler ticks (10 ms here): too coarse for a phase of
 * 256 puts, where one tick is 39 µs per operation.
 *
 * <p>Of each group's time, the part its JIT compiler threads took ({@link CompilerThreads}): the
 * JVMs of the pool compile their request paths for a minute or more, and that is not CPU a put or a
 * get costs once compiled. The compiler threads are read before the CPU clocks at the start of a
 * phase and after them at its end, so that reading {@code /proc} (a file per thread of every JVM
 * measured) is not counted in the benchmark JVM's time.
 */
final class Cpu {
  private static final CpuClock CLOCK = CpuClock.load();
  private final Map<String, List<ProcessHandle>> groups;

  Cpu(Map<String, List<ProcessHandle>> groups) {
    this.groups = groups;
  }

  /**
   * One read of every group: nanoseconds of CPU, and the compiler threads of its processes (none
   * for a group that is not a JVM).
   */
  record Reading(Map<String, Long> nanos, Map<String, List<CompilerThread>> compilerThreads) {}

  /** The read at the start of a phase. */
  Reading start() {
    Map<String, List<CompilerThread>> compilers = compilerThreads();
    return new Reading(clocks(), compilers);
  }

  /** The read at the end of a phase. */
  Reading end() {
    Map<String, Long> nanos = clocks();
    return new Reading(nanos, compilerThreads());
  }

  private Map<String, Long> clocks() {
    Map<String, Long> nanos = new LinkedHashMap<>();
    groups.forEach(
        (name, processes) -> nanos.put(name, processes.stream().mapToLong(Cpu::nanos).sum()));
    return nanos;
  }

  private Map<String, List<CompilerThread>> compilerThreads() {
    Map<String, List<CompilerThread>> threads = new LinkedHashMap<>();
    groups.forEach(
        (name, processes) -> {
          List<CompilerThread> all = new ArrayList<>();
          processes.forEach(p -> all.addAll(CompilerThreads.of(p.pid())));
          threads.put(name, all);
        });
    return threads;
  }

  /**
   * CPU microseconds per operation, by group, between two readings; a group has a JIT figure when
   * its processes had compiler threads at either read.
   */
  static CpuPerOp perOp(Reading before, Reading after, long ops) {
    Map<String, Double> micros = new LinkedHashMap<>();
    Map<String, Double> jit = new LinkedHashMap<>();
    Set<String> lowerBound = new LinkedHashSet<>();
    after
        .nanos()
        .forEach(
            (name, nanos) -> {
              micros.put(name, perOp(nanos - before.nanos().getOrDefault(name, 0L), ops));
              List<CompilerThread> from = before.compilerThreads().getOrDefault(name, List.of());
              List<CompilerThread> to = after.compilerThreads().getOrDefault(name, List.of());
              if (!from.isEmpty() || !to.isEmpty()) {
                CompileTime compiled = CompilerThreads.between(from, to);
                jit.put(name, perOp(compiled.nanos(), ops));
                if (compiled.exited()) {
                  lowerBound.add(name);
                }
              }
            });
    return new CpuPerOp(micros, jit, lowerBound);
  }

  private static double perOp(long nanos, long ops) {
    return ops == 0 ? 0 : nanos / 1e3 / ops;
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
