package io.kvpool.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.kvpool.admin.AdminJson;
import io.kvpool.admin.MasterStatus;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kvpool.common.HostPort;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** The master's (or a storage node's) admin HTTP API, as the CLI and the integration tests read it. */
public final class AdminApi {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration TIMEOUT = Duration.ofSeconds(10);

  private final HostPort endpoint;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(TIMEOUT).build();

  public AdminApi(HostPort endpoint) {
    this.endpoint = endpoint;
  }

  public AdminApi(String endpoint) {
    this(HostPort.parse(endpoint));
  }

  /** {@code GET /status} as raw JSON (tests check the document's field names with it). */
  public JsonNode status() {
    HttpResponse<String> response = send("GET", "/status");
    if (response.statusCode() != 200) {
      throw new AdminApiException("GET http://" + endpoint + "/status answered " + response.statusCode() + ": "
          + response.body());
    }
    try {
      return JSON.readTree(response.body());
    } catch (IOException e) {
      throw new AdminApiException("GET http://" + endpoint + "/status did not return JSON: " + e.getMessage(), e);
    }
  }

  /** The master's {@code /status} as the shared admin-api type (refused when of another document version). */
  public MasterStatus masterStatus() {
    HttpResponse<String> response = send("GET", "/status");
    if (response.statusCode() != 200) {
      throw new AdminApiException("GET http://" + endpoint + "/status answered " + response.statusCode() + ": "
          + response.body());
    }
    try {
      return AdminJson.read(response.body(), MasterStatus.class);
    } catch (IOException e) {
      throw new AdminApiException("GET http://" + endpoint + "/status is not a master status document: "
          + e.getMessage(), e);
    }
  }

  /** HTTP status code of {@code GET path}, e.g. 200 for a healthy process on {@code /health}. */
  public int statusCode(String path) {
    return send("GET", path).statusCode();
  }

  private HttpResponse<String> send(String method, String path) {
    HttpRequest request = HttpRequest.newBuilder(URI.create("http://" + endpoint + path)).timeout(TIMEOUT)
        .method(method, HttpRequest.BodyPublishers.noBody()).build();
    try {
      return http.send(request, HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new AdminApiException("cannot reach the admin API at http://" + endpoint + path + ": " + e
          + "; check --admin (the master's admin address printed at start-up)", e);
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
