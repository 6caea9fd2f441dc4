package io.kvpool.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvpool.client.ChecksumMismatchException;
import io.kvpool.client.ClientConfig;
import io.kvpool.client.KvPoolClient;
import io.kvpool.common.VersionInfo;
import io.kvpool.master.Master;
import io.kvpool.master.MasterConfig;
import io.kvpool.nativemem.HugePageMode;
import io.kvpool.protocol.BodyWriter;
import io.kvpool.protocol.ErrorCode;
import io.kvpool.protocol.FrameHeader;
import io.kvpool.protocol.Handshake;
import io.kvpool.protocol.KeyList;
import io.kvpool.protocol.Opcode;
import io.kvpool.protocol.ProtocolLimits;
import io.kvpool.protocol.PutStartItem;
import io.kvpool.protocol.PutStartReply;
import io.kvpool.protocol.PutStartRequest;
import io.kvpool.protocol.ReadRequest;
import io.kvpool.protocol.RemoteErrorException;
import io.kvpool.protocol.ReplicaGrant;
import io.kvpool.protocol.ReplicaListReply;
import io.kvpool.protocol.Role;
import io.kvpool.protocol.RpcConnection;
import io.kvpool.protocol.Slice;
import io.kvpool.protocol.SliceGrant;
import io.kvpool.protocol.WriteRequest;
import io.kvpool.common.HostPort;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Bad writes and reads against a real storage node are refused and never touch stored neighbours. */
class StorageNodeSafetyTest {
  private static final Duration T = Duration.ofSeconds(5);
  private Master master;
  private StorageNode node;
  private KvPoolClient client;
  private ByteBuffer stored;
  private Slice storedAt;

  @BeforeEach
  void start() throws Exception {
    master = new Master(MasterConfig.defaults("safety"), "127.0.0.1", 0, 0).start();
    node = new StorageNode(new StorageConfig(master.rpcEndpoint(), "n1", "127.0.0.1", 0, 0, 4L << 20, 1,
        Duration.ofMillis(200), HugePageMode.NONE)).start(T);
    client = KvPoolClient.connect(ClientConfig.builder().master(master.rpcEndpoint()).build());
    byte[] bytes = new byte[4096];
    new Random(1).nextBytes(bytes);
    stored = ByteBuffer.allocateDirect(bytes.length).put(bytes).flip();
    client.put("neighbour", stored, 1);
    try (RpcConnection m = open(master.rpcEndpoint()); RpcConnection.Deadline d = m.deadline(T)) {
      BodyWriter w = new BodyWriter();
      new KeyList(List.of("neighbour")).encode(w);
      storedAt = ReplicaListReply.decode(m.call(Opcode.GET_REPLICAS, w, null).reader()).results().get(0).replicas().get(0)
          .slices().get(0);
    }
  }

  @AfterEach
  void stop() {
    client.close();
    node.close();
    master.close();
  }

  private static RpcConnection open(HostPort hp) throws Exception {
    return RpcConnection.open(hp, new Handshake(VersionInfo.CURRENT, Role.CLIENT, "", "attacker"), T);
  }

  private void assertNeighbourIntact() {
    assertThat(client.get("neighbour")).isEqualTo(stored);
  }

  private static ByteBuffer junk(int n) {
    ByteBuffer b = ByteBuffer.allocateDirect(n);
    while (b.hasRemaining()) {
      b.put((byte) 0x5A);
    }
    return b.flip();
  }

  @Test
  void writeWithoutAValidGrantIsRefusedAndTheConnectionStaysUsable() throws Exception {
    try (RpcConnection c = open(node.rpcEndpoint()); RpcConnection.Deadline d = c.deadline(T)) {
      BodyWriter w = new BodyWriter();
      new WriteRequest("neighbour", storedAt.segmentId(), storedAt.offset(), 4096, 0, 4096, 0,
          System.currentTimeMillis() + 60_000, new byte[16]).encode(w);
      assertThatThrownBy(() -> c.call(Opcode.WRITE, w, junk(4096))).isInstanceOf(RemoteErrorException.class)
          .satisfies(e -> assertThat(((RemoteErrorException) e).code()).isEqualTo(ErrorCode.GRANT_REJECTED));
      assertThat(c.call(Opcode.PING, null, null).header().isResponse()).isTrue();
    }
    assertNeighbourIntact();
  }

  @Test
  void grantForOneRangeCannotWriteAnother() throws Exception {
    ReplicaGrant g = startPut("other", 4096);
    try (RpcConnection c = open(node.rpcEndpoint()); RpcConnection.Deadline d = c.deadline(T)) {
      BodyWriter w = new BodyWriter();
      // the token is valid for "other"'s range, not for the neighbour's offset
      SliceGrant s = g.slices().get(0);
      new WriteRequest("other", s.segmentId(), storedAt.offset(), s.length(), 0, 4096, 0, g.expiresAtMillis(),
          s.token()).encode(w);
      assertThatThrownBy(() -> c.call(Opcode.WRITE, w, junk(4096))).isInstanceOf(RemoteErrorException.class)
          .hasMessageContaining("GRANT_REJECTED");
    }
    assertNeighbourIntact();
  }

