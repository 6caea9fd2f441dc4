package io.kvpool.client;

import io.kvpool.common.HostPort;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.OptionalDouble;

/** What a master's or storage node's admin endpoint serves at /metrics, for the tests. */
public final class AdminMetrics {
  private AdminMetrics() {}

  /** The Prometheus text exposition at {@code admin}; fails unless it answers 200. */
  public static String scrape(HostPort admin) throws IOException, InterruptedException {
    HttpResponse<String> r =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create("http://" + admin + "/metrics")).build(),
                HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() != 200) {
      throw new AssertionError("GET http://" + admin + "/metrics answered " + r.statusCode());
    }
    return r.body();
  }

  /**
   * The value of {@code series} (a name with its labels as exposed, e.g. {@code
   * kvpool_x_total{role="client"}}) in {@code exposition}; empty when it is not there.
   */
  public static OptionalDouble value(String exposition, String series) {
    return exposition
        .lines()
        .filter(l -> l.startsWith(series + " "))
        .mapToDouble(l -> Double.parseDouble(l.substring(series.length() + 1).trim()))
        .findFirst();
  }
}
