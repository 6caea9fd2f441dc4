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
import io.kvpool.protocol.BlockMetadata;
import io.kvpool.protocol.BodyWriter;
import io.kvpool.protocol.ErrorCode;
import io.kvpool.protocol.FrameHeader;
import io.kvpool.protocol.Handshake;
import io.kvpool.protocol.HandshakeRequest;
import io.kvpool.protocol.KeyList;
import io.kvpool.protocol.Opcode;
import io.kvpool.protocol.ProtocolLimits;
import io.kvpool.protocol.PutEndItem;
import io.kvpool.protocol.PutEndRequest;
import io.kvpool.protocol.PutStartItem;
import io.kvpool.protocol.PutStartReply;
import io.kvpool.protocol.PutStartRequest;
import io.kvpool.protocol.PutStartResult;
import io.kvpool.protocol.ReadBatchReply;
import io.kvpool.protocol.ReadBatchRequest;
import io.kvpool.protocol.ReadRequest;
import io.kvpool.protocol.RemoteErrorException;
import io.kvpool.protocol.ReplicaListReply;
import io.kvpool.protocol.ReplicaListResult;
import io.kvpool.protocol.Role;
import io.kvpool.protocol.RpcConnection;
import io.kvpool.protocol.Slice;
import io.kvpool.protocol.SliceGrant;
import io.kvpool.protocol.StatusList;
import io.kvpool.protocol.WriteBatchReply;
import io.kvpool.protocol.WriteBatchRequest;
import io.kvpool.protocol.WriteReply;
import io.kvpool.protocol.WriteRequest;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Bad writes and reads against a real storage node are refused and never touch stored neighbours.
 */
class StorageNodeSafetyTest {
  private static final Duration T = Duration.ofSeconds(5);
  private Master master;
  private StorageNode node;
  private KvPoolClient client;
  private ByteBuffer stored;
  private ReplicaListResult storedAt;

  @BeforeEach
  void start() throws Exception {
    MasterConfig config =
        MasterConfig.defaults("safety").withTtls(Duration.ofSeconds(10), Duration.ofSeconds(1));
    master = new Master(MasterSettings.local(config, "127.0.0.1", 0, 0)).start();
    node =
        new StorageNode(
                StorageConfig.local(master.rpcEndpoint(), "n1", "127.0.0.1", 4L << 20, 1)
                    .withHeartbeat(Duration.ofMillis(200)))
            .start(T);
    client = KvPoolClient.connect(ClientConfig.builder().master(master.rpcEndpoint()).build());
    stored = random(4096, 1);
    client.put("neighbour", stored, 1);
    storedAt = replicas("neighbour");
  }

  @AfterEach
  void stop() {
    client.close();
    node.close();
    master.close();
  }

  private static RpcConnection open(HostPort hp) throws Exception {
    return RpcConnection.open(
        hp, new Handshake(VersionInfo.CURRENT, Role.CLIENT, "", "attacker"), T);
  }

  private static ByteBuffer random(int n, long seed) {
    byte[] b = new byte[n];
    new Random(seed).nextBytes(b);
    return ByteBuffer.allocateDirect(n).put(b).flip();
  }

  private static int crc(ByteBuffer b) {
    CRC32C c = new CRC32C();
    c.update(b.duplicate());
    return (int) c.getValue();
  }

  private void assertNeighbourIntact() {
    assertThat(client.get("neighbour")).isEqualTo(stored);
  }

  private ReplicaListResult replicas(String key) throws Exception {
    try (RpcConnection m = open(master.rpcEndpoint());
        RpcConnection.Deadline d = m.deadline(T)) {
      BodyWriter w = new BodyWriter();
      new KeyList(List.of(key)).encode(w);
      return ReplicaListReply.decode(m.call(Opcode.GET_REPLICAS, w).reader()).results().get(0);
    }
  }

  private PutStartResult startPut(String key, int size, int checksum) throws Exception {
    try (RpcConnection m = open(master.rpcEndpoint());
        RpcConnection.Deadline d = m.deadline(T)) {
      BodyWriter w = new BodyWriter();
      new PutStartRequest(
              List.of(new PutStartItem(key, size, checksum, 1, new Random().nextLong(), List.of())))
          .encode(w);
      return PutStartReply.decode(m.call(Opcode.PUT_START, w).reader()).results().get(0);
    }
  }

