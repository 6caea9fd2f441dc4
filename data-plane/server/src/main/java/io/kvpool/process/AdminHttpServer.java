package io.kvpool.process;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.kvpool.common.HostPort;
import io.prometheus.metrics.config.EscapingScheme;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The small HTTP admin API of master and storage processes (health, readiness, metrics, status).
 */
public final class AdminHttpServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(AdminHttpServer.class);
  public static final ObjectMapper JSON = new ObjectMapper();
  private static final PrometheusTextFormatWriter TEXT_FORMAT = PrometheusTextFormatWriter.create();

  /** A response to an admin request. */
  public record Response(int status, String contentType, String body) {
    public static Response text(int status, String body) {
      return new Response(status, "text/plain; charset=utf-8", body);
    }

    public static Response json(int status, Object value) {
      try {
        return new Response(status, "application/json", JSON.writeValueAsString(value));
      } catch (IOException e) {
        return text(500, "cannot render JSON: " + e.getMessage());
      }
    }
  }

  /** One admin request: method, full path, and the bearer token it presented (empty when none). */
  public record Request(String method, String path, String bearerToken) {}

  /** Handles one request. */
  @FunctionalInterface
  public interface Route {
    Response handle(Request request) throws Exception;
  }

  private final HttpServer server;
  private final ExecutorService executor;
  private final Map<String, Route> routes = new ConcurrentHashMap<>();

  public AdminHttpServer(String host, int port) throws IOException {
    server = HttpServer.create(new InetSocketAddress(host, port), 64);
    executor =
        Executors.newFixedThreadPool(
            2,
            r -> {
              Thread t = new Thread(r, "admin-http");
              t.setDaemon(true);
              return t;
            });
    server.setExecutor(executor);
    server.createContext("/", this::dispatch);
  }

  /** Registers a handler for an exact path, or for every path under a prefix ending in '/'. */
  public AdminHttpServer route(String path, Route route) {
    routes.put(path, route);
    return this;
  }

  public void start() {
    server.start();
  }

  public HostPort endpoint() {
    return HostPort.of(server.getAddress());
  }

  private void dispatch(HttpExchange exchange) throws IOException {
    String path = exchange.getRequestURI().getPath();
    Route route = routes.get(path);
    if (route == null) {
      for (Map.Entry<String, Route> e : routes.entrySet()) {
        if (e.getKey().endsWith("/") && path.startsWith(e.getKey())) {
          route = e.getValue();
          break;
        }
      }
    }
    Response response;
    try {
      response =
          route == null
              ? Response.text(404, "no such admin endpoint: " + path + "\n")
              : route.handle(new Request(exchange.getRequestMethod(), path, bearer(exchange)));
    } catch (Exception e) {
      LOG.warn("event=admin_request_failed path={} error={}", path, e.toString());
      response = Response.text(500, "admin request failed: " + e.getMessage() + "\n");
    }
    byte[] body = response.body().getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", response.contentType());
    exchange.sendResponseHeaders(response.status(), body.length == 0 ? -1 : body.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(body);
    }
  }

  private static String bearer(HttpExchange exchange) {
    String auth = exchange.getRequestHeaders().getFirst("Authorization");
    return auth != null && auth.regionMatches(true, 0, "Bearer ", 0, 7)
        ? auth.substring(7).trim()
        : "";
  }

  /** The Prometheus text exposition of a registry, for {@code /metrics}. */
  public static Response metrics(PrometheusRegistry registry) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(8192);
    try {
      TEXT_FORMAT.write(out, registry.scrape(), EscapingScheme.UNDERSCORE_ESCAPING);
    } catch (IOException e) {
      return Response.text(500, "cannot render metrics: " + e.getMessage() + "\n");
    }
    return new Response(
        200, PrometheusTextFormatWriter.CONTENT_TYPE, out.toString(StandardCharsets.UTF_8));
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
  }
}
