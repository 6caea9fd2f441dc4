package io.kvpool.e2e.workload;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HostFolderTest {
  @TempDir Path root;

  @Test
  void prepareEmptiesEveryFolderItIsGivenAndHandsEachToTheUser() throws Exception {
    Path memory = Files.createDirectories(root.resolve("memory"));
    Path disk = Files.createDirectories(root.resolve("disk"));
    Files.write(memory.resolve("segment-0"), new byte[4096]);
    Files.createDirectories(disk.resolve("tier"));
    Files.write(disk.resolve("tier/tier-000000000000.kvd"), new byte[100]);
    int uid = (Integer) Files.getAttribute(root, "unix:uid"); // a user may give a folder to itself

    String out = run("prepare", Integer.toString(uid), memory.toString(), disk.toString());

    for (Path dir : new Path[] {memory, disk}) {
      try (var inside = Files.list(dir)) {
        assertThat(inside).as("what is left in %s", dir).isEmpty();
      }
      assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dir)))
          .isEqualTo("rwxr-x---");
    }
    assertThat(out.lines())
        .containsExactly(
            "WORKLOAD op=prepare dir="
                + memory
                + " removed=1 bytes=4096 owner="
                + uid
                + " mode=rwxr-x---",
            "WORKLOAD op=prepare dir="
                + disk
                + " removed=2 bytes=100 owner="
                + uid
                + " mode=rwxr-x---");
  }

  @Test
  void clearEmptiesEveryFolderAndTheSummaryIsTheLastOnes() throws Exception {
    Path a = Files.createDirectories(root.resolve("a"));
    Path b = Files.createDirectories(root.resolve("b"));
    Files.write(a.resolve("x"), new byte[10]);

    String out = run("clear", a.toString(), b.toString());

    assertThat(out).contains("dir=" + a + " removed=1 bytes=10");
    assertThat(out.lines().reduce((x, y) -> y).orElseThrow())
        .startsWith("WORKLOAD op=clear dir=" + b + " removed=0 bytes=0");
  }

  private static String run(String... args) throws Exception {
    PrintStream was = System.out;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
    try {
      HostFolder.main(args);
    } finally {
      System.setOut(was);
    }
    return captured.toString(StandardCharsets.UTF_8);
  }
}
