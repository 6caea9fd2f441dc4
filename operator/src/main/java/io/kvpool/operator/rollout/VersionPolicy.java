package io.kvpool.operator.rollout;

import io.kvpool.common.VersionInfo;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Which release changes a pool may take as a rolling upgrade, where old and new pods serve side by
 * side: the same major; one minor step at a time; any patch; a downgrade only where the pool allows
 * it; and, once the images are known, wire protocols the handshake accepts between them (same
 * major, minors at most one apart: {@link VersionInfo#incompatibilityWith}). Pure; every refusal
 * says what was asked, why not, and what to do.
 */
public final class VersionPolicy {
  private static final Pattern SEMVER =
      Pattern.compile("(0|[1-9]\\d*)\\.(0|[1-9]\\d*)\\.(0|[1-9]\\d*)(?:-([0-9A-Za-z.-]+))?");

  private VersionPolicy() {}

  /** A semantic version without build metadata, ordered as semver orders releases. */
  public record Release(int major, int minor, int patch, String preRelease)
      implements Comparable<Release> {
    public static Optional<Release> parse(String text) {
      Matcher m = text == null ? null : SEMVER.matcher(text.trim());
      if (m == null || !m.matches()) {
        return Optional.empty();
      }
      try {
        return Optional.of(
            new Release(
                Integer.parseInt(m.group(1)),
                Integer.parseInt(m.group(2)),
                Integer.parseInt(m.group(3)),
                m.group(4)));
      } catch (NumberFormatException e) {
        return Optional.empty(); // a part beyond int
      }
    }

    @Override
    public int compareTo(Release o) {
      int c = Integer.compare(major, o.major);
      c = c != 0 ? c : Integer.compare(minor, o.minor);
      c = c != 0 ? c : Integer.compare(patch, o.patch);
      if (c != 0) {
        return c;
      }
      if (preRelease == null || o.preRelease == null) {
        return preRelease == null ? (o.preRelease == null ? 0 : 1) : -1; // 1.1.0-rc.1 < 1.1.0
      }
      return comparePreRelease(preRelease, o.preRelease);
    }

    private static int comparePreRelease(String a, String b) {
      String[] x = a.split("\\.");
      String[] y = b.split("\\.");
      for (int i = 0; i < Math.min(x.length, y.length); i++) {
        boolean xn = x[i].matches("\\d+");
        boolean yn = y[i].matches("\\d+");
        int c =
            xn && yn
                ? Long.compare(Long.parseLong(x[i]), Long.parseLong(y[i]))
                : xn ? -1 : yn ? 1 : x[i].compareTo(y[i]);
        if (c != 0) {
          return c;
        }
      }
      return Integer.compare(x.length, y.length);
    }
  }

  /**
   * Empty when the pool may go from release {@code from} to {@code to} one pod at a time, else the
   * reason.
   */
  public static Optional<String> refusal(String from, String to, boolean allowDowngrade) {
    Optional<Release> a = Release.parse(from);
    Optional<Release> b = Release.parse(to);
    if (a.isEmpty() || b.isEmpty()) {
      return Optional.of(
          "cannot compare release "
              + from
              + " with "
              + to
              + ": both must be semantic versions such"
              + " as 1.2.0");
    }
    Release f = a.get();
    Release t = b.get();
    int order = t.compareTo(f);
    if (order == 0) {
      return Optional.empty();
    }
    if (f.major != t.major) {
      return Optional.of(
          "release "
              + from
              + " -> "
              + to
              + " changes the major version, which a rolling upgrade"
              + " cannot cross (old and new pods must serve side by side); keep spec.version "
              + from
              + " or migrate to a new pool");
    }
    boolean downgrade = order < 0;
    if (downgrade && !allowDowngrade) {
      return Optional.of(
          "release "
              + from
              + " -> "
              + to
              + " is a downgrade; set spec.upgrade.allowDowngrade: true"
              + " to allow it, or set spec.version back to "
              + from);
    }
    if (Math.abs(t.minor - f.minor) > 1) {
      String next = f.major + "." + (downgrade ? f.minor - 1 : f.minor + 1) + ".x";
      return Optional.of(
          "release "
              + from
              + " -> "
              + to
              + " skips minor versions; "
              + (downgrade ? "downgrade" : "upgrade")
              + " one minor version at a time: go to "
              + next
              + " first");
    }
    return Optional.empty();
  }

  /**
   * Empty when nodes of protocol {@code fromProtocol} and {@code toProtocol} can talk (the
   * handshake's rule), else the reason naming both images' releases and protocols.
   */
  public static Optional<String> protocolRefusal(
      String fromRelease, String fromProtocol, String toRelease, String toProtocol) {
    Optional<VersionInfo> a = versionInfo(fromRelease, fromProtocol);
    Optional<VersionInfo> b = versionInfo(toRelease, toProtocol);
    if (a.isEmpty() || b.isEmpty()) {
      return Optional.of(
          "cannot read the protocols declared by release "
              + fromRelease
              + " ('"
              + fromProtocol
              + "') and "
              + toRelease
              + " ('"
              + toProtocol
              + "'): expected major.minor such as 2.0");
    }
    String problem = a.get().incompatibilityWith(b.get());
    return problem == null
        ? Optional.empty()
        : Optional.of("old and new pods could not talk during the rollout: " + problem);
  }

  private static Optional<VersionInfo> versionInfo(String release, String protocol) {
    Matcher m =
        protocol == null
            ? null
            : Pattern.compile("(\\d{1,3})\\.(\\d{1,3})").matcher(protocol.trim());
    if (m == null || !m.matches()) {
      return Optional.empty();
    }
    try {
      return Optional.of(
          new VersionInfo(release, Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2))));
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
  }
}
