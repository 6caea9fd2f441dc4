package io.kvpool.common;

import java.net.InetSocketAddress;

/** A {@code host:port} endpoint as written on command lines and carried on the wire. */
public record HostPort(String host, int port) {
  public HostPort {
    if (host == null || host.isEmpty()) {
      throw new IllegalArgumentException("endpoint host must not be empty");
    }
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("endpoint port " + port + " out of range 0..65535");
    }
  }

  public static HostPort parse(String text) {
    int colon = text == null ? -1 : text.lastIndexOf(':');
    if (colon <= 0 || colon == text.length() - 1) {
      throw new IllegalArgumentException("endpoint '" + text + "' must look like HOST:PORT, e.g. 127.0.0.1:7000");
    }
    try {
      return new HostPort(text.substring(0, colon), Integer.parseInt(text.substring(colon + 1)));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("endpoint '" + text + "' has a non-numeric port", e);
    }
  }

  public static HostPort of(InetSocketAddress address) {
    return new HostPort(address.getHostString(), address.getPort());
  }

  public InetSocketAddress toSocketAddress() {
    return new InetSocketAddress(host, port);
  }

  @Override
  public String toString() {
    return host + ":" + port;
  }
}
