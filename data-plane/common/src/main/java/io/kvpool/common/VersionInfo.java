package io.kvpool.common;

import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Release version (semver) and wire protocol version (major.minor) of a kvpool binary. Every
 * connection exchanges these in its handshake; {@link #incompatibilityWith} is the one rule.
 */
public final class VersionInfo {
  private static final Pattern SEMVER =
      Pattern.compile(
          "(0|[1-9]\\d*)\\.(0|[1-9]\\d*)\\.(0|[1-9]\\d*)(?:-[0-9A-Za-z.-]+)?(?:\\+[0-9A-Za-z.-]+)?");

  /** The release this build is, unless the image declares another (see {@link #current}). */
  public static final String BUILD_RELEASE = "0.2.0";

  public static final int PROTOCOL_MAJOR = 2;
  public static final int PROTOCOL_MINOR = 5;

  /**
   * Environment variable an image sets to declare its release (two images of the same code, upgrade
   * tests).
   */
  public static final String RELEASE_ENV = "KVPOOL_BUILD_RELEASE";

  /**
   * The release and protocol this process speaks (declared after the pattern its constructor uses).
   */
  public static final VersionInfo CURRENT = current(System.getenv(RELEASE_ENV));

  private final String release;
  private final int protocolMajor;
  private final int protocolMinor;

  public VersionInfo(String release, int protocolMajor, int protocolMinor) {
    if (release == null || !SEMVER.matcher(release).matches()) {
      throw new IllegalArgumentException(
          "release version '" + release + "' is not semver (expected e.g. 0.1.0)");
    }
    if (protocolMajor < 0 || protocolMajor > 255 || protocolMinor < 0 || protocolMinor > 255) {
      throw new IllegalArgumentException(
          "protocol version "
              + protocolMajor
              + "."
              + protocolMinor
              + " out of range (each part 0..255)");
    }
    this.release = release;
    this.protocolMajor = protocolMajor;
    this.protocolMinor = protocolMinor;
  }

  /**
   * This build's versions, with the release replaced by {@code declaredRelease} when that is set.
   */
  static VersionInfo current(String declaredRelease) {
    String release =
        declaredRelease == null || declaredRelease.isBlank()
            ? BUILD_RELEASE
            : declaredRelease.trim();
    return new VersionInfo(release, PROTOCOL_MAJOR, PROTOCOL_MINOR);
  }

  public String release() {
    return release;
  }

  public int protocolMajor() {
    return protocolMajor;
  }

  public int protocolMinor() {
    return protocolMinor;
  }

  public String protocol() {
    return protocolMajor + "." + protocolMinor;
  }

  /**
   * Null when this side can talk to {@code peer}; otherwise the reason, naming both versions. Same
   * protocol major is required; minors may differ by one (the newer side speaks the older dialect).
   */
  public String incompatibilityWith(VersionInfo peer) {
    if (peer.protocolMajor != protocolMajor || Math.abs(peer.protocolMinor - protocolMinor) > 1) {
      return "protocol version mismatch: local release "
          + release
          + " speaks protocol "
          + protocol()
          + ", peer release "
          + peer.release
          + " speaks protocol "
          + peer.protocol()
          + " (same major and minors at most one apart are required; upgrade or downgrade one side)";
    }
    return null;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof VersionInfo v
        && v.release.equals(release)
        && v.protocolMajor == protocolMajor
        && v.protocolMinor == protocolMinor;
  }

  @Override
  public int hashCode() {
    return Objects.hash(release, protocolMajor, protocolMinor);
  }

  @Override
  public String toString() {
    return release + "/" + protocol();
  }
}