  private ErrorCode endPut(String key, long generation, byte[] receipt) throws Exception {
    try (RpcConnection m = open(master.rpcEndpoint());
        RpcConnection.Deadline d = m.deadline(T)) {
      BodyWriter w = new BodyWriter();
      List<io.kvpool.protocol.Receipt> receipts =
          receipt == null || receipt.length == 0
              ? List.of()
              : List.of(new io.kvpool.protocol.Receipt("n1", receipt));
      new PutEndRequest(List.of(new PutEndItem(key, generation, receipts))).encode(w);
      return StatusList.decode(m.call(Opcode.PUT_END, w).reader()).statuses().get(0);
    }
  }

  private static BodyWriter write(String key, PutStartResult p, int size, int checksum) {
    BodyWriter w = new BodyWriter();
    WriteRequest.of(
            key,
            p.generation(),
            p.replicas().get(0).slices().get(0),
            size,
            checksum,
            1,
            p.expiresAtMillis())
        .encode(w);
    return w;
  }

  private static ErrorCode code(Throwable e) {
    return ((RemoteErrorException) e).code();
  }

  @Test
  void writeWithoutAValidGrantIsRefusedAndTheConnectionStaysUsable() throws Exception {
    Slice at = storedAt.replicas().get(0).slices().get(0);
    try (RpcConnection c = open(node.rpcEndpoint());
        RpcConnection.Deadline d = c.deadline(T)) {
      BodyWriter w = new BodyWriter();
      new WriteRequest(
              "neighbour",
              storedAt.generation(),
              at,
              4096,
              0,
              1,
              System.currentTimeMillis() + 60_000,
              new byte[16])
          .encode(w);
      assertThatThrownBy(() -> c.call(Opcode.WRITE, w, random(4096, 9)))
          .satisfies(e -> assertThat(code(e)).isEqualTo(ErrorCode.GRANT_REJECTED));
      assertThat(c.call(Opcode.PING, null).header().isResponse()).isTrue();
    }
    assertNeighbourIntact();
  }

  @Test
  void grantForOneRangeCannotWriteAnother() throws Exception {
    PutStartResult p = startPut("other", 4096, 0);
    SliceGrant g = p.replicas().get(0).slices().get(0);
    Slice neighbour = storedAt.replicas().get(0).slices().get(0);
    try (RpcConnection c = open(node.rpcEndpoint());
        RpcConnection.Deadline d = c.deadline(T)) {
      BodyWriter w = new BodyWriter();
      new WriteRequest(
              "other",
              p.generation(),
              new Slice(0, neighbour.offset(), 4096, 0),
              4096,
              0,
              1,
              p.expiresAtMillis(),
              g.token())
          .encode(w);
      assertThatThrownBy(() -> c.call(Opcode.WRITE, w, random(4096, 9)))
          .satisfies(e -> assertThat(code(e)).isEqualTo(ErrorCode.GRANT_REJECTED));
    }
    assertNeighbourIntact();
  }

  @Test
  void outOfBoundsReadsAndWritesAreRefused() throws Exception {
    try (RpcConnection c = open(node.rpcEndpoint());
        RpcConnection.Deadline d = c.deadline(T)) {
      BodyWriter w = new BodyWriter();
      new WriteRequest("x", 1, new Slice(7, 0, 16, 0), 16, 0, 1, Long.MAX_VALUE, new byte[16])
          .encode(w);
      assertThatThrownBy(() -> c.call(Opcode.WRITE, w, random(16, 2)))
          .satisfies(e -> assertThat(code(e)).isEqualTo(ErrorCode.OUT_OF_BOUNDS));
      BodyWriter r = new BodyWriter();
      new ReadRequest("x", 1, 0, (4L << 20) - 8, 64, Long.MAX_VALUE, new byte[16]).encode(r);
      assertThatThrownBy(() -> c.call(Opcode.READ, r))
          .satisfies(e -> assertThat(code(e)).isEqualTo(ErrorCode.OUT_OF_BOUNDS));
    }
    assertNeighbourIntact();
  }

