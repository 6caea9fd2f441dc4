package io.kvpool.images;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The release tags written from a one-image archive, without building an image (ImagesIT checks the
 * real ones).
 */
class ReleaseTagsTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String CONFIG =
      """
      {"created":"1970-01-01T00:00:00Z","architecture":"amd64","os":"linux",
       "config":{"Env":["PATH=/opt/java/bin:/usr/bin:/bin","KVPOOL_BUILD_RELEASE=9.9.9","LANG=C.UTF-8"],
                 "Cmd":["java","--version"],"User":"10001:10001",
                 "Labels":{"io.kvpool.release":"0.2.0","io.kvpool.protocol":"2.1",
                           "org.opencontainers.image.version":"0.2.0","org.opencontainers.image.title":"t"}},
       "history":[{"created":"1970-01-01T00:00:00Z"}],
       "rootfs":{"type":"layers","diff_ids":["sha256:aa","sha256:bb"]}}""";

  @Test
  void aDeclaredReleaseChangesOnlyTheReleaseVariableAndLabels() throws IOException {
    ObjectNode config = (ObjectNode) JSON.readTree(CONFIG);
    ObjectNode declared = ReleaseTags.declaring(config, "1.1.0");
    assertThat(declared.at("/config/Env").toString())
        .isEqualTo(
            "[\"PATH=/opt/java/bin:/usr/bin:/bin\",\"LANG=C.UTF-8\",\"KVPOOL_BUILD_RELEASE=1.1.0\"]");
    assertThat(declared.at("/config/Labels/io.kvpool.release").asText()).isEqualTo("1.1.0");
    assertThat(declared.at("/config/Labels/org.opencontainers.image.version").asText())
        .isEqualTo("1.1.0");
    assertThat(declared.at("/config/Labels/io.kvpool.protocol").asText()).isEqualTo("2.1");
    ObjectNode rest = declared.deepCopy();
    ObjectNode original = config.deepCopy();
    for (ObjectNode c : List.of(rest, original)) {
      ((ObjectNode) c.get("config")).remove(List.of("Env", "Labels"));
    }
    assertThat(rest).isEqualTo(original);
    assertThat(config.at("/config/Labels/io.kvpool.release").asText())
        .as("the original is untouched")
        .isEqualTo("0.2.0");
  }

  @Test
  void everyTagSharesTheLayerBlobsStoredOnce(@TempDir Path dir) throws IOException {
    Path source = dir.resolve("one.tar");
    try (TarArchiveOutputStream out = new TarArchiveOutputStream(Files.newOutputStream(source))) {
      put(out, "config.json", CONFIG.getBytes(StandardCharsets.UTF_8));
      put(out, "aa.tar.gz", new byte[] {1, 2, 3});
      put(out, "bb.tar.gz", new byte[] {4, 5});
      put(
          out,
          "manifest.json",
          ("[{\"Config\":\"config.json\",\"RepoTags\":[\"kvpool/data-plane:0.2.0\"],"
                  + "\"Layers\":[\"aa.tar.gz\",\"bb.tar.gz\"]}]")
              .getBytes(StandardCharsets.UTF_8));
    }
    ReleaseTags.Written written =
        ReleaseTags.write(source, List.of("1.0.0", "2.0.0"), dir.resolve("tags.tar"));

    Map<String, byte[]> files = new LinkedHashMap<>();
    try (TarArchiveInputStream in =
        new TarArchiveInputStream(Files.newInputStream(written.tarball()))) {
      for (TarArchiveEntry e; (e = in.getNextEntry()) != null; ) {
        assertThat(files).as("each blob once").doesNotContainKey(e.getName());
        files.put(e.getName(), in.readAllBytes());
      }
    }
    assertThat(files.get("aa.tar.gz")).containsExactly(1, 2, 3);
    assertThat(files.get("bb.tar.gz")).containsExactly(4, 5);
    JsonNode manifest = JSON.readTree(files.get("manifest.json"));
    assertThat(manifest).hasSize(2);
    List<String> tags = new ArrayList<>();
    for (JsonNode image : manifest) {
      tags.add(image.get("RepoTags").get(0).asText());
      assertThat(image.get("Layers").toString()).isEqualTo("[\"aa.tar.gz\",\"bb.tar.gz\"]");
      JsonNode config = JSON.readTree(files.get(image.get("Config").asText()));
      String release = image.get("RepoTags").get(0).asText().replaceAll(".*:", "");
      assertThat(config.at("/config/Env").toString())
          .contains("KVPOOL_BUILD_RELEASE=" + release)
          .doesNotContain("9.9.9");
      assertThat(written.imageIds().get(image.get("RepoTags").get(0).asText()))
          .isEqualTo("sha256:" + image.get("Config").asText().replace(".json", ""));
    }
    assertThat(tags).containsExactly("kvpool/data-plane:1.0.0", "kvpool/data-plane:2.0.0");
    assertThat(written.imageIds().values()).doesNotHaveDuplicates();

    byte[] first = Files.readAllBytes(written.tarball());
    ReleaseTags.write(source, List.of("1.0.0", "2.0.0"), dir.resolve("again.tar"));
    assertThat(Files.readAllBytes(dir.resolve("again.tar")))
        .as("same inputs, same bytes")
        .isEqualTo(first);
  }

  private static void put(TarArchiveOutputStream out, String name, byte[] bytes)
      throws IOException {
    TarArchiveEntry e = new TarArchiveEntry(name);
    e.setSize(bytes.length);
    out.putArchiveEntry(e);
    out.write(bytes);
    out.closeArchiveEntry();
  }
}
