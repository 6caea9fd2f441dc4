package io.kvpool.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ReadyLineTest {

  @Test
  void parsesRoleAndFields() {
    ReadyLine line =
        ReadyLine.parse("KVPOOL_READY storage node=n1 rpc=127.0.0.1:4100 admin=127.0.0.1:4101")
            .orElseThrow();
    assertThat(line.role()).isEqualTo("storage");
    assertThat(line.require("node")).isEqualTo("n1");
    assertThat(line.require("rpc")).isEqualTo("127.0.0.1:4100");
    assertThat(line.require("admin")).isEqualTo("127.0.0.1:4101");
  }

  @Test
  void ignoresOtherLogLines() {
    assertThat(ReadyLine.parse("[main] INFO event=master_started rpc=127.0.0.1:1")).isEmpty();
    assertThat(ReadyLine.parse("# java -cp x io.kvpool.master.MasterMain")).isEmpty();
    assertThat(ReadyLine.parse("KVPOOL_READYX master")).isEmpty();
  }

  @Test
  void missingFieldNamesWhatWasExpected() {
    ReadyLine line = ReadyLine.parse("KVPOOL_READY master rpc=127.0.0.1:1").orElseThrow();
    assertThatThrownBy(() -> line.require("admin"))
        .isInstanceOf(PoolProcessException.class)
        .hasMessageContaining("lacks field 'admin'");
  }
}
