package io.kvpool.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kvpool.admin.AdminJson;
import io.kvpool.admin.MasterStatus;
import io.kvpool.admin.ObjectScan;
import io.kvpool.common.HostPort;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Optional;

/**
 * The master's (or a storage node's) admin HTTP API, as the CLI and the integration tests read it.
 */
public final class AdminApi {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration TIMEOUT = Duration.ofSeconds(10);

  private final HostPort endpoint;
  private final Duration timeout;
  private final HttpClient http;

  public AdminApi(HostPort endpoint) {
    this(endpoint, TIMEOUT);
  }

  public AdminApi(String endpoint) {
    this(HostPort.parse(endpoint));
  }

  /**
   * With {@code timeout} for connecting and for each answer (e.g. short, to poll a process that may
   * be stopped).
   */
  public AdminApi(HostPort endpoint, Duration timeout) {
    this.endpoint = endpoint;
    this.timeout = timeout;
    this.http = HttpClient.newBuilder().connectTimeout(timeout).build();
  }

  /** {@code GET /status} as raw JSON (tests check the document's field names with it). */
  public JsonNode status() {
    String body = text("/status");
    try {
      return JSON.readTree(body);
    } catch (IOException e) {
      throw new AdminApiException(
          "GET http://" + endpoint + "/status did not return JSON: " + e.getMessage(), e);
    }
  }

  /**
   * The master's {@code /status} as the shared admin-api type (refused when of another document
   * version).
   */
  public MasterStatus masterStatus() {
    String body = text("/status");
    try {
      return AdminJson.read(body, MasterStatus.class);
    } catch (IOException e) {
      throw new AdminApiException(
          "GET http://" + endpoint + "/status is not a master status document: " + e.getMessage(),
          e);
    }
  }

  /**
   * The leading master's {@code GET /scan}, its object table counted by a full scan; empty when the
   * master has no such endpoint (404: a release before it).
   */
  public Optional<ObjectScan> scan() {
    HttpResponse<String> response = send("GET", "/scan");
    if (response.statusCode() == 404) {
      return Optional.empty();
    }
    String body = okBody(response, "/scan");
    try {
      return Optional.of(AdminJson.read(body, ObjectScan.class));
    } catch (IOException e) {
      throw new AdminApiException(
          "GET http://" + endpoint + "/scan is not an object scan document: " + e.getMessage(), e);
    }
  }

  /**
   * The body of {@code GET path} answered with 200, e.g. {@code /metrics} in the Prometheus text
   * format.
   */
  public String text(String path) {
    return okBody(send("GET", path), path);
  }

  /** The body of {@code response} to {@code GET path}; AdminApiException unless it is a 200. */
  private String okBody(HttpResponse<String> response, String path) {
    if (response.statusCode() != 200) {
      throw new AdminApiException(
          "GET http://"
              + endpoint
              + path
              + " answered "
              + response.statusCode()
              + ": "
              + response.body());
    }
    return response.body();
  }

  /**
   * HTTP status code of {@code POST path}, e.g. 200 for a master that stepped down on {@code
   * /step-down}.
   */
  public int post(String path) {
    return send("POST", path).statusCode();
  }

  /**
   * The answer to {@code POST path} in one line, e.g. {@code HTTP 409: cannot drain node ...} (the
   * body's first line), for a log.
   */
  public String postForAnswer(String path) {
    HttpResponse<String> r = send("POST", path);
    String body = r.body() == null ? "" : r.body().strip();
    int end = body.indexOf('\n');
    return "HTTP "
        + r.statusCode()
        + (body.isEmpty() ? "" : ": " + (end < 0 ? body : body.substring(0, end)));
  }

  /** HTTP status code of {@code GET path}, e.g. 200 for a healthy process on {@code /health}. */
  public int statusCode(String path) {
    return send("GET", path).statusCode();
  }

  private HttpResponse<String> send(String method, String path) {
    HttpRequest request =
        HttpRequest.newBuilder(URI.create("http://" + endpoint + path))
            .timeout(timeout)
            .method(method, HttpRequest.BodyPublishers.noBody())
            .build();
    try {
      return http.send(request, HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new AdminApiException(
          "cannot reach the admin API at http://"
              + endpoint
              + path
              + ": "
              + e
              + "; check --admin (the master's admin address printed at start-up)",
          e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AdminApiException("interrupted while calling http://" + endpoint + path, e);
    }
  }

  /** The admin API could not be reached or answered something unexpected. */
  public static final class AdminApiException extends RuntimeException {
    public AdminApiException(String message) {
      super(message);
    }

    public AdminApiException(String message, Throwable cause) {
      super(message, cause);
    }
  }
}