  @Test
  void negativeAndOversizedLengthsGetAnErrorReplyAndTheConnectionStaysUsable() throws Exception {
    int over = ProtocolLimits.MAX_VALUE_BYTES + 1;
    try (RpcConnection c = open(node.rpcEndpoint());
        RpcConnection.Deadline d = c.deadline(T)) {
      for (ReadRequest bad :
          List.of(
              new ReadRequest("x", 1, 0, 0, -1, Long.MAX_VALUE, new byte[16]),
              new ReadRequest("x", 1, -1, 0, 16, Long.MAX_VALUE, new byte[16]),
              new ReadRequest("x", 1, 0, -4096, 16, Long.MAX_VALUE, new byte[16]))) {
        BodyWriter r = new BodyWriter();
        bad.encode(r);
        assertThatThrownBy(() -> c.call(Opcode.READ, r))
            .as("%s", bad)
            .satisfies(e -> assertThat(code(e)).isEqualTo(ErrorCode.OUT_OF_BOUNDS));
      }
      BodyWriter huge = new BodyWriter();
      new ReadRequest("x", 1, 0, 0, over, Long.MAX_VALUE, new byte[16]).encode(huge);
      assertThatThrownBy(() -> c.call(Opcode.READ, huge))
          .satisfies(e -> assertThat(code(e)).isEqualTo(ErrorCode.LIMIT_EXCEEDED));
      ReplicaListResult n = replicas("neighbour");
      Slice ns = n.replicas().get(0).slices().get(0);
      BodyWriter batch = new BodyWriter();
      new ReadBatchRequest(
              List.of(
                  new ReadRequest("x", 1, 0, 0, -1, Long.MAX_VALUE, new byte[16]),
                  new ReadRequest(
                      "neighbour",
                      n.generation(),
                      ns.segmentId(),
                      ns.offset(),
                      ns.length(),
                      n.expiresAtMillis(),
                      n.replicas().get(0).token())))
          .encode(batch);
      ReadBatchReply reply = ReadBatchReply.decode(c.call(Opcode.READ_BATCH, batch).reader());
      assertThat(reply.results())
          .extracting(ReadBatchReply.Result::status)
          .containsExactly(ErrorCode.OUT_OF_BOUNDS, ErrorCode.OK);
      ByteBuffer got = ByteBuffer.allocateDirect(ns.length());
      c.readPayload(got);
      assertThat(got.flip()).isEqualTo(stored);
      // writes whose payload length is sound: refused, the payload skipped
      for (WriteRequest bad :
          List.of(
              new WriteRequest(
                  "x", 1, new Slice(-1, 0, 16, 0), 16, 0, 1, Long.MAX_VALUE, new byte[16]),
              new WriteRequest(
                  "x", 1, new Slice(0, -64, 16, 0), 16, 0, 1, Long.MAX_VALUE, new byte[16]),
              new WriteRequest(
                  "x", 1, new Slice(0, 0, 16, 8), 16, 0, 1, Long.MAX_VALUE, new byte[16]),
              new WriteRequest(
                  "x", 1, new Slice(0, 0, 16, -8), 16, 0, 1, Long.MAX_VALUE, new byte[16]))) {
        BodyWriter w = new BodyWriter();
        bad.encode(w);
        assertThatThrownBy(() -> c.call(Opcode.WRITE, w, random(16, 4)))
            .as("%s", bad)
            .satisfies(e -> assertThat(code(e)).isEqualTo(ErrorCode.OUT_OF_BOUNDS));
      }
      for (int size : new int[] {-1, over}) {
        BodyWriter w = new BodyWriter();
        new WriteRequest("x", 1, new Slice(0, 0, 16, 0), size, 0, 1, Long.MAX_VALUE, new byte[16])
            .encode(w);
        assertThatThrownBy(() -> c.call(Opcode.WRITE, w, random(16, 4)))
            .as("value size %d", size)
            .satisfies(e -> assertThat(code(e)).isEqualTo(ErrorCode.LIMIT_EXCEEDED));
      }
      // block metadata over a limit (protocol 2.5): refused with the limit named, payload skipped
      List<byte[]> hashes = new ArrayList<>();
      for (int i = 0; i <= BlockMetadata.MAX_BLOCK_HASHES; i++) {
        hashes.add(new byte[] {(byte) i});
      }
      BodyWriter overLimit = new BodyWriter();
      new WriteRequest("x", 1, new Slice(0, 0, 16, 0), 16, 0, 1, Long.MAX_VALUE, new byte[16])
          .withMetadata(new BlockMetadata(false, hashes, new byte[0], new int[0], 1, 0))
          .encode(overLimit, c.agreedMinor());
      assertThatThrownBy(() -> c.call(Opcode.WRITE, overLimit, random(16, 4)))
          .satisfies(e -> assertThat(code(e)).isEqualTo(ErrorCode.LIMIT_EXCEEDED))
          .hasMessageContaining("65 block hashes");
      assertThat(c.call(Opcode.PING, null).header().isResponse()).isTrue();
    }
    assertNeighbourIntact();
  }

