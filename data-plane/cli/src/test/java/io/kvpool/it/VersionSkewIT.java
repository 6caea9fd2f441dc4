package io.kvpool.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvpool.cli.StorageNodeProcess;
import io.kvpool.client.ClientConfig;
import io.kvpool.client.KvPoolClient;
import io.kvpool.client.VersionMismatchException;
import io.kvpool.common.HostPort;
import io.kvpool.common.VersionInfo;
import io.kvpool.protocol.ErrorCode;
import io.kvpool.protocol.ErrorReply;
import io.kvpool.protocol.Frame;
import io.kvpool.protocol.Handshake;
import io.kvpool.protocol.Opcode;
import java.io.IOException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A peer whose handshake claims another protocol major is refused with an error naming both
 * versions, counted by the master, and never served silently; a minor one step away is accepted.
 */
class VersionSkewIT {

  private static final VersionInfo FUTURE =
      new VersionInfo("2.0.0", VersionInfo.CURRENT.protocolMajor() + 1, 0);

  @RegisterExtension
  final LocalPoolExtension pool =
      new LocalPoolExtension(b -> b.storageNodes(1).memoryPerNode("64MiB"));

  @Test
  void masterRefusesAnotherProtocolMajorNamingBothVersions() throws IOException {
    assertRefused(HostPort.parse(pool.pool().leaderAddress()));
    assertThat(pool.masterAdmin().status().path("counters").path("versionMismatches").asLong())
        .isPositive();
  }

  @Test
  void storageNodeRefusesAnotherProtocolMajorNamingBothVersions() throws IOException {
    StorageNodeProcess node = pool.pool().storageNodes().get(0);
    assertRefused(HostPort.parse(node.rpcAddress()));
  }

  @Test
  void clientClaimingAnotherMajorFailsLoudlyNamingBothVersions() {
    ClientConfig skewed =
        ClientConfig.builder()
            .master(pool.pool().leaderAddress())
            .clientId("it-skewed")
            .advertisedVersion(FUTURE)
            .build();
    assertThatThrownBy(() -> KvPoolClient.connect(skewed).close())
        .isInstanceOf(VersionMismatchException.class)
        .hasMessageContaining(FUTURE.protocol())
        .hasMessageContaining(VersionInfo.CURRENT.protocol())
        .hasMessageContaining(FUTURE.release())
        .hasMessageContaining(VersionInfo.CURRENT.release());
  }

  @Test
  void minorOneStepNewerIsAccepted() throws IOException {
    VersionInfo newerMinor =
        new VersionInfo(
            "0.2.0", VersionInfo.CURRENT.protocolMajor(), VersionInfo.CURRENT.protocolMinor() + 1);
    try (RawConnection connection =
        new RawConnection(HostPort.parse(pool.pool().leaderAddress()), 10_000)) {
      Frame reply = connection.handshake(newerMinor, "");
      assertThat(reply.header().isError()).as("handshake refused").isFalse();
      assertThat(reply.opcode()).isEqualTo(Opcode.HANDSHAKE);
      assertThat(Handshake.decodePrefix(reply.reader()).version()).isEqualTo(VersionInfo.CURRENT);
    }
  }

  private static void assertRefused(HostPort endpoint) throws IOException {
    try (RawConnection connection = new RawConnection(endpoint, 10_000)) {
      Frame reply = connection.handshake(FUTURE, "");
      assertThat(reply.header().isError())
          .as("handshake of protocol %s answered with an error", FUTURE.protocol())
          .isTrue();
      ErrorReply error = ErrorReply.decode(reply.reader());
      assertThat(error.code()).isEqualTo(ErrorCode.VERSION_MISMATCH);
      assertThat(error.message())
          .contains(
              FUTURE.protocol(),
              VersionInfo.CURRENT.protocol(),
              FUTURE.release(),
              VersionInfo.CURRENT.release());
      assertThat(connection.peerClosed()).as("connection closed after the refusal").isTrue();
    }
  }
}
