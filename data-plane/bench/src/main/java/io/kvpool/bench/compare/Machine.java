package io.kvpool.bench.compare;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** What the report says about the machine, read from /proc and /sys. */
final class Machine {
  private Machine() {}

  static Map<String, String> describe() {
    Map<String, String> m = new LinkedHashMap<>();
    m.put("CPU", cpuModel() + ", " + Runtime.getRuntime().availableProcessors() + " cores");
    m.put("caches", caches());
    m.put("memory", memory());
    m.put("OS", osRelease() + ", kernel " + read("/proc/sys/kernel/osrelease"));
    m.put("JDK", System.getProperty("java.vm.name") + " " + System.getProperty("java.vm.version"));
    m.put("transparent huge pages", read("/sys/kernel/mm/transparent_hugepage/enabled"));
    m.put(
        "socket buffers (rmem_max / wmem_max / tcp_rmem / tcp_wmem)",
        read("/proc/sys/net/core/rmem_max")
            + " / "
            + read("/proc/sys/net/core/wmem_max")
            + " / "
            + read("/proc/sys/net/ipv4/tcp_rmem").replace('\t', ' ')
            + " / "
            + read("/proc/sys/net/ipv4/tcp_wmem").replace('\t', ' '));
    return m;
  }

  static String read(String file) {
    try {
      // procfs files may claim a size their content does not have: read the stream to its end
      try (java.io.InputStream in = Files.newInputStream(Path.of(file))) {
        return new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8).trim();
      }
    } catch (IOException e) {
      return "unknown";
    }
  }

  private static String cpuModel() {
    for (String line : read("/proc/cpuinfo").split("\n")) {
      if (line.startsWith("model name")) {
        return line.substring(line.indexOf(':') + 1).trim();
      }
    }
    return "unknown CPU";
  }

  private static String caches() {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      Path dir = Path.of("/sys/devices/system/cpu/cpu0/cache/index" + i);
      if (!Files.isDirectory(dir)) {
        break;
      }
      String type = read(dir.resolve("type").toString());
      out.add(
          "L"
              + read(dir.resolve("level").toString())
              + (type.equals("Data") ? "d" : type.equals("Instruction") ? "i" : "")
              + " "
              + read(dir.resolve("size").toString()));
    }
    return out.isEmpty() ? "unknown" : String.join(", ", out);
  }

  private static String memory() {
    for (String line : read("/proc/meminfo").split("\n")) {
      if (line.startsWith("MemTotal:")) {
        long kb = Long.parseLong(line.replaceAll("\\D", ""));
        return String.format(java.util.Locale.ROOT, "%.1f GiB", kb / 1024.0 / 1024.0);
      }
    }
    return "unknown";
  }

  private static String osRelease() {
    for (String line : read("/etc/os-release").split("\n")) {
      if (line.startsWith("PRETTY_NAME=")) {
        return line.substring(12).replace("\"", "");
      }
    }
    return "Linux";
  }
}
