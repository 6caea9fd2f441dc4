package io.kvpool.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvpool.common.VersionInfo;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code kvpool} command line run in-process: every user error is one line on stderr with exit
 * code 2 (wrong command line) or 1 (the operation failed), at once. Pools are reached at closed
 * ports or ports that never answer; CliIT covers the same commands against a real local pool.
 */
class KvPoolCliTest {

  @TempDir Path dir;

  /** A loopback port nothing listens on (bound a moment ago and closed). */
  private static int closedPort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }

  @Test
  void versionPrintsReleaseAndProtocol() {
    CliRun run = CliRun.of("--version");
    assertThat(run.code()).isZero();
    assertThat(run.out().strip())
        .isEqualTo(
            "kvpool "
                + VersionInfo.CURRENT.release()
                + " (protocol "
                + VersionInfo.CURRENT.protocol()
                + ")");
    assertThat(CliRun.of("put", "--version").out()).isEqualTo(run.out());
  }

  @Test
  void helpListsEveryCommandAndEachCommandHasItsOwn() {
    CliRun run = CliRun.of("--help");
    assertThat(run.code()).isZero();
    assertThat(run.out()).contains("demo", "local", "put", "get", "rm", "stat");
    assertThat(CliRun.of("put", "--help").out())
        .contains("--master", "--file", "--value", "--replicas", "KEY");
    assertThat(CliRun.of("help", "get").out()).contains("--out");
  }

  @Test
  void noCommandPrintsTheCommandsOnStderrAsAUsageError() {
    CliRun run = CliRun.of();
    assertThat(run.code()).isEqualTo(2);
    assertThat(run.err()).contains("Commands:", "put", "stat");
    assertThat(run.out()).isEmpty();
  }

  @Test
  void unknownCommandIsNamed() {
    CliRun.of("frobnicate").failedWith(2, "kvpool: unknown command 'frobnicate'", "put");
  }

  @Test
  void trailingUnknownOptionIsNamedAsUnknown() {
    String line =
        CliRun.of("put", "--master", "127.0.0.1:1", "k", "--value", "v", "--bogus")
            .failedWith(2, "kvpool put:", "Unknown option: '--bogus'");
    assertThat(line).doesNotContain("needs a value");
  }

  @Test
  void misspelledOptionSuggestsTheRightOne() {
    CliRun.of("put", "--master", "127.0.0.1:1", "k", "--value", "v", "--replica", "3")
        .failedWith(2, "--replica", "did you mean --replicas?");
  }

  @Test
  void putOfAFileThatDoesNotExistFailsBeforeConnecting() throws IOException {
    CliRun.of("put", "--master", "127.0.0.1:" + closedPort(), "k", "--file", "/nonexistent")
        .failedWith(1, "kvpool put: --file /nonexistent: no such file");
  }

  @Test
  void putOfAFolderOrAnEmptyFileIsRefused() throws IOException {
    Path empty = Files.createFile(dir.resolve("empty"));
    CliRun.of("put", "--master", "127.0.0.1:1", "k", "--file", dir.toString())
        .failedWith(1, "is a folder");
    CliRun.of("put", "--master", "127.0.0.1:1", "k", "--file", empty.toString())
        .failedWith(1, "is empty");
    CliRun.of("put", "--master", "127.0.0.1:1", "k", "--value", "")
        .failedWith(2, "--value is empty");
  }

  @Test
  void emptyKeyIsRefused() {
    CliRun.of("put", "--master", "127.0.0.1:1", "", "--value", "v")
        .failedWith(2, "invalid KEY: key is empty");
    CliRun.of("get", "--master", "127.0.0.1:1", "").failedWith(2, "invalid KEY: key is empty");
  }

  @Test
  void keyOfMoreThan4096BytesIsRefused() {
    String key = "k".repeat(5000);
    String line =
        CliRun.of("put", "--master", "127.0.0.1:1", key, "--value", "v")
            .failedWith(2, "key of 5000 UTF-8 bytes exceeds the limit of 4096");
    assertThat(line.length()).as("the key itself is not echoed").isLessThan(300);
    CliRun.of("rm", "--master", "127.0.0.1:1", "a", key).failedWith(2, "exceeds the limit of 4096");
  }

  @Test
  void getIntoAFolderThatDoesNotExistFailsBeforeConnecting() throws IOException {
    CliRun.of("get", "--master", "127.0.0.1:" + closedPort(), "k", "--out", "/nonexistent/dir/f")
        .failedWith(
            1,
            "kvpool get: cannot write --out /nonexistent/dir/f: folder /nonexistent/dir does not exist");
    CliRun.of("get", "--master", "127.0.0.1:1", "k", "--out", dir.toString())
        .failedWith(1, "is a folder");
  }

  @Test
  void unresolvableMasterHostFailsAtOnce() {
    CliRun.of("put", "--master", "no-such-host.invalid:7000", "k", "--value", "v")
        .failedWith(
            1,
            "kvpool put: no master answers at no-such-host.invalid:7000: cannot resolve host "
                + "'no-such-host.invalid'");
  }

  @Test
  void statAgainstAClosedPortFailsAtOnce() throws IOException {
    int port = closedPort();
    CliRun.of("stat", "--master", "127.0.0.1:" + port)
        .failedWith(
            1,
            "kvpool stat: no master answers at 127.0.0.1:" + port,
            "nothing listens on 127.0.0.1:" + port);
    CliRun.of("stat", "--admin", "127.0.0.1:" + port).failedWith(1, "cannot reach the admin API");
  }

  @Test
  void masterThatAcceptsButNeverAnswersIsNamedAfterTheHandshakeTimeout() throws IOException {
    // the kernel completes the connection from the listen backlog; nobody ever reads or answers
    try (ServerSocket silent = new ServerSocket(0, 8, InetAddress.getLoopbackAddress())) {
      String endpoint = "127.0.0.1:" + silent.getLocalPort();
      CliRun.of("stat", "--master", endpoint, "--timeout", "1s")
          .failedWith(
              1,
              endpoint + " accepted the connection but did not answer the kvpool handshake",
              "the master's RPC port is needed");
    }
  }

  @Test
  void everyMasterEndpointIsTriedAndEachProblemNamed() throws IOException {
    int port = closedPort();
    CliRun.of("put", "--master", "no-such-host.invalid:1,127.0.0.1:" + port, "k", "--value", "v")
        .failedWith(
            1,
            "cannot resolve host 'no-such-host.invalid'",
            "nothing listens on 127.0.0.1:" + port);
    CliRun.of("put", "--master", "127.0.0.1", "k", "--value", "v")
        .failedWith(2, "--master:", "HOST:PORT");
  }

  @Test
  void localWithZeroMemoryFailsAtOnce() {
    CliRun.of("local", "--memory", "0")
        .failedWith(2, "kvpool local: --memory must be at least 4KiB");
    CliRun.of("local", "--storage-nodes", "0")
        .failedWith(2, "--storage-nodes must be between 1 and 64, got 0");
  }

  @Test
  void localOptionsThatContradictOrNameNothingFailAtOnce() {
    CliRun.of("local", "--no-auth", "--secret-dir", "new")
        .failedWith(2, "--no-auth", "drop --secret-dir new");
    CliRun.of("local", "--memory-dir", " ").failedWith(2, "--memory-dir must name a folder");
  }

  @Test
  void sizesDurationsAndChoicesAreTypedAndExplained() {
    CliRun.of("local", "--memory", "lots")
        .failedWith(2, "--memory", "size 'lots' is not valid", "64KiB");
    CliRun.of("local", "--node-ttl", "5x")
        .failedWith(2, "--node-ttl", "duration '5x' is not valid", "5s");
    CliRun.of("local", "--huge-pages", "big").failedWith(2, "--huge-pages", "TRANSPARENT");
    CliRun.of("put", "--master", "127.0.0.1:1", "k", "--value", "v", "--replicas", "0")
        .failedWith(2, "--replicas must be between 1 and 16, got 0");
  }

  @Test
  void missingOrConflictingArgumentsAreNamed() {
    CliRun.of("put", "--master", "127.0.0.1:1", "k").failedWith(2, "--file", "--value");
    CliRun.of("put", "--master", "127.0.0.1:1", "k", "--value", "v", "--file", "f")
        .failedWith(2, "mutually exclusive");
    CliRun.of("put", "--master", "127.0.0.1:1", "--value", "v").failedWith(2, "KEY");
    CliRun.of("get", "--master", "127.0.0.1:1", "a", "b").failedWith(2, "'b'");
    CliRun.of("put", "--master", "127.0.0.1:1", "k", "--value").failedWith(2, "--value");
    CliRun.of("rm", "--master", "127.0.0.1:1").failedWith(2, "give one or more keys, or --all");
    CliRun.of("rm", "--master", "127.0.0.1:1", "k", "--all")
        .failedWith(2, "give one or more keys, or --all");
    CliRun.of("stat").failedWith(2, "needs --admin HOST:PORT", "--master HOST:PORT");
  }

  @Test
  void masterComesFromTheEnvironmentWhenNotGiven() throws IOException {
    int port = closedPort();
    CliRun.of(Map.of(), "put", "k", "--value", "v")
        .failedWith(2, "needs --master", MasterOptions.ENV);
    CliRun.of(Map.of(MasterOptions.ENV, "127.0.0.1:" + port), "put", "k", "--value", "v")
        .failedWith(1, "no master answers at 127.0.0.1:" + port);
    CliRun.of(
            Map.of(MasterOptions.ENV, "127.0.0.1:" + port + ",no-such-host.invalid:1"), "get", "k")
        .failedWith(1, "no master answers at 127.0.0.1:" + port + ",no-such-host.invalid:1");
    CliRun.of(
            Map.of(MasterOptions.ENV, "no-such-host.invalid:1"),
            "rm",
            "--master",
            "127.0.0.1:" + port,
            "k")
        .failedWith(1, "no master answers at 127.0.0.1:" + port + ":");
    CliRun.of(Map.of(StatCommand.ADMIN_ENV, "127.0.0.1:" + port), "stat")
        .failedWith(1, "cannot reach the admin API");
  }
}