  @Test
  void aWriteWhosePayloadLengthCannotBeIsAnsweredThenItsConnectionCloses() throws Exception {
    for (int length : new int[] {-1, ProtocolLimits.MAX_VALUE_BYTES + 1}) {
      WriteRequest bad =
          new WriteRequest(
              "x", 1, new Slice(0, 0, length, 0), 16, 0, 1, Long.MAX_VALUE, new byte[16]);
      for (Opcode op : List.of(Opcode.WRITE, Opcode.WRITE_BATCH)) {
        try (RpcConnection c = open(node.rpcEndpoint());
            RpcConnection.Deadline d = c.deadline(T)) {
          BodyWriter w = new BodyWriter();
          if (op == Opcode.WRITE) {
            bad.encode(w);
          } else {
            new WriteBatchRequest(List.of(bad)).encode(w);
          }
          assertThatThrownBy(() -> c.call(op, w))
              .as("%s of length %d", op, length)
              .satisfies(e -> assertThat(code(e)).isEqualTo(ErrorCode.LIMIT_EXCEEDED))
              .hasMessageContaining("connection closes");
          assertThatThrownBy(() -> c.call(Opcode.PING, null))
              .as("the stream cannot be followed: closed")
              .isInstanceOf(java.io.IOException.class)
              .isNotInstanceOf(RemoteErrorException.class);
        }
      }
    }
    assertNeighbourIntact();
  }

  @Test
  void readsNeedTheTokenOfThatObjectAndRangeWithinItsLease() throws Exception {
    ReplicaListResult r = replicas("neighbour");
    Slice s = r.replicas().get(0).slices().get(0);
    byte[] token = r.replicas().get(0).token();
    client.put("second", random(4096, 3), 1);
    ReplicaListResult other = replicas("second");
    Slice otherSlice = other.replicas().get(0).slices().get(0);
    try (RpcConnection c = open(node.rpcEndpoint());
        RpcConnection.Deadline d = c.deadline(T)) {
      // no token
      assertThatThrownBy(
              () ->
                  c.call(
                      Opcode.READ,
                      read("neighbour", r.generation(), s, r.expiresAtMillis(), new byte[16])))
          .satisfies(e -> assertThat(code(e)).isEqualTo(ErrorCode.TOKEN_REJECTED));
      // a valid token of "neighbour" for the range of another object
      assertThatThrownBy(
              () ->
                  c.call(
                      Opcode.READ,
                      read("neighbour", r.generation(), otherSlice, r.expiresAtMillis(), token)))
          .satisfies(e -> assertThat(code(e)).isEqualTo(ErrorCode.NOT_FOUND));
      // a whole segment with a valid token
      assertThatThrownBy(
              () ->
                  c.call(
                      Opcode.READ,
                      read(
                          "neighbour",
                          r.generation(),
                          new Slice(0, 0, 1 << 20, 0),
                          r.expiresAtMillis(),
                          token)))
          .satisfies(e -> assertThat(code(e)).isEqualTo(ErrorCode.NOT_FOUND));
      // the real thing works
      c.call(Opcode.READ, read("neighbour", r.generation(), s, r.expiresAtMillis(), token));
      ByteBuffer sink = ByteBuffer.allocateDirect(s.length());
      c.readPayload(sink);
      assertThat(sink.flip()).isEqualTo(stored);
    }
    // after the lease (1 s in this pool) the same token is refused
    long waitUntil = r.expiresAtMillis() + 50;
    while (System.currentTimeMillis() < waitUntil) {
      Thread.sleep(
          20); // the lease is a deadline in wall-clock time: waiting for it to pass is the point
    }
    try (RpcConnection c = open(node.rpcEndpoint());
        RpcConnection.Deadline d = c.deadline(T)) {
      assertThatThrownBy(
              () ->
                  c.call(
                      Opcode.READ,
                      read("neighbour", r.generation(), s, r.expiresAtMillis(), token)))
          .satisfies(e -> assertThat(code(e)).isEqualTo(ErrorCode.TOKEN_REJECTED));
    }
  }

