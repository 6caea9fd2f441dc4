package io.kvpool.it;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.util.Collections;

/**
 * Addresses for tests that bind the wildcard as pods do and advertise an address peers can dial.
 */
public final class TestHosts {
  private TestHosts() {}

  /** This machine's first non-loopback IPv4 address (as a pod IP would be), else 127.0.0.1. */
  public static String routableIpv4() {
    try {
      for (NetworkInterface nic : Collections.list(NetworkInterface.getNetworkInterfaces())) {
        if (!nic.isUp() || nic.isLoopback()) {
          continue;
        }
        for (InetAddress a : Collections.list(nic.getInetAddresses())) {
          if (a instanceof Inet4Address && !a.isLinkLocalAddress()) {
            return a.getHostAddress();
          }
        }
      }
    } catch (SocketException e) {
      return "127.0.0.1";
    }
    return "127.0.0.1";
  }
}
