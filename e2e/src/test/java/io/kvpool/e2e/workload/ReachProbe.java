package io.kvpool.e2e.workload;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Whether this pod can open TCP connections to the given endpoints: what a NetworkPolicy decides,
 * below any protocol or key. Runs in a pod of the data-plane image like {@link PoolWorkload}.
 *
 * <pre>ReachProbe open|closed SECONDS HOST:PORT...</pre>
 *
 * <p>{@code open}: every endpoint must accept a connection within SECONDS (tried again and again: a
 * policy enforcer admits a new pod's address a moment after the pod starts). {@code closed}: no
 * endpoint may accept one during SECONDS of tries. Prints {@code REACH
 * endpoint=open|refused|timeout|...} per endpoint and last the {@code WORKLOAD} line the suite
 * parses ({@code ok} = endpoints as expected); exit code 0 when all are.
 */
public final class ReachProbe {
  private static final int CONNECT_TIMEOUT_MILLIS = 2000;

  private ReachProbe() {}

  public static void main(String[] args) throws InterruptedException {
    if (args.length < 3 || !(args[0].equals("open") || args[0].equals("closed"))) {
      System.err.println("usage: ReachProbe open|closed SECONDS HOST:PORT...");
      System.exit(2);
    }
    boolean wantOpen = args[0].equals("open");
    long deadline = System.nanoTime() + Duration.ofSeconds(Long.parseLong(args[1])).toNanos();
    List<String> endpoints = List.of(args).subList(2, args.length);
    Map<String, String> last = new LinkedHashMap<>();
    List<String> pending = new ArrayList<>(endpoints);
    int attempts = 0;
    do {
      attempts++;
      for (String endpoint : List.copyOf(pending)) {
        String outcome = connect(endpoint);
        last.put(endpoint, outcome);
        if (outcome.equals("open")) {
          pending.remove(endpoint); // open once is open: nothing more to learn from this endpoint
        }
      }
      if (wantOpen && pending.isEmpty()) {
        break;
      }
      Thread.sleep(500);
    } while (System.nanoTime() < deadline);
    int ok = 0;
    for (String endpoint : endpoints) {
      String outcome = last.get(endpoint);
      boolean open = !pending.contains(endpoint);
      System.out.println("REACH " + endpoint + "=" + (open ? "open" : outcome));
      ok += open == wantOpen ? 1 : 0;
    }
    System.out.println(
        "WORKLOAD op=reach-"
            + args[0]
            + " endpoints="
            + endpoints.size()
            + " ok="
            + ok
            + " attempts="
            + attempts);
    System.out.flush();
    System.exit(ok == endpoints.size() ? 0 : 1);
  }

  private static String connect(String endpoint) {
    int colon = endpoint.lastIndexOf(':');
    try (Socket socket = new Socket()) {
      socket.connect(
          new InetSocketAddress(
              endpoint.substring(0, colon), Integer.parseInt(endpoint.substring(colon + 1))),
          CONNECT_TIMEOUT_MILLIS);
      return "open";
    } catch (SocketTimeoutException e) {
      return "timeout";
    } catch (java.net.ConnectException e) {
      return "refused";
    } catch (IOException e) {
      return e.getClass().getSimpleName();
    }
  }
}