  private static BodyWriter read(
      String key, long generation, Slice s, long expiresAt, byte[] token) {
    BodyWriter w = new BodyWriter();
    new ReadRequest(key, generation, s.segmentId(), s.offset(), s.length(), expiresAt, token)
        .encode(w);
    return w;
  }

  @Test
  void aLateWriterOfARemovedObjectCannotCorruptTheObjectThatReusedItsRange() throws Exception {
    ByteBuffer x = random(4096, 4);
    PutStartResult px = startPut("x", 4096, crc(x));
    byte[] receipt;
    try (RpcConnection c = open(node.rpcEndpoint());
        RpcConnection.Deadline d = c.deadline(T)) {
      receipt =
          WriteReply.decode(
                  c.call(Opcode.WRITE, write("x", px, 4096, crc(x)), x.duplicate()).reader(),
                  c.agreedMinor())
              .receipt();
    }
    assertThat(endPut("x", px.generation(), receipt)).isEqualTo(ErrorCode.OK);
    assertThat(client.remove("x")).isTrue();
    // new values until one lands in x's old range
    Slice old = px.replicas().get(0).slices().get(0).slice();
    String reused = null;
    for (int i = 0; i < 500 && reused == null; i++) {
      client.put("y" + i, random(4096, 100 + i), 1);
      if (replicas("y" + i).replicas().get(0).slices().get(0).offset() == old.offset()) {
        reused = "y" + i;
      }
    }
    assertThat(reused).as("a later put reused the removed object's range").isNotNull();
    ByteBuffer expected = client.get(reused);
    try (RpcConnection c = open(node.rpcEndpoint());
        RpcConnection.Deadline d = c.deadline(T)) {
      assertThatThrownBy(() -> c.call(Opcode.WRITE, write("x", px, 4096, crc(x)), random(4096, 77)))
          .satisfies(e -> assertThat(code(e)).isEqualTo(ErrorCode.GRANT_REJECTED))
          .hasMessageContaining("deleted");
    }
    assertThat(client.get(reused)).isEqualTo(expected);
  }

  @Test
  void aWriteCutOffMidPayloadLeavesNothingVisible() throws Exception {
    PutStartResult p = startPut("partial", 64 << 10, 0);
    ByteBuffer body = write("partial", p, 64 << 10, 0).toBuffer();
    ByteBuffer frame = ByteBuffer.allocate(ProtocolLimits.HEADER_BYTES + body.remaining() + 1000);
    new FrameHeader(
            VersionInfo.PROTOCOL_MAJOR,
            VersionInfo.PROTOCOL_MINOR,
            Opcode.WRITE.code(),
            0,
            9,
            body.remaining())
        .encode(frame);
    frame.put(body).put(new byte[1000]).flip();
    sendAfterHandshakeAndHangUp(frame);
    assertThat(endPut("partial", p.generation(), null)).isEqualTo(ErrorCode.WRITE_INCOMPLETE);
    assertThat(client.exists("partial")).isFalse();
    assertNeighbourIntact();
  }

  @Test
  void bytesThatDoNotMatchTheChecksumAreRefusedAndNeverVisible() throws Exception {
    PutStartResult p = startPut("corrupt", 4096, 0x1234);
    try (RpcConnection c = open(node.rpcEndpoint());
        RpcConnection.Deadline d = c.deadline(T)) {
      assertThatThrownBy(
              () -> c.call(Opcode.WRITE, write("corrupt", p, 4096, 0x1234), random(4096, 5)))
          .satisfies(e -> assertThat(code(e)).isEqualTo(ErrorCode.CHECKSUM_MISMATCH));
    }
    assertThat(endPut("corrupt", p.generation(), null)).isEqualTo(ErrorCode.WRITE_INCOMPLETE);
    assertThat(client.exists("corrupt")).isFalse();
  }

