package io.kvpool.bench.compare;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvpool.bench.compare.CompilerThreads.CompileTime;
import io.kvpool.bench.compare.CompilerThreads.CompilerThread;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Which threads are a JVM's JIT compilers, what {@code schedstat} says they used, how two reads
 * make a phase's figure; and the same read of a real child JVM while it compiles.
 */
class CompilerThreadsTest {

  @Test
  void hotSpotsC1AndC2ThreadsAreCompilersUnderTheirNamesCutTo15Characters() {
    assertThat(CompilerThreads.isCompilerThread("C2 CompilerThre")).isTrue();
    assertThat(CompilerThreads.isCompilerThread("C1 CompilerThre")).isTrue();
    assertThat(CompilerThreads.isCompilerThread("C2 CompilerThread0")).isTrue();
    assertThat(CompilerThreads.isCompilerThread("Sweeper thread")).isFalse();
    assertThat(CompilerThreads.isCompilerThread("node-worker-1")).isFalse();
    assertThat(CompilerThreads.isCompilerThread("G1 Conc#0")).isFalse();
  }

  @Test
  void schedstatsFirstFieldIsNanosecondsOnACpu() {
    assertThat(CompilerThreads.onCpuNanos("26980637 43071481 77\n")).isEqualTo(26_980_637L);
    assertThat(CompilerThreads.onCpuNanos("0 0 0")).isZero();
  }

  @Test
  void aThreadAtBothReadsCountsItsDifferenceAndANewOneAllItsTime() {
    CompileTime t =
        CompilerThreads.between(
            List.of(new CompilerThread(10, "C1 CompilerThre", 1_000)),
            List.of(
                new CompilerThread(10, "C1 CompilerThre", 4_000),
                new CompilerThread(11, "C2 CompilerThre", 500)));
    assertThat(t).isEqualTo(new CompileTime(3_500, false));
  }

  @Test
  void aThreadThatExitedAddsNothingAndMakesTheSumALowerBound() {
    CompileTime t =
        CompilerThreads.between(
            List.of(
                new CompilerThread(10, "C2 CompilerThre", 1_000),
                new CompilerThread(12, "C2 CompilerThre", 9_000)),
            List.of(new CompilerThread(10, "C2 CompilerThre", 2_000)));
    assertThat(t).isEqualTo(new CompileTime(1_000, true));
  }

  @Test
  void perOpGivesAJitFigureOnlyToGroupsWithCompilerThreads() {
    Cpu.Reading before =
        new Cpu.Reading(
            Map.of("storage", 1_000_000L, "redis-server", 0L),
            Map.of(
                "storage",
                List.of(new CompilerThread(7, "C2 CompilerThre", 100_000)),
                "redis-server",
                List.of()));
    Cpu.Reading after =
        new Cpu.Reading(
            Map.of("storage", 3_000_000L, "redis-server", 500_000L),
            Map.of(
                "storage",
                List.of(new CompilerThread(7, "C2 CompilerThre", 1_100_000)),
                "redis-server",
                List.of()));
    CpuPerOp perOp = Cpu.perOp(before, after, 10);
    assertThat(perOp.micros()).isEqualTo(Map.of("storage", 200.0, "redis-server", 50.0));
    assertThat(perOp.jitMicros()).isEqualTo(Map.of("storage", 100.0));
    assertThat(perOp.jitLowerBound()).isEmpty();
  }

  @Test
  void aJvmsFigureCarriesItsJitPartAndALowerBoundIsMarked() {
    assertThat(CpuPerOp.label("storage", 100.4, 45.0, false)).isEqualTo("storage 100 (JIT 45)");
    assertThat(CpuPerOp.label("master", 30, 12.0, true)).isEqualTo("master 30 (JIT >=12)");
    assertThat(CpuPerOp.label("memcached", 80, null, false)).isEqualTo("memcached 80");
  }

  /**
   * A child JVM runs a hot loop with {@code -Xbatch} (the loop waits for each compilation), so by
   * its "compiled" line its compiler threads have compiled; no figure is checked beyond that.
   */
  @Test
  void aRealChildJvmsCompilerThreadsAreFoundWithTheirCpuTime() throws Exception {
    Process child =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xbatch",
                "-cp",
                System.getProperty("java.class.path"),
                CompilingJvm.class.getName())
            .redirectErrorStream(true)
            .start();
    try {
      List<CompilerThread> before = CompilerThreads.of(child.pid());
      BufferedReader out =
          new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
      assertThat(out.readLine()).startsWith("compiled");
      List<CompilerThread> after = CompilerThreads.of(child.pid());

      Set<String> names = after.stream().map(CompilerThread::name).collect(Collectors.toSet());
      assertThat(names).contains("C1 CompilerThre", "C2 CompilerThre");
      assertThat(after.stream().mapToLong(CompilerThread::nanos).sum()).isPositive();
      assertThat(CompilerThreads.between(before, after).nanos()).isNotNegative();
    } finally {
      child.getOutputStream().close(); // the child exits when its input ends
      child.waitFor();
    }
  }

  /** The child: compiles a hot method, says so, then waits for its input to end. */
  static final class CompilingJvm {
    public static void main(String[] args) throws Exception {
      long sum = 0;
      for (int i = 0; i < 200_000; i++) {
        sum += mix(i);
      }
      System.out.println("compiled " + sum);
      System.out.flush();
      while (System.in.read() >= 0) {
        // until the parent closes our input
      }
    }

    private static long mix(long x) {
      x ^= x >>> 33;
      x *= 0xff51afd7ed558ccdL;
      return x ^ (x >>> 33);
    }
  }
}
