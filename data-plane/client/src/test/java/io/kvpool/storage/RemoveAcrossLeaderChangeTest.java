package io.kvpool.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvpool.client.ClientConfig;
import io.kvpool.client.KvPoolClient;
import io.kvpool.common.HostPort;
import io.kvpool.common.VersionInfo;
import io.kvpool.master.Master;
import io.kvpool.master.MasterConfig;
import io.kvpool.master.MasterSettings;
import io.kvpool.protocol.BodyWriter;
import io.kvpool.protocol.Handshake;
import io.kvpool.protocol.Opcode;
import io.kvpool.protocol.Release;
import io.kvpool.protocol.ReleaseRequest;
import io.kvpool.protocol.RemoteErrorException;
import io.kvpool.protocol.Role;
import io.kvpool.protocol.RpcConnection;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A remove survives the loss of the leader that answered it: the leader delivers the releases to
 * the holders (RELEASE) before it answers, so their tombstones, not the removed replicas, are what
 * the next leader learns from their inventories. The nodes here heartbeat only every few seconds,
 * so the releases a heartbeat reply would carry are still queued at the old leader when it goes;
 * before RELEASE the removed values came back with the new leader.
 */
class RemoveAcrossLeaderChangeTest {
  private static final Duration T = Duration.ofSeconds(30);
  private static final long NODE_MEMORY = 16L << 20;

  private final MasterConfig config =
      MasterConfig.defaults("removes").withTtls(Duration.ofSeconds(60), Duration.ofSeconds(1));
  private Master master;
  private final List<StorageNode> nodes = new ArrayList<>();

  @AfterEach
  void stop() {
    nodes.forEach(StorageNode::close);
    if (master != null) {
      master.close();
    }
  }

  @Test
  void removedKeysStayRemovedAfterTheLeaderThatRemovedThemIsReplaced() throws Exception {
    master = new Master(MasterSettings.local(config, "127.0.0.1", 0, 0)).start();
    HostPort endpoint = master.rpcEndpoint();
    for (String id : List.of("a", "b")) {
      nodes.add(
          new StorageNode(
                  StorageConfig.local(endpoint, id, "127.0.0.1", NODE_MEMORY, 1)
                      .withHeartbeat(Duration.ofSeconds(5)))
              .start(T));
    }
    List<String> removed = new ArrayList<>();
    List<String> kept = new ArrayList<>();
    try (KvPoolClient client = client(endpoint)) {
      for (int i = 0; i < 40; i++) {
        String key = "removes/" + i;
        client.put(key, value(key), 2);
        (i % 2 == 0 ? removed : kept).add(key);
      }
      for (String key : removed) {
        assertThat(client.remove(key)).as(key).isTrue();
      }
    }
    // the leader goes before the nodes' next heartbeat; a new one takes over on the same address
    master.close();
    master = new Master(MasterSettings.local(config, "127.0.0.1", endpoint.port(), 0)).start();

    try (KvPoolClient client = client(endpoint)) {
      for (String key : kept) {
        assertThat(client.get(key)).as(key).isEqualTo(value(key));
      }
      for (String key : removed) {
        assertThat(client.exists(key))
            .as("%s was removed before the leader changed", key)
            .isFalse();
      }
    }
  }

  @Test
  void onlyTheMasterMayReleaseReplicasAndOnlyOneOfTheViewTheNodeFollows() throws Exception {
    master = new Master(MasterSettings.local(config, "127.0.0.1", 0, 0)).start();
    StorageNode node =
        new StorageNode(StorageConfig.local(master.rpcEndpoint(), "a", "127.0.0.1", NODE_MEMORY, 1))
            .start(T);
    nodes.add(node);
    try (KvPoolClient client = client(master.rpcEndpoint())) {
      client.put("kept", value("kept"), 1);
    }
    BodyWriter release = new BodyWriter();
    new ReleaseRequest(List.of(new Release("kept", 1, true)))
        .encode(release, VersionInfo.PROTOCOL_MINOR);
    Handshake asClient = new Handshake(VersionInfo.CURRENT, Role.CLIENT, "removes", "intruder");
    try (RpcConnection c = RpcConnection.open(node.rpcEndpoint(), asClient, T)) {
      assertThatThrownBy(() -> c.call(Opcode.RELEASE, release))
          .isInstanceOf(RemoteErrorException.class)
          .hasMessageContaining("only the master");
    }
    Handshake asMaster = new Handshake(VersionInfo.CURRENT, Role.MASTER, "removes", "master");
    try (RpcConnection c =
        RpcConnection.open(node.rpcEndpoint(), asMaster, 1, T)) { // view 1: long gone
      assertThatThrownBy(() -> c.call(Opcode.RELEASE, release))
          .isInstanceOf(RemoteErrorException.class)
          .hasMessageContaining("deposed leader");
    }
    try (KvPoolClient client = client(master.rpcEndpoint())) {
      assertThat(client.get("kept")).isEqualTo(value("kept"));
    }
  }

  private static KvPoolClient client(HostPort master) {
    return KvPoolClient.connect(
        ClientConfig.builder().master(master).clientId("removes-test").timeout(T).build());
  }

  private static ByteBuffer value(String key) {
    byte[] b = ("value of " + key).repeat(50).getBytes(StandardCharsets.UTF_8);
    return ByteBuffer.allocateDirect(b.length).put(b).flip();
  }
}