  @Test
  void aValueWrittenAsSeveralSlicesIsCheckedWholeOnceItsLastSliceLands() throws Exception {
    // a node of four 2 MiB segments holds a 3 MiB value only as two slices, each its own WRITE: the
    // node cannot take
    // the checksum as one payload lands, so it takes it over both slices when the second completes
    // the value
    stop();
    master =
        new Master(MasterSettings.local(MasterConfig.defaults("safety"), "127.0.0.1", 0, 0))
            .start();
    node =
        new StorageNode(
                StorageConfig.local(master.rpcEndpoint(), "n1", "127.0.0.1", 8L << 20, 4)
                    .withHeartbeat(Duration.ofMillis(200)))
            .start(T);
    client = KvPoolClient.connect(ClientConfig.builder().master(master.rpcEndpoint()).build());
    int size = 3 << 20;
    ByteBuffer value = random(size, 11);
    int checksum = crc(value);
    ByteBuffer corrupt = ByteBuffer.allocateDirect(size).put(value.duplicate()).flip();
    corrupt.put(size / 2, (byte) (corrupt.get(size / 2) ^ 0x01));
    for (ByteBuffer bytes : List.of(corrupt, value)) {
      String key = bytes == value ? "split" : "split-corrupt";
      PutStartResult p = startPut(key, size, checksum);
      assertThat(p.status()).as(p.message()).isEqualTo(ErrorCode.OK);
      List<SliceGrant> slices = p.replicas().get(0).slices();
      assertThat(slices).hasSize(2);
      byte[] receipt = null;
      try (RpcConnection c = open(node.rpcEndpoint());
          RpcConnection.Deadline d = c.deadline(T)) {
        for (SliceGrant g : slices) {
          BodyWriter w = new BodyWriter();
          WriteRequest.of(key, p.generation(), g, size, checksum, 1, p.expiresAtMillis()).encode(w);
          ByteBuffer part =
              bytes
                  .duplicate()
                  .position(g.slice().valueOffset())
                  .limit(g.slice().valueOffset() + g.slice().length());
          if (bytes == corrupt && g == slices.get(slices.size() - 1)) {
            assertThatThrownBy(() -> c.call(Opcode.WRITE, w, part))
                .satisfies(e -> assertThat(code(e)).isEqualTo(ErrorCode.CHECKSUM_MISMATCH));
          } else {
            receipt =
                WriteReply.decode(c.call(Opcode.WRITE, w, part).reader(), c.agreedMinor())
                    .receipt();
          }
        }
      }
      if (bytes == corrupt) {
        assertThat(endPut(key, p.generation(), null)).isEqualTo(ErrorCode.WRITE_INCOMPLETE);
        assertThat(client.exists(key)).isFalse();
      } else {
        assertThat(endPut(key, p.generation(), receipt)).isEqualTo(ErrorCode.OK);
        assertThat(client.get(key)).isEqualTo(value);
      }
    }
  }

  @Test
  void aLargeValueWithOneFlippedLastByteIsRefusedAndTheIntactOneAccepted() throws Exception {
    // 1 MiB arrives in many reads: the node's check must cover the last run too
    ByteBuffer value = random(1 << 20, 7);
    int checksum = crc(value);
    ByteBuffer corrupt = ByteBuffer.allocateDirect(value.remaining()).put(value.duplicate()).flip();
    corrupt.put(corrupt.limit() - 1, (byte) (corrupt.get(corrupt.limit() - 1) ^ 0x40));
    PutStartResult bad = startPut("big-corrupt", 1 << 20, checksum);
    try (RpcConnection c = open(node.rpcEndpoint());
        RpcConnection.Deadline d = c.deadline(T)) {
      assertThatThrownBy(
              () -> c.call(Opcode.WRITE, write("big-corrupt", bad, 1 << 20, checksum), corrupt))
          .satisfies(e -> assertThat(code(e)).isEqualTo(ErrorCode.CHECKSUM_MISMATCH));
    }
    assertThat(endPut("big-corrupt", bad.generation(), null)).isEqualTo(ErrorCode.WRITE_INCOMPLETE);
    assertThat(client.exists("big-corrupt")).isFalse();

    PutStartResult good = startPut("big", 1 << 20, checksum);
    try (RpcConnection c = open(node.rpcEndpoint());
        RpcConnection.Deadline d = c.deadline(T)) {
      byte[] receipt =
          WriteReply.decode(
                  c.call(Opcode.WRITE, write("big", good, 1 << 20, checksum), value.duplicate())
                      .reader(),
                  c.agreedMinor())
              .receipt();
      assertThat(endPut("big", good.generation(), receipt)).isEqualTo(ErrorCode.OK);
    }
    assertThat(client.get("big")).isEqualTo(value);
    assertNeighbourIntact();
  }

