package io.kvpool.bench.compare;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * A JVM's JIT compiler threads (HotSpot's "C1 CompilerThread<n>" and "C2 CompilerThread<n>") and
 * their CPU time, from Linux's {@code /proc/<pid>/task/<tid>/comm} (the thread's name, cut to 15
 * characters) and {@code /proc/<pid>/task/<tid>/schedstat} (whose first field is the nanoseconds
 * the thread spent on a CPU). A process without such threads (not a JVM, or not on Linux) has none.
 */
final class CompilerThreads {
  private static final List<String> NAMES = List.of("C1 CompilerThre", "C2 CompilerThre");

  /** One compiler thread at one read: its id, name and nanoseconds on a CPU so far. */
  record CompilerThread(long tid, String name, long nanos) {}

  /**
   * The compiler threads' CPU between two reads.
   *
   * @param exited whether a thread of the first read was gone at the second: HotSpot starts and
   *     stops compiler threads as its compile queues grow and shrink, and what an exited thread
   *     used after the first read is lost, so {@code nanos} is then a lower bound
   */
  record CompileTime(long nanos, boolean exited) {}

  private CompilerThreads() {}

  /** The compiler threads of process {@code pid} now; none when it is gone or has none. */
  static List<CompilerThread> of(long pid) {
    Path tasks = Path.of("/proc", Long.toString(pid), "task");
    List<CompilerThread> threads = new ArrayList<>();
    try (Stream<Path> list = Files.list(tasks)) {
      for (Path task : (Iterable<Path>) list::iterator) {
        read(task).ifPresent(threads::add);
      }
    } catch (NoSuchFileException gone) {
      return List.of(); // the process exited, or this is not Linux
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list the threads of process " + pid, e);
    }
    return threads;
  }

  private static Optional<CompilerThread> read(Path task) {
    try {
      String name = Files.readString(task.resolve("comm")).strip();
      if (!isCompilerThread(name)) {
        return Optional.empty();
      }
      long nanos = onCpuNanos(Files.readString(task.resolve("schedstat")));
      return Optional.of(
          new CompilerThread(Long.parseLong(task.getFileName().toString()), name, nanos));
    } catch (IOException exited) {
      // the thread ended between the listing and this read (ENOENT or ESRCH): it is not there now
      return Optional.empty();
    }
  }

  /** Whether a thread's {@code comm} is one of HotSpot's C1 or C2 compiler threads. */
  static boolean isCompilerThread(String comm) {
    return NAMES.stream().anyMatch(comm::startsWith);
  }

  /**
   * Nanoseconds on a CPU from a {@code schedstat} line ("on-CPU ns, run-queue wait ns, slices").
   */
  static long onCpuNanos(String schedstat) {
    String line = schedstat.strip();
    int space = line.indexOf(' ');
    return Long.parseLong(space < 0 ? line : line.substring(0, space));
  }

  /**
   * CPU the compiler threads took between two reads of the same processes: for a thread at both
   * reads the difference; a thread that started in between counts from zero (all of its time is in
   * the interval); a thread that exited in between adds nothing and marks the sum as a lower bound.
   */
  static CompileTime between(List<CompilerThread> before, List<CompilerThread> after) {
    Map<Long, Long> start =
        before.stream().collect(Collectors.toMap(CompilerThread::tid, CompilerThread::nanos));
    long nanos = 0;
    for (CompilerThread t : after) {
      nanos += t.nanos() - start.getOrDefault(t.tid(), 0L);
    }
    Set<Long> present = after.stream().map(CompilerThread::tid).collect(Collectors.toSet());
    return new CompileTime(nanos, !present.containsAll(start.keySet()));
  }
}
