package io.kvpool.common;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * A {@code host:port} endpoint as written on command lines and carried on the wire. IPv6 literals
 * are written in brackets ({@code [fd00::5]:50052}) and the host is kept without them; a bare IPv6
 * literal without a port bracket is refused as ambiguous.
 */
public record HostPort(String host, int port) {
  public HostPort {
    if (host == null || host.isEmpty()) {
      throw new IllegalArgumentException("endpoint host must not be empty");
    }
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("endpoint port " + port + " out of range 0..65535");
    }
  }

  public static HostPort parse(String text) {
    if (text == null || text.isBlank()) {
      throw new IllegalArgumentException(
          "endpoint is empty; expected HOST:PORT, e.g. 127.0.0.1:7000 or [::1]:7000");
    }
    String t = text.trim();
    String host;
    String port;
    if (t.startsWith("[")) {
      int close = t.indexOf(']');
      if (close < 0 || close + 1 >= t.length() || t.charAt(close + 1) != ':') {
        throw new IllegalArgumentException(
            "endpoint '" + text + "' must look like [IPV6]:PORT, e.g. [::1]:7000");
      }
      host = t.substring(1, close);
      port = t.substring(close + 2);
    } else {
      int colon = t.lastIndexOf(':');
      if (colon <= 0 || colon == t.length() - 1) {
        throw new IllegalArgumentException(
            "endpoint '" + text + "' must look like HOST:PORT, e.g. 127.0.0.1:7000");
      }
      if (t.indexOf(':') != colon) {
        throw new IllegalArgumentException(
            "endpoint '"
                + text
                + "' is ambiguous: write IPv6 addresses in brackets,"
                + " e.g. [::1]:7000");
      }
      host = t.substring(0, colon);
      port = t.substring(colon + 1);
    }
    try {
      return new HostPort(host, Integer.parseInt(port));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("endpoint '" + text + "' has a non-numeric port", e);
    }
  }

  /** A comma-separated list of endpoints (e.g. every master of a pool). */
  public static List<HostPort> parseList(String text) {
    List<HostPort> out = new ArrayList<>();
    for (String part : text.split(",")) {
      if (!part.isBlank()) {
        out.add(parse(part));
      }
    }
    if (out.isEmpty()) {
      throw new IllegalArgumentException(
          "no endpoint in '" + text + "'; expected HOST:PORT[,HOST:PORT...]");
    }
    return out;
  }

  public static HostPort of(InetSocketAddress address) {
    return new HostPort(address.getHostString(), address.getPort());
  }

  public InetSocketAddress toSocketAddress() {
    return new InetSocketAddress(host, port);
  }

  @Override
  public String toString() {
    return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
  }
}