  @Test
  void outOfBoundsReadsAndWritesAreRefused() throws Exception {
    try (RpcConnection c = open(node.rpcEndpoint()); RpcConnection.Deadline d = c.deadline(T)) {
      BodyWriter w = new BodyWriter();
      new WriteRequest("x", 7, 0, 16, 0, 16, 0, Long.MAX_VALUE, new byte[16]).encode(w);
      assertThatThrownBy(() -> c.call(Opcode.WRITE, w, junk(16))).hasMessageContaining("OUT_OF_BOUNDS");
      BodyWriter r = new BodyWriter();
      new ReadRequest(0, (4L << 20) - 8, 64).encode(r);
      assertThatThrownBy(() -> c.call(Opcode.READ, r, null)).hasMessageContaining("OUT_OF_BOUNDS");
    }
    assertNeighbourIntact();
  }

  @Test
  void truncatedPayloadOnlyTouchesTheGrantedRange() throws Exception {
    ReplicaGrant g = startPut("partial", 64 << 10);
    BodyWriter w = new BodyWriter();
    WriteRequest.of("partial", g, g.slices().get(0), 64 << 10, 0).encode(w);
    ByteBuffer body = w.toBuffer();
    ByteBuffer frame = ByteBuffer.allocate(ProtocolLimits.HEADER_BYTES + body.remaining() + 1000);
    new FrameHeader(1, 0, Opcode.WRITE.code(), 0, 9, body.remaining()).encode(frame);
    frame.put(body).put(new byte[1000]).flip();
    // a raw connection: handshake, then a WRITE whose payload stops after 1000 of 65536 bytes
    try (SocketChannel ch = SocketChannel.open(node.rpcEndpoint().toSocketAddress())) {
      BodyWriter hs = new BodyWriter();
      new Handshake(VersionInfo.CURRENT, Role.CLIENT, "", "raw").encode(hs);
      ByteBuffer hsBody = hs.toBuffer();
      ByteBuffer hsFrame = ByteBuffer.allocate(ProtocolLimits.HEADER_BYTES + hsBody.remaining());
      new FrameHeader(1, 0, Opcode.HANDSHAKE.code(), 0, 1, hsBody.remaining()).encode(hsFrame);
      hsFrame.put(hsBody).flip();
      while (hsFrame.hasRemaining()) {
        ch.write(hsFrame);
      }
      while (frame.hasRemaining()) {
        ch.write(frame);
      }
      ch.shutdownOutput();
      ch.socket().setSoTimeout(5000);
      ByteBuffer sink = ByteBuffer.allocate(4096);
      while (ch.read(sink) >= 0) {
        sink.clear();
      }
    }
    assertNeighbourIntact();
    try (RpcConnection c = open(node.rpcEndpoint()); RpcConnection.Deadline d = c.deadline(T)) {
      assertThat(c.call(Opcode.PING, null, null).header().isResponse()).as("node still serves").isTrue();
    }
  }

  @Test
  void bytesThatDoNotMatchTheRecordedChecksumAreReportedNotReturned() throws Exception {
    ReplicaGrant g = startPut("corrupt", 4096, 0x1234);
    try (RpcConnection c = open(node.rpcEndpoint()); RpcConnection.Deadline d = c.deadline(T)) {
      BodyWriter w = new BodyWriter();
      WriteRequest.of("corrupt", g, g.slices().get(0), 4096, 0x1234).encode(w);
      c.call(Opcode.WRITE, w, junk(4096));
    }
    try (RpcConnection m = open(master.rpcEndpoint()); RpcConnection.Deadline d = m.deadline(T)) {
      BodyWriter w = new BodyWriter();
      new KeyList(List.of("corrupt")).encode(w);
      m.call(Opcode.PUT_END, w, null);
    }
    assertThatThrownBy(() -> client.get("corrupt")).isInstanceOf(ChecksumMismatchException.class)
        .hasMessageContaining("corrupt").hasMessageContaining("0x00001234");
  }

  private ReplicaGrant startPut(String key, int size) throws Exception {
    return startPut(key, size, 0);
  }

  private ReplicaGrant startPut(String key, int size, int checksum) throws Exception {
    try (RpcConnection m = open(master.rpcEndpoint()); RpcConnection.Deadline d = m.deadline(T)) {
      BodyWriter w = new BodyWriter();
      new PutStartRequest(List.of(new PutStartItem(key, size, checksum, 1))).encode(w);
      return PutStartReply.decode(m.call(Opcode.PUT_START, w, null).reader()).results().get(0).replicas().get(0);
    }
  }
}