  @Test
  void aWriteBatchRefusesItsItemsOneByOneAndKeepsTheStreamInStep() throws Exception {
    ByteBuffer a = random(4096, 21);
    ByteBuffer b = random(8192, 22);
    ByteBuffer c3 = random(1000, 23);
    PutStartResult pa = startPut("wb-a", 4096, crc(a));
    PutStartResult pb = startPut("wb-b", 8192, crc(b));
    PutStartResult pc = startPut("wb-c", 1000, crc(c3));
    SliceGrant gb = pb.replicas().get(0).slices().get(0);
    byte[] forged = gb.token().clone();
    forged[0] ^= 1;
    List<WriteRequest> items =
        List.of(
            WriteRequest.of(
                "wb-a",
                pa.generation(),
                pa.replicas().get(0).slices().get(0),
                4096,
                crc(a),
                1,
                pa.expiresAtMillis()),
            new WriteRequest(
                "wb-b", pb.generation(), gb.slice(), 8192, crc(b), 1, pb.expiresAtMillis(), forged),
            WriteRequest.of(
                "wb-c",
                pc.generation(),
                pc.replicas().get(0).slices().get(0),
                1000,
                crc(c3),
                1,
                pc.expiresAtMillis()));
    BodyWriter w = new BodyWriter();
    new WriteBatchRequest(items).encode(w);
    try (RpcConnection c = open(node.rpcEndpoint());
        RpcConnection.Deadline d = c.deadline(T)) {
      List<WriteBatchReply.Result> results =
          WriteBatchReply.decode(
                  c.call(Opcode.WRITE_BATCH, w, a.duplicate(), b.duplicate(), c3.duplicate())
                      .reader(),
                  c.agreedMinor())
              .results();
      assertThat(results)
          .extracting(WriteBatchReply.Result::status)
          .containsExactly(ErrorCode.OK, ErrorCode.GRANT_REJECTED, ErrorCode.OK);
      assertThat(results.get(1).message()).contains("does not match");
      assertThat(c.call(Opcode.PING, null).header().isResponse())
          .as("the refused payload was consumed")
          .isTrue();
      assertThat(endPut("wb-a", pa.generation(), results.get(0).receipt())).isEqualTo(ErrorCode.OK);
      assertThat(endPut("wb-c", pc.generation(), results.get(2).receipt())).isEqualTo(ErrorCode.OK);
      assertThat(endPut("wb-b", pb.generation(), results.get(1).receipt()))
          .isEqualTo(ErrorCode.WRITE_INCOMPLETE);
    }
    assertThat(client.get("wb-a")).isEqualTo(a);
    assertThat(client.get("wb-c")).isEqualTo(c3);
    assertThat(client.exists("wb-b")).isFalse();
    assertNeighbourIntact();
  }

