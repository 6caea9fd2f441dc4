package io.kvpool.it;

import java.net.DatagramSocket;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.util.Collections;

/**
 * Addresses for tests that bind the wildcard as pods do and advertise an address peers can dial.
 */
public final class TestHosts {
  /**
   * Bridges the test kubelet creates (and removes) for its pod networks, in this or another JVM.
   */
  private static final String TEST_BRIDGE_PREFIX = "kvpk";

  private TestHosts() {}

  /**
   * This machine's IPv4 address on its default route (as a pod IP would be); without one, the first
   * address of an interface that is up, not loopback and not a bridge a test made (those come and
   * go with the test that made them, on a machine running several); else 127.0.0.1.
   */
  public static String routableIpv4() {
    try (DatagramSocket probe = new DatagramSocket()) {
      // connecting a UDP socket sends nothing: the kernel only picks the route and source address
      probe.connect(new InetSocketAddress("198.51.100.1", 9));
      InetAddress local = probe.getLocalAddress();
      if (local instanceof Inet4Address
          && !local.isAnyLocalAddress()
          && !local.isLoopbackAddress()
          && !onTestBridge(local)) {
        return local.getHostAddress();
      }
    } catch (SocketException | RuntimeException e) {
      // no default route: look at the interfaces
    }
    try {
      for (NetworkInterface nic : Collections.list(NetworkInterface.getNetworkInterfaces())) {
        if (!nic.isUp() || nic.isLoopback() || nic.getName().startsWith(TEST_BRIDGE_PREFIX)) {
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

  private static boolean onTestBridge(InetAddress a) throws SocketException {
    NetworkInterface nic = NetworkInterface.getByInetAddress(a);
    return nic != null && nic.getName().startsWith(TEST_BRIDGE_PREFIX);
  }
}
