package io.kvpool.protocol;

import io.kvpool.common.VersionInfo;

/**
 * The common prefix of every HANDSHAKE body, request and reply, stable across protocol versions:
 * who is talking, which versions, which pool. A decoder reads it first and checks versions before
 * reading further, so any two releases can always tell each other why they cannot talk.
 */
public record Handshake(VersionInfo version, Role role, String poolId, String peerId) {
  public void encode(BodyWriter w) {
    w.string(version.release())
        .u8(version.protocolMajor())
        .u8(version.protocolMinor())
        .u8(role.code())
        .string(poolId)
        .string(peerId);
  }

  /** Reads the prefix only; the caller decodes (or refuses before) the rest. */
  public static Handshake decodePrefix(BodyReader r) throws ProtocolException {
    String release = r.string(128, "release");
    int major = r.u8();
    int minor = r.u8();
    Role role = Role.fromCode(r.u8());
    String poolId = r.string(256, "pool id");
    String peerId = r.string(256, "peer id");
    VersionInfo version;
    try {
      version = new VersionInfo(release, major, minor);
    } catch (IllegalArgumentException e) {
      throw new ProtocolException("handshake: " + e.getMessage());
    }
    return new Handshake(version, role, poolId, peerId);
  }
}
