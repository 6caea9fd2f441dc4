package io.kvpool.operator.admin;

import io.kvpool.admin.AdminJson;
import io.kvpool.admin.MasterStatus;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * {@link PoolAdminClient} over the master's admin HTTP API, with short timeouts: status polling,
 * and the drain and step-down calls of a rollout (both return at once; their effect is followed
 * through the status).
 */
public final class HttpPoolAdminClient implements PoolAdminClient {
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
      response =
          http.send(
              HttpRequest.newBuilder(uri).timeout(timeout).GET().build(),
              HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new PoolAdminException("master admin " + uri + " unreachable: " + describe(e), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new PoolAdminException("interrupted while reading " + uri, e);
    }
    if (response.statusCode() != 200) {
      throw new PoolAdminException(
          "master admin "
              + uri
              + " answered HTTP "
              + response.statusCode()
              + " (expected 200): "
              + abbreviate(response.body()));
    }
    try {
      return AdminJson.read(response.body(), MasterStatus.class);
    } catch (IOException e) {
      throw new PoolAdminException(
          "master admin "
              + uri
              + " returned no usable status document: "
              + abbreviate(e.getMessage()),
          e);
    }
  }

  @Override
  public void drain(URI adminBase, String nodeId, String adminToken) throws PoolAdminException {
    post(
        adminBase.resolve("/nodes/" + URLEncoder.encode(nodeId, StandardCharsets.UTF_8) + "/drain"),
        adminToken);
  }

  @Override
  public void stepDown(URI adminBase, String adminToken) throws PoolAdminException {
    post(adminBase.resolve("/step-down"), adminToken);
  }

  private void post(URI uri, String adminToken) throws PoolAdminException {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(uri).timeout(timeout).POST(HttpRequest.BodyPublishers.noBody());
    if (adminToken != null && !adminToken.isEmpty()) {
      request.header("Authorization", "Bearer " + adminToken);
    }
    HttpResponse<String> response;
    try {
      response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new PoolAdminException("master admin " + uri + " unreachable: " + describe(e), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new PoolAdminException("interrupted while calling " + uri, e);
    }
    if (response.statusCode() != 200) {
      throw new PoolAdminException(
          "master admin POST "
              + uri
              + " answered HTTP "
              + response.statusCode()
              + ": "
              + abbreviate(response.body()));
    }
  }

  private static String describe(IOException e) {
    return e.getMessage() == null
        ? e.getClass().getSimpleName()
        : e.getClass().getSimpleName() + " " + e.getMessage();
  }

  private static String abbreviate(String body) {
    String oneLine = body == null ? "" : body.replaceAll("\\s+", " ").strip();
    return oneLine.length() <= 200 ? oneLine : oneLine.substring(0, 200) + "...";
  }
}
