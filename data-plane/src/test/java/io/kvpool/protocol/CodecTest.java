package io.kvpool.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvpool.common.VersionInfo;
import java.nio.ByteBuffer;
import java.util.Collections;
import java.util.List;
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
        .isInstanceOf(ProtocolException.class).hasMessageContaining("magic");
    assertThatThrownBy(() -> FrameHeader.decode(header(FrameHeader.MAGIC, 0x80, 0, 10)))
        .hasMessageContaining("flags");
    assertThatThrownBy(() -> FrameHeader.decode(header(FrameHeader.MAGIC, 0, 7, 10)))
        .hasMessageContaining("reserved");
    assertThatThrownBy(() -> FrameHeader.decode(header(FrameHeader.MAGIC, 0, 0, ProtocolLimits.MAX_BODY_BYTES + 1)))
        .hasMessageContaining("exceeds");
    assertThatThrownBy(() -> FrameHeader.decode(ByteBuffer.allocate(10))).hasMessageContaining("truncated");
  }

  static ByteBuffer header(int magic, int flags, int reserved, int bodyLength) {
    ByteBuffer b = ByteBuffer.allocate(ProtocolLimits.HEADER_BYTES);
    b.putInt(magic).put((byte) 1).put((byte) 0).putShort((short) 1).putShort((short) flags)
        .putShort((short) reserved).putLong(1).putInt(bodyLength).flip();
    return b;
  }

  @Test
  void messagesRoundTrip() throws Exception {
    Handshake h = new Handshake(VersionInfo.CURRENT, Role.STORAGE, "pool", "node-1");
    assertThat(Handshake.decode(encoded(h::encode))).isEqualTo(h);

    PutStartRequest ps = new PutStartRequest(List.of(new PutStartItem("k1", 100, -5, 2), new PutStartItem("k2", 0, 7, 1)));
    assertThat(PutStartRequest.decode(encoded(ps::encode))).isEqualTo(ps);

    ReplicaGrant g = new ReplicaGrant("n", "127.0.0.1:5", 99L, List.of(new SliceGrant(1, 4096, 100, 0, new byte[] {1, 2, 3}),
        new SliceGrant(0, 0, 50, 100, new byte[] {4})));
    PutStartReply sent = new PutStartReply(List.of(new PutStartResult(ErrorCode.OK, "", List.of(g))));
    PutStartReply reply = PutStartReply.decode(encoded(sent::encode));
    ReplicaGrant back = reply.results().get(0).replicas().get(0);
    assertThat(back.slices()).hasSize(2);
    assertThat(back.slices().get(0).token()).containsExactly(1, 2, 3);
    assertThat(back.slices().get(0).offset()).isEqualTo(4096);
    assertThat(back.slices().get(1).slice()).isEqualTo(new Slice(0, 0, 50, 100));

    ReplicaListReply rl = new ReplicaListReply(List.of(new ReplicaListResult(ErrorCode.OK, 10, 3, 5000,
        List.of(new ReplicaLocation("n", "h:1", List.of(new Slice(0, 64, 10, 0))))), ReplicaListResult.missing(ErrorCode.NOT_FOUND)));
    assertThat(ReplicaListReply.decode(encoded(rl::encode))).isEqualTo(rl);

    KeyList keys = new KeyList(List.of("a", "ключ", "c"));
    assertThat(KeyList.decode(encoded(keys::encode))).isEqualTo(keys);

    StatusList st = new StatusList(List.of(ErrorCode.OK, ErrorCode.OBJECT_LEASED));
    assertThat(StatusList.decode(encoded(st::encode))).isEqualTo(st);

    RegisterNode rn = new RegisterNode("n", "h:1", List.of(new SegmentInfo(0, 1 << 20)),
        List.of(new InventoryEntry("k", 0, 64, 10, 0, 10, 9)));
    assertThat(RegisterNode.decode(encoded(rn::encode))).isEqualTo(rn);

    HeartbeatReply hb = new HeartbeatReply(true, 1, List.of(new Location(0, 128)));
    assertThat(HeartbeatReply.decode(encoded(hb::encode))).isEqualTo(hb);

    ReadRequest rr = new ReadRequest(1, 2, 3);
    assertThat(ReadRequest.decode(encoded(rr::encode))).isEqualTo(rr);

    ErrorReply er = new ErrorReply(ErrorCode.VERSION_MISMATCH, "both versions");
    assertThat(ErrorReply.decode(encoded(er::encode))).isEqualTo(er);

    StatsReply s = new StatsReply(1, 2, 3, 4);
    assertThat(StatsReply.decode(encoded(s::encode))).isEqualTo(s);
  }

  @Test
  void bodyDecodingRefusesTruncationTrailingBytesAndForgedCounts() {
    ByteBuffer full = new BodyWriter().string("key").i32(5).i32(0).u8(1).toBuffer();
    ByteBuffer truncated = full.duplicate().limit(full.limit() - 2);
    assertThatThrownBy(() -> PutStartItem.decode(new BodyReader(truncated))).isInstanceOf(ProtocolException.class)
        .hasMessageContaining("truncated");

    ByteBuffer trailing = new BodyWriter().i32(1).i64(2).i32(3).u8(9).toBuffer();
    assertThatThrownBy(() -> ReadRequest.decode(new BodyReader(trailing))).hasMessageContaining("trailing");

    ByteBuffer forged = new BodyWriter().i32(ProtocolLimits.MAX_BATCH).toBuffer();
    assertThatThrownBy(() -> KeyList.decode(new BodyReader(forged))).hasMessageContaining("cannot fit");

    ByteBuffer tooMany = new BodyWriter().i32(ProtocolLimits.MAX_BATCH + 1).toBuffer();
    assertThatThrownBy(() -> KeyList.decode(new BodyReader(tooMany))).hasMessageContaining("outside");

    ByteBuffer negative = new BodyWriter().i32(-1).toBuffer();
    assertThatThrownBy(() -> KeyList.decode(new BodyReader(negative))).hasMessageContaining("outside");
  }

  @Test
  void keysAreBoundedAndValidUtf8() {
    String longKey = String.join("", Collections.nCopies(ProtocolLimits.MAX_KEY_BYTES + 1, "x"));
    ByteBuffer tooLong = new BodyWriter().i32(1).string(longKey).toBuffer();
    assertThatThrownBy(() -> KeyList.decode(new BodyReader(tooLong))).hasMessageContaining("exceeds the limit");

    ByteBuffer badUtf8 = ByteBuffer.allocate(4 + 2 + 2);
    badUtf8.putInt(1).putShort((short) 2).put((byte) 0xC3).put((byte) 0x28).flip();
    assertThatThrownBy(() -> KeyList.decode(new BodyReader(badUtf8))).hasMessageContaining("UTF-8");

    ByteBuffer empty = new BodyWriter().string("").bool(true).toBuffer();
    assertThatThrownBy(() -> PinRequest.decode(new BodyReader(empty))).hasMessageContaining("empty");
  }

  @Test
  void enumsRefuseUnknownCodes() {
    assertThatThrownBy(() -> ErrorCode.fromCode(999)).isInstanceOf(ProtocolException.class);
    assertThatThrownBy(() -> Role.fromCode(0)).isInstanceOf(ProtocolException.class);
    assertThat(Opcode.fromCode(999)).isNull();
    ByteBuffer badBool = new BodyWriter().string("k").u8(2).toBuffer();
    assertThatThrownBy(() -> PinRequest.decode(new BodyReader(badBool))).hasMessageContaining("boolean");
  }

  @Test
  void grantTokensBindKeyAndRange() {
    GrantSigner s = new GrantSigner(GrantSigner.newKey());
    byte[] t = s.sign("k", 0, 64, 100, 1000);
    assertThat(s.verify("k", 0, 64, 100, 1000, t)).isTrue();
    assertThat(s.verify("k", 0, 128, 100, 1000, t)).isFalse();
    assertThat(s.verify("k", 0, 64, 101, 1000, t)).isFalse();
    assertThat(s.verify("other", 0, 64, 100, 1000, t)).isFalse();
    assertThat(new GrantSigner(GrantSigner.newKey()).verify("k", 0, 64, 100, 1000, t)).isFalse();
  }
}
