package io.kvpool.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvpool.cli.CliRun;
import io.kvpool.cli.LocalPool;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code kvpool} command run in-process against a real local pool: the single operations with
 * their printed lines, the master address from the environment as the pool's client ConfigMap gives
 * it to pods, and the user errors that need a server, each one line with its exit code.
 */
class CliIT {
  private static LocalPool pool;

  @TempDir Path dir;

  @BeforeAll
  static void startPool() {
    pool = LocalPool.builder().poolId("it-cli").storageNodes(2).memoryPerNode("64MiB").start();
  }

  @AfterAll
  static void stopPool() {
    if (pool != null) {
      pool.close();
    }
  }

  /** The environment of a pod with envFrom of the pool's client ConfigMap. */
  private static Map<String, String> podEnvironment() {
    return Map.of(
        "KVPOOL_MASTER_ADDRESS",
        pool.masterAddress(),
        "KVPOOL_MASTER_ADMIN_ADDRESS",
        pool.adminAddress());
  }

  @Test
  void putGetStatRemoveWithTheMasterFromTheEnvironment() throws IOException {
    Path file = dir.resolve("value.bin");
    ByteBuffer bytes = Values.random(100_000, new SplittableRandom(3));
    byte[] content = new byte[bytes.remaining()];
    bytes.get(content);
    Files.write(file, content);

    CliRun put = CliRun.of(podEnvironment(), "put", "cli/one", "--file", file.toString());
    assertThat(put.code()).as(put.err()).isZero();
    assertThat(put.out())
        .isEqualTo("stored cli/one (97.7 KiB, replicas=2)" + System.lineSeparator());

    Path copy = dir.resolve("copy.bin");
    CliRun get = CliRun.of(podEnvironment(), "get", "cli/one", "--out", copy.toString());
    assertThat(get.code()).as(get.err()).isZero();
    assertThat(Files.readAllBytes(copy)).isEqualTo(content);
    assertThat(get.err()).isEqualTo("wrote 97.7 KiB to " + copy + System.lineSeparator());

    CliRun text =
        CliRun.of(
            "put",
            "--master",
            pool.masterAddress(),
            "cli/text",
            "--value",
            "hello",
            "--replicas",
            "1");
    assertThat(text.out()).contains("stored cli/text (5 B, replicas=1)");
    assertThat(CliRun.of(podEnvironment(), "get", "cli/text").out()).isEqualTo("hello");

    CliRun stat = CliRun.of(podEnvironment(), "stat");
    assertThat(stat.code()).as(stat.err()).isZero();
    assertThat(stat.out())
        .contains("pool it-cli  role LEADER", "node-1", "node-2", "objects ")
        .doesNotContain("view -");
    CliRun totals = CliRun.of("stat", "--master", pool.masterAddress());
    assertThat(totals.code()).as(totals.err()).isZero();
    assertThat(totals.out()).contains("nodes 2");

    CliRun.of(podEnvironment(), "rm", "cli/one")
        .failedWith(1, "kvpool rm:", "cli/one", "read lease");
    assertThat(CliRun.of(podEnvironment(), "put", "cli/unread", "--value", "u").code()).isZero();
    CliRun rm = CliRun.of(podEnvironment(), "rm", "cli/unread", "cli/never-stored");
    assertThat(rm.out())
        .as(rm.err())
        .isEqualTo(
            "removed cli/unread"
                + System.lineSeparator()
                + "not found "
                + "cli/never-stored"
                + System.lineSeparator());
    assertThat(rm.code()).isEqualTo(1);
    CliRun.of(podEnvironment(), "get", "cli/unread")
        .failedWith(1, "kvpool get:", "cli/unread", "not stored");
  }

  @Test
  void getIntoAFolderThatDoesNotExistFailsBeforeReadingAndTheValueStays() {
    assertThat(CliRun.of(podEnvironment(), "put", "cli/kept", "--value", "kept").code()).isZero();
    CliRun.of(podEnvironment(), "get", "cli/kept", "--out", "/nonexistent/dir/f")
        .failedWith(
            1, "cannot write --out /nonexistent/dir/f: folder /nonexistent/dir does not exist");
    assertThat(CliRun.of(podEnvironment(), "get", "cli/kept").out()).isEqualTo("kept");
  }

  @Test
  void statAgainstTheAdminPortNamesTheMistakeWithinTheHandshakeTimeout() {
    String admin = pool.adminAddress();
    CliRun.of("stat", "--master", admin, "--timeout", "2s")
        .failedWith(
            1,
            "no master answers at " + admin,
            "did not answer the kvpool handshake",
            "the master's RPC port is needed");
  }

  @Test
  void aDeadEndpointBesideTheMasterIsSkipped() throws IOException {
    int closed;
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      closed = socket.getLocalPort();
    }
    CliRun run =
        CliRun.of(
            "put",
            "--master",
            "127.0.0.1:" + closed + "," + pool.masterAddress(),
            "cli/two",
            "--value",
            "two");
    assertThat(run.code()).as(run.err()).isZero();
  }

  @Test
  void aPutThePoolCannotPlaceIsOneLine() {
    CliRun.of(podEnvironment(), "put", "cli/three", "--value", "x", "--replicas", "3")
        .failedWith(1, "kvpool put:");
  }
}
