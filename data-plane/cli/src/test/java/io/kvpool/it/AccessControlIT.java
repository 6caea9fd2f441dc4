package io.kvpool.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvpool.cli.StorageNodeProcess;
import io.kvpool.client.AuthenticationException;
import io.kvpool.client.ClientConfig;
import io.kvpool.client.KvPoolClient;
import io.kvpool.common.HostPort;
import io.kvpool.common.VersionInfo;
import io.kvpool.protocol.AuthRequest;
import io.kvpool.protocol.BodyReader;
import io.kvpool.protocol.BodyWriter;
import io.kvpool.protocol.ConnectionSecurity;
import io.kvpool.protocol.ErrorCode;
import io.kvpool.protocol.ErrorReply;
import io.kvpool.protocol.Frame;
import io.kvpool.protocol.Handshake;
import io.kvpool.protocol.HandshakeException;
import io.kvpool.protocol.HandshakeReply;
import io.kvpool.protocol.HandshakeRequest;
import io.kvpool.protocol.Opcode;
import io.kvpool.protocol.PoolKey;
import io.kvpool.protocol.RegisterNode;
import io.kvpool.protocol.RemoteErrorException;
import io.kvpool.protocol.Role;
import io.kvpool.protocol.RpcConnection;
import io.kvpool.protocol.SegmentInfo;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A pool whose master and storage nodes are given the pool's secrets (files in a secret folder, as
 * the operator mounts them): peers without the key, with a wrong key, with the client key claiming
 * the storage role, or replaying another connection's AUTH are refused by every server and change
 * nothing stored; a client with the client key works; a key rotation keeps a running client
 * working.
 */
class AccessControlIT {
  private static final Duration TIMEOUT = Duration.ofSeconds(10);
  private static final String CLUSTER_KEY = randomKey();
  private static final String CLIENT_KEY = randomKey();
  private static final Path SECRETS = secretFolder();

  @RegisterExtension
  final LocalPoolExtension pool =
      new LocalPoolExtension(
          b ->
              b.storageNodes(2)
                  .memoryPerNode("64MiB")
                  .masterOption("--secret-dir", SECRETS.toString())
                  .storageOption("--secret-dir", SECRETS.toString()));

