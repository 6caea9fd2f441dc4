package io.kvpool.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvpool.admin.AdminJson;
import io.kvpool.admin.ImageVersion;
import io.kvpool.common.VersionInfo;
import io.kvpool.storage.InventoryFile;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What an image declares reaches the termination message file as the shared document. */
class ImageVersionMainTest {
  @Test
  void writesReleaseProtocolAndInventoryFormatToTheTerminationMessage(@TempDir Path dir)
      throws Exception {
    Path log = Files.createFile(dir.resolve("termination-log"));
    ImageVersionMain.main(new String[] {log.toString()});
    ImageVersion declared = AdminJson.read(Files.readString(log), ImageVersion.class);
    assertThat(declared.release()).isEqualTo(VersionInfo.CURRENT.release());
    assertThat(declared.protocol()).isEqualTo(VersionInfo.CURRENT.protocol());
    assertThat(declared.inventoryFormat()).isEqualTo(InventoryFile.FORMAT);
  }

  @Test
  void withoutATerminationMessageFileItOnlyPrints(@TempDir Path dir) throws Exception {
    ImageVersionMain.main(new String[] {dir.resolve("absent").toString()});
    assertThat(Files.exists(dir.resolve("absent"))).isFalse();
  }
}
