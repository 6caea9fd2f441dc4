package io.kvpool.master;

import io.kvpool.common.VersionInfo;
import picocli.CommandLine;

/** {@code --version}: release and wire protocol. */
public final class VersionLine implements CommandLine.IVersionProvider {
  @Override
  public String[] getVersion() {
    return new String[] {
      "kvpool "
          + VersionInfo.CURRENT.release()
          + " (protocol "
          + VersionInfo.CURRENT.protocol()
          + ")"
    };
  }
}
