package io.kvpool.admin;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;

/** The JSON form of the admin documents: one mapper, one version string. */
public final class AdminJson {
  /** Version of the admin documents; a reader refuses documents of another major. */
  public static final String API_VERSION = "kvpool.io/admin/v1";

  private static final ObjectMapper MAPPER =
      new ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

  private AdminJson() {}

  public static String write(Object document) {
    try {
      return MAPPER.writeValueAsString(document);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot serialise " + document.getClass().getSimpleName(), e);
    }
  }

  /** Parses a document, refusing one whose {@code apiVersion} is not {@link #API_VERSION}. */
  public static <T> T read(String json, Class<T> type) throws IOException {
    T doc = MAPPER.readValue(json, type);
    String version = MAPPER.readTree(json).path("apiVersion").asText("");
    if (!API_VERSION.equals(version)) {
      throw new IOException(
          "admin document of version '"
              + version
              + "', expected '"
              + API_VERSION
              + "': the data plane and this reader are of incompatible releases");
    }
    return doc;
  }
}