  private static Path secretFolder() {
    try {
      Path dir = Files.createTempDirectory("kvpool-it-secrets");
      Files.writeString(dir.resolve("cluster-key"), CLUSTER_KEY);
      Files.writeString(dir.resolve("client-key"), CLIENT_KEY);
      return dir;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String randomKey() {
    byte[] bytes = new byte[32];
    new SecureRandom().nextBytes(bytes);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
  }

  private KvPoolClient client(String key) {
    return KvPoolClient.connect(
        ClientConfig.builder()
            .master(pool.pool().masterAddress())
            .clientId("it-auth")
            .poolKey(key)
            .timeout(TIMEOUT)
            .operationTimeout(TIMEOUT)
            .build());
  }

  private List<HostPort> servers() {
    List<HostPort> all =
        new java.util.ArrayList<>(List.of(HostPort.parse(pool.pool().leaderAddress())));
    for (StorageNodeProcess n : pool.pool().storageNodes()) {
      all.add(HostPort.parse(n.rpcAddress()));
    }
    return all;
  }

  private static RpcConnection connect(HostPort server, Role role, PoolKey key) throws IOException {
    return RpcConnection.open(
        server,
        new Handshake(VersionInfo.CURRENT, role, "", "it-peer"),
        0,
        new ConnectionSecurity(key, null),
        TIMEOUT);
  }

  @Test
  void onlyPeersProvingTheRightKeyForTheirRoleGetIn() throws Exception {
    ByteBuffer value = Values.random(100_000, new SplittableRandom(3));
    try (KvPoolClient good = client(CLIENT_KEY)) {
      good.put("secret-value", value, 2);
    }
    PoolKey wrong = PoolKey.parse(randomKey());
    for (HostPort server : servers()) {
      assertThatThrownBy(() -> connect(server, Role.CLIENT, null))
          .as("no key at %s", server)
          .isInstanceOf(HandshakeException.class)
          .satisfies(
              e -> assertThat(((HandshakeException) e).code()).isEqualTo(ErrorCode.AUTH_REQUIRED));
      assertThatThrownBy(() -> connect(server, Role.CLIENT, wrong))
          .as("wrong key at %s", server)
          .isInstanceOf(HandshakeException.class)
          .satisfies(
              e -> assertThat(((HandshakeException) e).code()).isEqualTo(ErrorCode.AUTH_FAILED));
      assertThatThrownBy(() -> connect(server, Role.STORAGE, PoolKey.parse(CLIENT_KEY)))
          .as("client key claiming the storage role at %s", server)
          .isInstanceOf(HandshakeException.class)
          .satisfies(
              e -> assertThat(((HandshakeException) e).code()).isEqualTo(ErrorCode.AUTH_FAILED))
          .hasMessageContaining("cluster key");
      try (RpcConnection ok = connect(server, Role.CLIENT, PoolKey.parse(CLIENT_KEY))) {
        assertThat(ok.peerReply().auth()).isTrue();
      }
    }
    assertThatThrownBy(() -> client(null).put("intruder", value, 1))
        .isInstanceOf(AuthenticationException.class)
        .hasMessageContaining("requires authentication");
    try (KvPoolClient good = client(CLIENT_KEY)) {
      assertThat(Values.crc(good.get("secret-value"))).isEqualTo(Values.crc(value));
      assertThat(good.exists("intruder")).isFalse();
    }
  }

  @Test
  void aRecordedAuthenticationCannotBeReplayed() throws Exception {
    HostPort master = HostPort.parse(pool.pool().leaderAddress());
    PoolKey key = PoolKey.parse(CLIENT_KEY);
    byte[] recordedHandshake;
    byte[] recordedAuth;
    try (RawConnection legit = new RawConnection(master, 5000)) {
      BodyWriter hs = new BodyWriter();
      new HandshakeRequest(
              new Handshake(VersionInfo.CURRENT, Role.CLIENT, "", "legit"),
              0,
              key.id(),
              new byte[HandshakeRequest.NONCE_BYTES])
          .encode(hs);
      recordedHandshake = bytes(hs.toBuffer());
      legit.sendRequest(Opcode.HANDSHAKE, hs);
      Frame reply = legit.readFrame().orElseThrow();
      BodyReader r = reply.reader();
      HandshakeReply hello = HandshakeReply.decodeRest(Handshake.decodePrefix(r), r);
      BodyWriter auth = new BodyWriter();
      new AuthRequest(key.clientProof(recordedHandshake, hello.nonce())).encode(auth);
      recordedAuth = bytes(auth.toBuffer());
      legit.sendRequest(Opcode.AUTH, auth);
      assertThat(legit.readFrame().orElseThrow().header().isError())
          .as("the legitimate AUTH")
          .isFalse();
    }
    // an eavesdropper replays both messages on a new connection: the server's nonce differs, the
    // proof fails
    try (RawConnection replay = new RawConnection(master, 5000)) {
      replay.sendFrame(
          VersionInfo.PROTOCOL_MAJOR,
          VersionInfo.PROTOCOL_MINOR,
          Opcode.HANDSHAKE.code(),
          ByteBuffer.wrap(recordedHandshake));
      assertThat(replay.readFrame().orElseThrow().header().isError()).isFalse();
      replay.sendFrame(
          VersionInfo.PROTOCOL_MAJOR,
          VersionInfo.PROTOCOL_MINOR,
          Opcode.AUTH.code(),
          ByteBuffer.wrap(recordedAuth));
      Frame refused = replay.readFrame().orElseThrow();
      assertThat(refused.header().isError()).isTrue();
      assertThat(ErrorReply.decode(refused.reader()).code()).isEqualTo(ErrorCode.AUTH_FAILED);
    }
  }

  @Test
  void aFakeStorageNodeCanNeitherRegisterNorTakeOverALiveNodeId() throws Exception {
    HostPort master = HostPort.parse(pool.pool().leaderAddress());
    RegisterNode takeover =
        new RegisterNode(
            pool.pool().storageNodes().get(0).id(),
            "127.0.0.1:9",
            List.of(new SegmentInfo(0, 1 << 20)),
            0,
            false);
    // even with the cluster key, a node id that is alive on another connection is refused
    try (RpcConnection c = connect(master, Role.STORAGE, PoolKey.parse(CLUSTER_KEY));
        RpcConnection.Deadline d = c.deadline(TIMEOUT)) {
      BodyWriter w = new BodyWriter();
      takeover.encode(w, c.agreedMinor());
      assertThatThrownBy(() -> c.call(Opcode.REGISTER_NODE, w))
          .isInstanceOf(RemoteErrorException.class)
          .satisfies(
              e ->
                  assertThat(((RemoteErrorException) e).code())
                      .isEqualTo(ErrorCode.NODE_ID_IN_USE));
    }
    try (KvPoolClient good = client(CLIENT_KEY)) {
      ByteBuffer v = Values.random(10_000, new SplittableRandom(4));
      good.put("after-takeover-attempt", v, 2);
      assertThat(Values.crc(good.get("after-takeover-attempt"))).isEqualTo(Values.crc(v));
    }
  }

  @Test
  void rotatingTheClientKeyKeepsARunningClientWorking() throws Exception {
    String next = randomKey();
    try (KvPoolClient running = client(CLIENT_KEY)) {
      running.put("before-rotation", Values.random(10_000, new SplittableRandom(5)), 2);
      // the operator's rotation: the new key, and the old one still accepted during the window
      Files.writeString(SECRETS.resolve("client-key.previous"), CLIENT_KEY);
      Files.writeString(SECRETS.resolve("client-key"), next);
      // the servers read the new files within their reload period
      Eventually.await(
          TIMEOUT.multipliedBy(3),
          "the new client key accepted",
          () -> {
            try (KvPoolClient rotated = client(next)) {
              rotated.put("with-the-new-key", Values.random(1000, new SplittableRandom(6)), 2);
              return true;
            } catch (AuthenticationException e) {
              return false;
            }
          },
          () -> "still refused");
      // the running client, and new connections with the old key, keep working during the window
      running.put("during-rotation", Values.random(10_000, new SplittableRandom(7)), 2);
      try (KvPoolClient old = client(CLIENT_KEY)) {
        assertThat(old.exists("with-the-new-key")).isTrue();
      }
    } finally {
      Files.writeString(SECRETS.resolve("client-key"), CLIENT_KEY);
      Files.deleteIfExists(SECRETS.resolve("client-key.previous"));
    }
  }

  private static byte[] bytes(ByteBuffer b) {
    byte[] out = new byte[b.remaining()];
    b.duplicate().get(out);
    return out;
  }
}
