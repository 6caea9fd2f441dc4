package io.kvpool.protocol;

import io.kvpool.common.VersionInfo;

/** First frame of every connection, sent by both sides: who is talking, which versions, which pool. */
public record Handshake(VersionInfo version, Role role, String poolId, String peerId) {
  public void encode(BodyWriter w) {
    w.string(version.release()).u8(version.protocolMajor()).u8(version.protocolMinor())
        .u8(role.code()).string(poolId).string(peerId);
  }

  public static Handshake decode(BodyReader r) throws ProtocolException {
    String release = r.string(128, "release");
    int major = r.u8();
    int minor = r.u8();
    Role role = Role.fromCode(r.u8());
    String poolId = r.string(256, "pool id");
    String peerId = r.string(256, "peer id");
    r.finish();
    VersionInfo version;
    try {
      version = new VersionInfo(release, major, minor);
    } catch (IllegalArgumentException e) {
      throw new ProtocolException("handshake: " + e.getMessage());
    }
    return new Handshake(version, role, poolId, peerId);
  }
}
