package io.kvpool.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvpool.common.VersionInfo;
import java.nio.ByteBuffer;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class CodecTest {
  private static BodyReader encoded(java.util.function.Consumer<BodyWriter> encoder) {
    BodyWriter w = new BodyWriter(4);
    encoder.accept(w);
    return new BodyReader(w.toBuffer());
  }

  @Test
  void headerRoundTrips() throws Exception {
    ByteBuffer b = ByteBuffer.allocate(ProtocolLimits.HEADER_BYTES);
    new FrameHeader(1, 0, Opcode.WRITE.code(), FrameHeader.FLAG_RESPONSE, 42, 1234).encode(b);
    b.flip();
    assertThat(FrameHeader.decode(b)).isEqualTo(new FrameHeader(1, 0, 40, 1, 42, 1234));
  }

  @Test
  void headerDecodingIsStrict() {
    assertThatThrownBy(() -> FrameHeader.decode(header(0x12345678, 0, 0, 10)))
        .isInstanceOf(ProtocolException.class)
        .hasMessageContaining("magic");
    assertThatThrownBy(() -> FrameHeader.decode(header(FrameHeader.MAGIC, 0x80, 0, 10)))
        .hasMessageContaining("flags");
    assertThatThrownBy(() -> FrameHeader.decode(header(FrameHeader.MAGIC, 0, 7, 10)))
        .hasMessageContaining("reserved");
    assertThatThrownBy(
            () ->
                FrameHeader.decode(
                    header(FrameHeader.MAGIC, 0, 0, ProtocolLimits.MAX_BODY_BYTES + 1)))
        .hasMessageContaining("exceeds");
    assertThatThrownBy(() -> FrameHeader.decode(ByteBuffer.allocate(10)))
        .hasMessageContaining("truncated");
  }

  static ByteBuffer header(int magic, int flags, int reserved, int bodyLength) {
    ByteBuffer b = ByteBuffer.allocate(ProtocolLimits.HEADER_BYTES);
    b.putInt(magic)
        .put((byte) 1)
        .put((byte) 0)
        .putShort((short) 1)
        .putShort((short) flags)
        .putShort((short) reserved)
        .putLong(1)
        .putInt(bodyLength)
        .flip();
    return b;
  }

  /** Encodes, decodes and compares field by field (byte arrays by content). */
  private static <T> void roundTrips(
      T message, java.util.function.Consumer<BodyWriter> encode, Decoder<T> decode)
      throws Exception {
    BodyWriter w = new BodyWriter();
    encode.accept(w);
    T back = decode.decode(new BodyReader(w.toBuffer()));
    assertThat(back).usingRecursiveComparison().isEqualTo(message);
  }

  @FunctionalInterface
  private interface Decoder<T> {
    T decode(BodyReader r) throws ProtocolException;
  }

  @Test
  void messagesRoundTrip() throws Exception {
    Handshake h = new Handshake(VersionInfo.CURRENT, Role.STORAGE, "pool", "node-1");
    HandshakeRequest hreq = new HandshakeRequest(h, 7, new byte[8], new byte[32]);
    roundTrips(hreq, hreq::encode, r -> HandshakeRequest.decodeRest(Handshake.decodePrefix(r), r));
    HandshakeReply hrep =
        new HandshakeReply(h, 9, ServerState.STANDBY, "[::1]:5", true, new byte[32], new byte[32]);
    roundTrips(hrep, hrep::encode, r -> HandshakeReply.decodeRest(Handshake.decodePrefix(r), r));

    PutStartRequest ps =
        new PutStartRequest(
            List.of(
                new PutStartItem("k1", 100, -5, 2, 77, List.of("n3")),
                new PutStartItem("k2", 1, 7, 1, -1, List.of())));
    roundTrips(ps, ps::encode, PutStartRequest::decode);

    ReplicaGrant g =
        new ReplicaGrant(
            "n",
            "[::1]:5",
            List.of(
                new SliceGrant(new Slice(1, 4096, 100, 0), new byte[] {1, 2, 3}),
                new SliceGrant(new Slice(0, 0, 50, 100), new byte[] {4})));
    PutStartReply sent =
        new PutStartReply(
            List.of(
                new PutStartResult(ErrorCode.OK, "", 1L << 40, 99L, List.of(g)),
                PutStartResult.refused(ErrorCode.PUT_IN_PROGRESS, "busy")));
    roundTrips(sent, sent::encode, PutStartReply::decode);

    PutEndRequest pe =
        new PutEndRequest(List.of(new PutEndItem("k", 5, List.of(new Receipt("n", new byte[16])))));
    roundTrips(pe, pe::encode, PutEndRequest::decode);
    PutRevokeRequest pr = new PutRevokeRequest(List.of(new PutRef("k", 5)));
    roundTrips(pr, pr::encode, PutRevokeRequest::decode);

    ReplicaListReply rl =
        new ReplicaListReply(
            List.of(
                new ReplicaListResult(
                    ErrorCode.OK,
                    10,
                    3,
                    7,
                    5000,
                    List.of(
                        new ReplicaLocation(
                            "n", "h:1", new byte[] {9}, List.of(new Slice(0, 64, 10, 0))))),
                ReplicaListResult.missing(ErrorCode.RECOVERING)));
    roundTrips(rl, rl::encode, ReplicaListReply::decode);

    KeyList keys = new KeyList(List.of("a", "ключ", "c"));
    assertThat(KeyList.decode(encoded(keys::encode))).isEqualTo(keys);

    StatusList st =
        new StatusList(List.of(ErrorCode.OK, ErrorCode.OBJECT_LEASED, ErrorCode.WRITE_INCOMPLETE));
    assertThat(StatusList.decode(encoded(st::encode))).isEqualTo(st);

    RegisterNode rn = new RegisterNode("n", "h:1", List.of(new SegmentInfo(0, 1 << 20)), 12, true);
    roundTrips(rn, w -> rn.encode(w, 2), r -> RegisterNode.decode(r, 2));
    RegisterNode withDisk =
        new RegisterNode(
            "n", "h:1", List.of(new SegmentInfo(0, 1 << 20)), 12, true, "tcp", List.of(), 1L << 34);
    roundTrips(withDisk, w -> withDisk.encode(w, 3), r -> RegisterNode.decode(r, 3));
    RegisterReply rr = new RegisterReply(3, 4, new byte[16], new byte[32]);
    roundTrips(rr, rr::encode, RegisterReply::decode);
    RegisterInventory ri =
        new RegisterInventory(
            new byte[16],
            true,
            List.of(new InventoryObject("k", 9, 2, 10, 1, List.of(new Slice(0, 64, 10, 0)))),
            List.of(new Tombstone("t", 4)));
    roundTrips(ri, ri::encode, RegisterInventory::decode);

    Heartbeat hb = new Heartbeat("n", new byte[16], 5);
    roundTrips(hb, w -> hb.encode(w, 3), r -> Heartbeat.decode(r, 3));
    Heartbeat degradedDisk =
        new Heartbeat(
            "n", new byte[16], 5, Optional.of(new DiskFigures(1 << 30, 4096, "disk full")));
    roundTrips(degradedDisk, w -> degradedDisk.encode(w, 4), r -> Heartbeat.decode(r, 4));
    Heartbeat healthyDisk =
        new Heartbeat("n", new byte[16], 5, Optional.of(new DiskFigures(1 << 30, 0, "")));
    roundTrips(healthyDisk, w -> healthyDisk.encode(w, 4), r -> Heartbeat.decode(r, 4));
    HeartbeatReply hr = new HeartbeatReply(true, 1, 2, true, List.of(new Release("k", 3, true)));
    roundTrips(hr, w -> hr.encode(w, 2), r -> HeartbeatReply.decode(r, 2));
    HeartbeatReply kinds =
        new HeartbeatReply(
            true,
            1,
            2,
            false,
            List.of(new Release("k", 3, true), new Release("m", 4, false), Release.toDisk("d", 5)));
    roundTrips(kinds, w -> kinds.encode(w, 3), r -> HeartbeatReply.decode(r, 3));

    DiskDrop drop =
        new DiskDrop("n", new byte[16], List.of(new PutRef("k", 3), new PutRef("l", 4)));
    roundTrips(drop, drop::encode, DiskDrop::decode);
    ReadObjectRequest ro = new ReadObjectRequest("k", 6, 99, new byte[16]);
    roundTrips(ro, ro::encode, ReadObjectRequest::decode);

    WriteRequest wr = new WriteRequest("k", 6, new Slice(0, 0, 10, 0), 10, 5, 2, 99, new byte[16]);
    roundTrips(wr, wr::encode, WriteRequest::decode);
    ReadRequest read = new ReadRequest("k", 6, 1, 2, 3, 99, new byte[16]);
    roundTrips(read, read::encode, ReadRequest::decode);
    ReplicateRequest rep =
        new ReplicateRequest("k", 6, 10, 5, 2, List.of(new Slice(0, 0, 10, 0)), 99, g);
    roundTrips(rep, rep::encode, ReplicateRequest::decode);
    ReceiptReply receipt = new ReceiptReply(new byte[16]);
    roundTrips(receipt, receipt::encode, ReceiptReply::decode);

    ErrorReply er = new ErrorReply(ErrorCode.VERSION_MISMATCH, "both versions");
    assertThat(ErrorReply.decode(encoded(er::encode))).isEqualTo(er);

    StatsReply s =
        new StatsReply(
            1, 2, 3, 4, ServerState.RECOVERING, new StatsReply.DiskTotals(1 << 30, 5, 2, 1));
    assertThat(StatsReply.decode(encoded(w -> s.encode(w, 5)), 5)).isEqualTo(s);
  }

  @Test
  void statsDiskTotalsAreTrailingFromProtocol25AndRefuseForgedFigures() throws Exception {
    StatsReply s =
        new StatsReply(1, 2, 3, 4, ServerState.SERVING, new StatsReply.DiskTotals(9, 8, 1, 0));
    // a 2.4 peer: the totals are neither sent nor read, and a 2.4 reader refuses them as trailing
    StatsReply old = StatsReply.decode(encoded(w -> s.encode(w, 4)), 4);
    assertThat(old.disk()).isEqualTo(StatsReply.DiskTotals.NONE);
    assertThat(old.capacityBytes()).isEqualTo(1);
    assertThatThrownBy(() -> StatsReply.decode(encoded(w -> s.encode(w, 5)), 4))
        .isInstanceOf(ProtocolException.class);
    assertThatThrownBy(() -> StatsReply.decode(encoded(w -> s.encode(w, 4)), 5))
        .isInstanceOf(ProtocolException.class);
    // negative figures and more degraded tiers than tiers are malformed
    BodyWriter negative = new BodyWriter().i64(1).i64(2).i64(3).i32(4).u8(1);
    negative.i64(-1).i64(0).i32(0).i32(0);
    assertThatThrownBy(() -> StatsReply.decode(new BodyReader(negative.toBuffer()), 5))
        .isInstanceOf(ProtocolException.class);
    BodyWriter degraded = new BodyWriter().i64(1).i64(2).i64(3).i32(4).u8(1);
    degraded.i64(1).i64(0).i32(1).i32(2);
    assertThatThrownBy(() -> StatsReply.decode(new BodyReader(degraded.toBuffer()), 5))
        .isInstanceOf(ProtocolException.class);
  }

  @Test
  void heartbeatDiskFiguresRefuseForgedLengthsAndNegativeFigures() throws Exception {
    // a reason longer than a heartbeat may carry: refused by its declared length
    ByteBuffer longReason =
        new BodyWriter()
            .string("n")
            .bytes(new byte[16])
            .i64(1)
            .bool(true)
            .i64(1 << 20)
            .i64(0)
            .string("x".repeat(DiskFigures.MAX_REASON_BYTES + 1))
            .toBuffer();
    assertThatThrownBy(() -> Heartbeat.decode(new BodyReader(longReason), 4))
        .isInstanceOf(ProtocolException.class);
    ByteBuffer negative =
        new BodyWriter()
            .string("n")
            .bytes(new byte[16])
            .i64(1)
            .bool(true)
            .i64(-1)
            .i64(0)
            .string("")
            .toBuffer();
    assertThatThrownBy(() -> Heartbeat.decode(new BodyReader(negative), 4))
        .isInstanceOf(ProtocolException.class);
    // a 2.3 peer sends no figures: the block is not read
    BodyWriter old = new BodyWriter();
    new Heartbeat("n", new byte[16], 1, Optional.of(new DiskFigures(1, 1, ""))).encode(old, 3);
    assertThat(Heartbeat.decode(new BodyReader(old.toBuffer()), 3).disk()).isEmpty();
  }

  @Test
  void bodyDecodingRefusesTruncationTrailingBytesAndForgedCounts() {
    ByteBuffer full = new BodyWriter().string("key").i32(5).i32(0).u8(1).i64(1).i32(0).toBuffer();
    ByteBuffer truncated = full.duplicate().limit(full.limit() - 2);
    assertThatThrownBy(() -> PutStartItem.decode(new BodyReader(truncated)))
        .isInstanceOf(ProtocolException.class)
        .hasMessageContaining("truncated");

    ByteBuffer trailing =
        new BodyWriter()
            .string("k")
            .i64(1)
            .i32(1)
            .i64(2)
            .i32(3)
            .i64(4)
            .bytes(new byte[1])
            .u8(9)
            .toBuffer();
    assertThatThrownBy(() -> ReadRequest.decode(new BodyReader(trailing)))
        .hasMessageContaining("trailing");

    ByteBuffer forged = new BodyWriter().i32(ProtocolLimits.MAX_BATCH).toBuffer();
    assertThatThrownBy(() -> KeyList.decode(new BodyReader(forged)))
        .hasMessageContaining("cannot fit");

    ByteBuffer tooMany = new BodyWriter().i32(ProtocolLimits.MAX_BATCH + 1).toBuffer();
    assertThatThrownBy(() -> KeyList.decode(new BodyReader(tooMany)))
        .hasMessageContaining("outside");

    ByteBuffer negative = new BodyWriter().i32(-1).toBuffer();
    assertThatThrownBy(() -> KeyList.decode(new BodyReader(negative)))
        .hasMessageContaining("outside");
  }

  @Test
  void keysAreBoundedAndValidUtf8() throws Exception {
    String longKey = String.join("", Collections.nCopies(ProtocolLimits.MAX_KEY_BYTES + 1, "x"));
    ByteBuffer tooLong = new BodyWriter().string(longKey).bool(true).toBuffer();
    assertThatThrownBy(() -> PinRequest.decode(new BodyReader(tooLong)))
        .hasMessageContaining("exceeds the limit");
    // in a batch a key over the limit is decoded and refused per item (LIMIT_EXCEEDED) by the
    // server
    ByteBuffer inBatch = new BodyWriter().i32(1).string(longKey).toBuffer();
    assertThat(Keys.problem(KeyList.decode(new BodyReader(inBatch)).keys().get(0)))
        .contains("exceeds the limit");

    ByteBuffer badUtf8 = ByteBuffer.allocate(4 + 2 + 2);
    badUtf8.putInt(1).putShort((short) 2).put((byte) 0xC3).put((byte) 0x28).flip();
    assertThatThrownBy(() -> KeyList.decode(new BodyReader(badUtf8))).hasMessageContaining("UTF-8");

    ByteBuffer empty = new BodyWriter().string("").bool(true).toBuffer();
    assertThatThrownBy(() -> PinRequest.decode(new BodyReader(empty)))
        .hasMessageContaining("empty");
  }

  @Test
  void enumsRefuseUnknownCodes() {
    assertThatThrownBy(() -> ErrorCode.fromCode(999)).isInstanceOf(ProtocolException.class);
    assertThatThrownBy(() -> Role.fromCode(0)).isInstanceOf(ProtocolException.class);
    assertThat(Opcode.fromCode(999)).isNull();
    ByteBuffer badBool = new BodyWriter().string("k").u8(2).toBuffer();
    assertThatThrownBy(() -> PinRequest.decode(new BodyReader(badBool)))
        .hasMessageContaining("boolean");
    ByteBuffer badKind =
        new BodyWriter()
            .bool(true)
            .i64(1)
            .i64(2)
            .bool(false)
            .i32(1)
            .string("k")
            .i64(3)
            .u8(3)
            .toBuffer();
    assertThatThrownBy(() -> HeartbeatReply.decode(new BodyReader(badKind), 3))
        .hasMessageContaining("release kind");
    ByteBuffer toDiskFor22 =
        new BodyWriter()
            .bool(true)
            .i64(1)
            .i64(2)
            .bool(false)
            .i32(1)
            .string("k")
            .i64(3)
            .u8(2)
            .toBuffer();
    assertThatThrownBy(() -> HeartbeatReply.decode(new BodyReader(toDiskFor22), 2))
        .hasMessageContaining("boolean");
    ByteBuffer negativeDisk =
        new BodyWriter()
            .string("n")
            .string("h:1")
            .i32(0)
            .i64(0)
            .bool(false)
            .string("tcp")
            .i32(0)
            .i64(-1)
            .toBuffer();
    assertThatThrownBy(() -> RegisterNode.decode(new BodyReader(negativeDisk), 3))
        .hasMessageContaining("disk tier");
  }
}
