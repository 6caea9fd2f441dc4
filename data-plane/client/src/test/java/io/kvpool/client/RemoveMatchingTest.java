package io.kvpool.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvpool.common.VersionInfo;
import io.kvpool.master.Master;
import io.kvpool.master.MasterConfig;
import io.kvpool.master.MasterSettings;
import io.kvpool.protocol.BodyWriter;
import io.kvpool.protocol.ErrorCode;
import io.kvpool.protocol.Handshake;
import io.kvpool.protocol.Opcode;
import io.kvpool.protocol.RemoteErrorException;
import io.kvpool.protocol.RemoveMatchingReply;
import io.kvpool.protocol.RemoveMatchingRequest;
import io.kvpool.protocol.Role;
import io.kvpool.protocol.RpcConnection;
import io.kvpool.storage.StorageConfig;
import io.kvpool.storage.StorageNode;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * REMOVE_MATCHING (protocol 2.4) between the real Java client and a real master with two real
 * storage nodes on loopback: what matches goes (from the nodes too), what is read stays, and
 * hostile patterns are refused or matched in bounded time.
 */
class RemoveMatchingTest {
  private static final Duration T = Duration.ofSeconds(10);

  private Master master;
  private final List<StorageNode> nodes = new ArrayList<>();
  private KvPoolClient client;

  @BeforeEach
  void startPool() throws Exception {
    master =
        new Master(MasterSettings.local(MasterConfig.defaults("rm-pool"), "127.0.0.1", 0, 0))
            .start();
    for (int i = 0; i < 2; i++) {
      nodes.add(
          new StorageNode(
                  StorageConfig.local(master.rpcEndpoint(), "node-" + i, "127.0.0.1", 8L << 20, 1)
                      .withHeartbeat(Duration.ofMillis(200)))
              .start(T));
    }
    client = KvPoolClient.connect(ClientConfig.builder().master(master.rpcEndpoint()).build());
  }

  @AfterEach
  void stopPool() {
    if (client != null) {
      client.close();
    }
    nodes.forEach(StorageNode::close);
    master.close();
  }

  private static ByteBuffer value(int size, int seed) {
    ByteBuffer b = ByteBuffer.allocateDirect(size);
    for (int i = 0; i < size; i++) {
      b.put((byte) (i * 31 + seed));
    }
    return b.flip();
  }

  @Test
  void removesExactlyTheMatchingKeysAndKeepsTheOthersReadable() {
    for (int i = 0; i < 20; i++) {
      client.put("model-a/block/" + i, value(4096, i), 2);
      client.put("model-b/block/" + i, value(4096, 100 + i), 2);
    }
    long usedBefore = client.stats().usedBytes();

    RemovedMatches r = client.removeMatching("^model-a/block/1[0-9]?$");

    assertThat(r).isEqualTo(new RemovedMatches(11, 0, true)); // 1 and 10..19
    for (int i = 0; i < 20; i++) {
      boolean gone = i == 1 || i >= 10;
      assertThat(client.exists("model-a/block/" + i)).as("model-a/block/" + i).isEqualTo(!gone);
      assertThat(client.get("model-b/block/" + i)).isEqualTo(value(4096, 100 + i));
    }
    assertThat(client.stats().usedBytes()).isLessThan(usedBefore);
    assertThatThrownBy(() -> client.get("model-a/block/12"))
        .isInstanceOf(ObjectNotFoundException.class);
    // a search, not a whole-key match (Mooncake's remove_by_regex searches too); model-b/block/5
    // was just read above, so its read lease keeps it
    assertThat(client.removeMatching("block/5")).isEqualTo(new RemovedMatches(1, 1, true));
    assertThat(client.removeMatching("nothing-matches").removed()).isZero();
  }

  @Test
  void anObjectBeingReadIsKeptAndCountedAsRemoveKeepsIt() {
    client.put("leased/one", value(1024, 1), 1);
    client.put("leased/two", value(1024, 2), 1);
    assertThat(client.get("leased/one")).isEqualTo(value(1024, 1)); // takes a read lease

    RemovedMatches r = client.removeMatching("^leased/");

    assertThat(r).isEqualTo(new RemovedMatches(1, 1, true));
    assertThat(client.exists("leased/one")).isTrue();
    assertThat(client.exists("leased/two")).isFalse();
  }

