package io.kvpool.process;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.security.Security;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The address a process advertises: one its peers can dial, never a wildcard. */
public final class Addresses {
  private static final Logger LOG = LoggerFactory.getLogger(Addresses.class);

  private Addresses() {}

  /**
   * {@code advertise} when given; else the bind host unless it is a wildcard ({@code 0.0.0.0},
   * {@code ::}), in which case this machine's address (logged, since it may not be what peers can
   * reach: set the advertise host).
   */
  public static String advertised(String bindHost, String advertise) {
    if (advertise != null && !advertise.isBlank()) {
      return strip(advertise.trim());
    }
    String bind = strip(bindHost);
    if (!isWildcard(bind)) {
      return bind;
    }
    try {
      String local = InetAddress.getLocalHost().getHostAddress();
      LOG.warn(
          "event=advertise_host_guessed bind={} advertise={} hint=\"set --advertise-host (KVPOOL_ADVERTISE_HOST)"
              + " to the address peers dial\"",
          bindHost,
          local);
      return local;
    } catch (UnknownHostException e) {
      throw new IllegalArgumentException(
          "bound to the wildcard "
              + bindHost
              + " and this machine's address is unknown"
              + " ("
              + e.getMessage()
              + "): set --advertise-host (KVPOOL_ADVERTISE_HOST)");
    }
  }

  /**
   * Pods move and come back with new addresses under the same DNS name: keep resolved names for 5 s
   * (the JVM's default is 30 s) and failed lookups for 1 s (10 s), so a recreated master or node is
   * found again at once. Called first thing by every data-plane main.
   */
  public static void followMovingNames() {
    Security.setProperty("networkaddress.cache.ttl", "5");
    Security.setProperty("networkaddress.cache.negative.ttl", "1");
  }

  public static boolean isWildcard(String host) {
    try {
      return InetAddress.getByName(strip(host)).isAnyLocalAddress();
    } catch (UnknownHostException e) {
      return false;
    }
  }

  private static String strip(String host) {
    return host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
  }
}
