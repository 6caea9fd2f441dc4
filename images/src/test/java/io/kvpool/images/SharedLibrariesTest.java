package io.kvpool.images;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SharedLibrariesTest {
  @Test
  void keepsSystemLibrariesAndTheLoaderButNotTheJresOwnOrUnresolvedOnes() {
    String ldd =
        """
        \tlinux-vdso.so.1 (0x00007ffd6d7f2000)
        \tlibz.so.1 => /lib/x86_64-linux-gnu/libz.so.1 (0x00007f0e1c5a0000)
        \tlibjli.so => /tmp/rootfs/opt/java/bin/../lib/libjli.so (0x00007f0e1c580000)
        \tlibjvm.so => not found
        \tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x00007f0e1c39f000)
        \t/lib64/ld-linux-x86-64.so.2 (0x00007f0e1c5c6000)
        """;
    assertThat(SharedLibraries.parse(ldd))
        .containsExactly(
            "/lib/x86_64-linux-gnu/libc.so.6",
            "/lib/x86_64-linux-gnu/libz.so.1",
            "/lib64/ld-linux-x86-64.so.2");
  }

  @Test
  void aStaticBinaryNeedsNothing() {
    assertThat(SharedLibraries.parse("\tnot a dynamic executable\n")).isEmpty();
  }
}