  @Test
  void aCatastrophicBacktrackingPatternOverLongKeysIsMatchedInBoundedTime() {
    String longKey = "a".repeat(4000) + "!";
    client.put(longKey, value(64, 1), 1);
    client.put("a".repeat(3000), value(64, 2), 1);
    long started = System.nanoTime();

    RemovedMatches r = client.removeMatching("^(a+)+$"); // exponential for a backtracking engine

    Duration took = Duration.ofNanos(System.nanoTime() - started);
    assertThat(r).isEqualTo(new RemovedMatches(1, 0, true));
    assertThat(took).as("took %s", took).isLessThan(Duration.ofSeconds(20));
    assertThat(client.exists(longKey)).isTrue();
  }

  @Test
  void hostilePatternsAreRefusedAndTheConnectionStaysUsable() throws Exception {
    client.put("survivor", value(64, 3), 1);
    client.removeMatching("^never$"); // the client waits out the new leader's recovery
    try (RpcConnection raw =
        RpcConnection.open(
            master.rpcEndpoint(), new Handshake(VersionInfo.CURRENT, Role.CLIENT, "", "raw"), T)) {
      assertThat(refusal(raw, "((a{1000}){1000}){1000}")).isEqualTo(ErrorCode.LIMIT_EXCEEDED);
      assertThat(refusal(raw, "x".repeat(RemoveMatchingRequest.MAX_PATTERN_BYTES + 1)))
          .isEqualTo(ErrorCode.LIMIT_EXCEEDED);
      assertThat(refusal(raw, "")).isEqualTo(ErrorCode.LIMIT_EXCEEDED);
      assertThat(refusal(raw, "(unclosed")).isEqualTo(ErrorCode.MALFORMED_REQUEST);
      assertThat(refusal(raw, "(?<name>x)\\1")).isEqualTo(ErrorCode.MALFORMED_REQUEST);
      BodyWriter w = new BodyWriter();
      new RemoveMatchingRequest("^nothing$").encode(w);
      try (RpcConnection.Deadline d = raw.deadline(T)) {
        assertThat(RemoveMatchingReply.decode(raw.call(Opcode.REMOVE_MATCHING, w).reader()))
            .isEqualTo(new RemoveMatchingReply(0, 0, true));
      }
    }
    assertThatThrownBy(() -> client.removeMatching("y".repeat(2000)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(client.exists("survivor")).isTrue();
  }

  @Test
  void aClientOfProtocol23IsRefusedBeforeItCouldRemoveByPattern() {
    // a master of protocol 2.5 serves clients of 2.4 and 2.5, which all remove by pattern; a 2.3
    // client (which could not) is refused at its handshake, with both versions named
    VersionInfo older =
        new VersionInfo(VersionInfo.CURRENT.release(), VersionInfo.PROTOCOL_MAJOR, 3);
    assertThat(RemoveMatchingRequest.MINOR).isEqualTo(VersionInfo.PROTOCOL_MINOR - 1);
    assertThatThrownBy(
            () ->
                KvPoolClient.connect(
                        ClientConfig.builder()
                            .master(master.rpcEndpoint())
                            .advertisedVersion(older)
                            .build())
                    .close())
        .isInstanceOf(VersionMismatchException.class)
        .hasMessageContaining("protocol 2.3")
        .hasMessageContaining("protocol " + VersionInfo.CURRENT.protocol());
  }

  private static ErrorCode refusal(RpcConnection c, String pattern) throws Exception {
    BodyWriter w = new BodyWriter();
    new RemoveMatchingRequest(pattern).encode(w);
    try (RpcConnection.Deadline d = c.deadline(T)) {
      c.call(Opcode.REMOVE_MATCHING, w);
      return ErrorCode.OK;
    } catch (RemoteErrorException e) {
      return e.code();
    }
  }
}