  @Test
  void aReadBatchServesEachReadOnItsOwnTokenAndSendsOnlyWhatItServes() throws Exception {
    ByteBuffer second = random(2048, 31);
    client.put("rb-second", second, 1);
    ReplicaListResult n = replicas("neighbour");
    ReplicaListResult s2 = replicas("rb-second");
    Slice ns = n.replicas().get(0).slices().get(0);
    Slice ss = s2.replicas().get(0).slices().get(0);
    List<ReadRequest> items =
        List.of(
            new ReadRequest(
                "neighbour",
                n.generation(),
                ns.segmentId(),
                ns.offset(),
                ns.length(),
                n.expiresAtMillis(),
                n.replicas().get(0).token()),
            // the neighbour's token for the other object's range, then no token at all
            new ReadRequest(
                "neighbour",
                n.generation(),
                ss.segmentId(),
                ss.offset(),
                ss.length(),
                n.expiresAtMillis(),
                n.replicas().get(0).token()),
            new ReadRequest(
                "rb-second",
                s2.generation(),
                ss.segmentId(),
                ss.offset(),
                ss.length(),
                s2.expiresAtMillis(),
                new byte[16]),
            new ReadRequest(
                "rb-second",
                s2.generation(),
                ss.segmentId(),
                ss.offset(),
                ss.length(),
                s2.expiresAtMillis(),
                s2.replicas().get(0).token()));
    BodyWriter w = new BodyWriter();
    new ReadBatchRequest(items).encode(w);
    try (RpcConnection c = open(node.rpcEndpoint());
        RpcConnection.Deadline d = c.deadline(T)) {
      ReadBatchReply reply = ReadBatchReply.decode(c.call(Opcode.READ_BATCH, w).reader());
      assertThat(reply.results())
          .extracting(ReadBatchReply.Result::status)
          .containsExactly(
              ErrorCode.OK, ErrorCode.NOT_FOUND, ErrorCode.TOKEN_REJECTED, ErrorCode.OK);
      assertThat(reply.payloadBytes()).isEqualTo(4096 + 2048);
      ByteBuffer first = ByteBuffer.allocateDirect(4096);
      ByteBuffer last = ByteBuffer.allocateDirect(2048);
      c.readPayload(first);
      c.readPayload(last);
      assertThat(first.flip()).isEqualTo(stored);
      assertThat(last.flip()).isEqualTo(second);
      assertThat(c.call(Opcode.PING, null).header().isResponse()).isTrue();
    }
  }

  @Test
  void aWriteBatchCutOffMidPayloadLeavesNothingIncomplete() throws Exception {
    PutStartResult p = startPut("wb-partial", 64 << 10, 0);
    BodyWriter w = new BodyWriter();
    new WriteBatchRequest(
            List.of(
                WriteRequest.of(
                    "wb-partial",
                    p.generation(),
                    p.replicas().get(0).slices().get(0),
                    64 << 10,
                    0,
                    1,
                    p.expiresAtMillis())))
        .encode(w);
    ByteBuffer body = w.toBuffer();
    ByteBuffer frame = ByteBuffer.allocate(ProtocolLimits.HEADER_BYTES + body.remaining() + 1000);
    new FrameHeader(
            VersionInfo.PROTOCOL_MAJOR,
            VersionInfo.PROTOCOL_MINOR,
            Opcode.WRITE_BATCH.code(),
            0,
            9,
            body.remaining())
        .encode(frame);
    frame.put(body).put(new byte[1000]).flip();
    sendAfterHandshakeAndHangUp(frame);
    assertThat(endPut("wb-partial", p.generation(), null)).isEqualTo(ErrorCode.WRITE_INCOMPLETE);
    assertThat(client.exists("wb-partial")).isFalse();
    assertNeighbourIntact();
  }

  /**
   * A raw connection that shakes hands, sends {@code frame} as it is (however cut off) and closes
   * its side.
   */
  private void sendAfterHandshakeAndHangUp(ByteBuffer frame) throws Exception {
    try (SocketChannel ch = SocketChannel.open(node.rpcEndpoint().toSocketAddress())) {
      BodyWriter hs = new BodyWriter();
      new HandshakeRequest(
              new Handshake(VersionInfo.CURRENT, Role.CLIENT, "", "raw"),
              0,
              new byte[0],
              new byte[HandshakeRequest.NONCE_BYTES])
          .encode(hs);
      ByteBuffer hsBody = hs.toBuffer();
      ByteBuffer hsFrame = ByteBuffer.allocate(ProtocolLimits.HEADER_BYTES + hsBody.remaining());
      new FrameHeader(
              VersionInfo.PROTOCOL_MAJOR,
              VersionInfo.PROTOCOL_MINOR,
              Opcode.HANDSHAKE.code(),
              0,
              1,
              hsBody.remaining())
          .encode(hsFrame);
      hsFrame.put(hsBody).flip();
      while (hsFrame.hasRemaining()) {
        ch.write(hsFrame);
      }
      while (frame.hasRemaining()) {
        ch.write(frame);
      }
      ch.shutdownOutput();
      ByteBuffer sink = ByteBuffer.allocate(4096);
      while (ch.read(sink) >= 0) {
        sink.clear();
      }
    }
  }
}
