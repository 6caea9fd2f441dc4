package io.kvpool.admin;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import org.junit.jupiter.api.Test;

class NodeStateTest {
  private static MasterStatus.NodeStatus node(String state) {
    return new MasterStatus.NodeStatus(
        "n1", "10.0.0.6:50052", state, 100, 10, 3, "0.2.0", "2.0", 5);
  }

  @Test
  void theStatesAMasterWritesReadTyped() {
    assertThat(node("REGISTERING").nodeState()).isEqualTo(NodeState.REGISTERING);
    assertThat(node("ALIVE").nodeState()).isEqualTo(NodeState.ALIVE);
    assertThat(node("DRAINING").nodeState()).isEqualTo(NodeState.DRAINING);
    assertThat(node("DEAD").nodeState()).isEqualTo(NodeState.DEAD);
  }

  @Test
  void aStateThisReaderDoesNotKnowIsUnknownNeverAnotherOne() {
    assertThat(node("SUSPENDED").nodeState()).isEqualTo(NodeState.UNKNOWN);
    assertThat(node("").nodeState()).isEqualTo(NodeState.UNKNOWN);
    assertThat(node("alive").nodeState())
        .as("exactly as the master writes it")
        .isEqualTo(NodeState.UNKNOWN);
    assertThat(node(null).nodeState()).isEqualTo(NodeState.UNKNOWN);
  }

  @Test
  void theDocumentKeepsTheStateAsAStringAndGainsNoField() throws IOException {
    String json = AdminJson.write(node("DRAINING"));
    assertThat(json).contains("\"state\":\"DRAINING\"").doesNotContain("nodeState");
    assertThat(
            AdminJson.read(
                    "{\"apiVersion\":\"" + AdminJson.API_VERSION + "\",\"nodes\":[" + json + "]}",
                    MasterStatus.class)
                .nodes()
                .get(0)
                .nodeState())
        .isEqualTo(NodeState.DRAINING);
  }
}
