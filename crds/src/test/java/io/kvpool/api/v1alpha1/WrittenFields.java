package io.kvpool.api.v1alpha1;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/** Compares what a client wrote with what the server stored, allowing fields the server added. */
final class WrittenFields {

  private WrittenFields() {}

  /**
   * Paths under {@code path} whose written value is missing from, or different in, {@code stored}.
   */
  static List<String> lostOrChanged(String path, Object written, Object stored) {
    List<String> problems = new ArrayList<>();
    collect(path, written, stored, problems);
    return problems;
  }

  private static void collect(String path, Object written, Object stored, List<String> problems) {
    if (written instanceof Map<?, ?> writtenMap && stored instanceof Map<?, ?> storedMap) {
      writtenMap.forEach(
          (key, value) -> {
            if (!storedMap.containsKey(key)) {
              problems.add(path + "." + key + " was dropped");
            } else {
              collect(path + "." + key, value, storedMap.get(key), problems);
            }
          });
    } else if (written instanceof List<?> writtenList
        && stored instanceof List<?> storedList
        && writtenList.size() == storedList.size()) {
      for (int i = 0; i < writtenList.size(); i++) {
        collect(path + "[" + i + "]", writtenList.get(i), storedList.get(i), problems);
      }
    } else if (!sameScalar(written, stored)) {
      problems.add(path + " written " + written + " stored " + stored);
    }
  }

  /**
   * JSON numbers compare by value (1 and 1.0 are the same watermark), and an integer quantity may
   * come back as its string form (fabric8's Quantity always writes strings).
   */
  private static boolean sameScalar(Object written, Object stored) {
    if (written instanceof Number a && stored instanceof Number b) {
      return new BigDecimal(a.toString()).compareTo(new BigDecimal(b.toString())) == 0;
    }
    if (written instanceof Number number && stored instanceof String text) {
      return number.toString().equals(text);
    }
    return Objects.equals(written, stored);
  }
}
