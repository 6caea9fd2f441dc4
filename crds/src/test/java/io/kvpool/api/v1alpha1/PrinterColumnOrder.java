package io.kvpool.api.v1alpha1;

import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Puts a generated CRD's printer columns in the order the kind declares its {@link
 * AdditionalPrinterColumn}s. The fabric8 generator sorts them by JSON path (fabric8 issue #7454),
 * which would show Age first and Phase in the middle of {@code kubectl get}; kubectl prints columns
 * in CRD order. Works on the generator's text so the rest of the file stays as generated.
 */
final class PrinterColumnOrder {

  private static final String BLOCK_START = "  - additionalPrinterColumns:";
  private static final String ITEM_START = "    - ";
  private static final String ITEM_CONTINUATION = "      ";
  private static final Pattern JSON_PATH = Pattern.compile("(?m)^    [- ] jsonPath: (\\S+)$");

  private PrinterColumnOrder() {}

  static String apply(String generatedYaml, Class<?> kind) {
    List<String> declared =
        Arrays.stream(kind.getAnnotationsByType(AdditionalPrinterColumn.class))
            .map(AdditionalPrinterColumn::jsonPath)
            .toList();
    List<String> lines = List.of(generatedYaml.split("\n", -1));
    int start = lines.indexOf(BLOCK_START);
    if (start < 0) {
      throw new IllegalStateException(
          "No '"
              + BLOCK_START.strip()
              + "' in the CRD generated for "
              + kind.getSimpleName()
              + "; the generator's layout changed, adapt "
              + PrinterColumnOrder.class.getSimpleName());
    }
    List<String> items = new ArrayList<>();
    int end = start + 1;
    for (; end < lines.size(); end++) {
      String line = lines.get(end);
      if (line.startsWith(ITEM_START)) {
        items.add(line + "\n");
      } else if (line.startsWith(ITEM_CONTINUATION) && !items.isEmpty()) {
        items.set(items.size() - 1, items.get(items.size() - 1) + line + "\n");
      } else {
        break;
      }
    }
    items.sort(Comparator.comparingInt(item -> declaredIndex(declared, item, kind)));
    StringBuilder out = new StringBuilder();
    lines.subList(0, start + 1).forEach(line -> out.append(line).append('\n'));
    items.forEach(out::append);
    out.append(String.join("\n", lines.subList(end, lines.size())));
    return out.toString();
  }

  private static int declaredIndex(List<String> declared, String item, Class<?> kind) {
    Matcher matcher = JSON_PATH.matcher(item);
    if (!matcher.find() || !declared.contains(matcher.group(1))) {
      throw new IllegalStateException(
          "Printer column not declared with @AdditionalPrinterColumn on "
              + kind.getSimpleName()
              + ": "
              + item.strip()
              + ". Declare every column on the class so its order is known.");
    }
    return declared.indexOf(matcher.group(1));
  }
}
