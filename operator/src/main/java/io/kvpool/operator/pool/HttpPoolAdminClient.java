package io.kvpool.operator.pool;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** {@link PoolAdminClient} over the master's admin HTTP API, with short timeouts (status polling). */
public final class HttpPoolAdminClient implements PoolAdminClient {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final HttpClient http;
  private final Duration timeout;

  public HttpPoolAdminClient(Duration timeout) {
    this.timeout = timeout;
    this.http = HttpClient.newBuilder().connectTimeout(timeout).build();
  }

  @Override
  public MasterStatus status(URI adminBase) throws PoolAdminException {
    URI uri = adminBase.resolve("/status");
    HttpResponse<String> response;
    try {
      response = http.send(HttpRequest.newBuilder(uri).timeout(timeout).GET().build(),
          HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new PoolAdminException("master admin " + uri + " unreachable: " + describe(e), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new PoolAdminException("interrupted while reading " + uri, e);
    }
    if (response.statusCode() != 200) {
      throw new PoolAdminException("master admin " + uri + " answered HTTP " + response.statusCode()
          + " (expected 200): " + abbreviate(response.body()));
    }
    return parse(uri, response.body());
  }

  /**
   * Parses a /status document of the data plane's master. {@code leader} (the leader's pod name) is optional:
   * without it the reconciler falls back to the pod labelled {@code kvpool.io/role=leader}.
   */
  static MasterStatus parse(URI uri, String body) throws PoolAdminException {
    JsonNode root;
    try {
      root = JSON.readTree(body);
    } catch (IOException e) {
      throw new PoolAdminException("master admin " + uri + " returned no JSON: " + abbreviate(body), e);
    }
    if (root == null || !root.isObject()) {
      throw new PoolAdminException("master admin " + uri + " returned no JSON object: " + abbreviate(body));
    }
    JsonNode nodes = root.path("nodes");
    int alive = 0;
    if (nodes.isArray()) {
      for (JsonNode node : nodes) {
        String state = node.path("state").asText("ALIVE");
        if ("ALIVE".equalsIgnoreCase(state)) {
          alive++;
        }
      }
    }
    return new MasterStatus(
        text(root, "poolId"),
        text(root, "role"),
        text(root, "leader"),
        root.path("viewNumber").asLong(0),
        text(root, "releaseVersion"),
        text(root, "protocolVersion"),
        nodes.isArray() ? nodes.size() : 0,
        alive,
        root.path("capacityBytes").asLong(0),
        root.path("usedBytes").asLong(0),
        root.path("objectCount").asLong(0));
  }

  private static String text(JsonNode root, String name) {
    JsonNode node = root.get(name);
    return node == null || node.isNull() || node.isContainerNode() ? null : node.asText();
  }

  private static String describe(IOException e) {
    return e.getMessage() == null ? e.getClass().getSimpleName() : e.getClass().getSimpleName() + " " + e.getMessage();
  }

  private static String abbreviate(String body) {
    String oneLine = body == null ? "" : body.replaceAll("\\s+", " ").strip();
    return oneLine.length() <= 200 ? oneLine : oneLine.substring(0, 200) + "...";
  }
}
