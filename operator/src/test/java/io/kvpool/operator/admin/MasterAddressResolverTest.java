package io.kvpool.operator.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvpool.operator.TestPools;
import java.net.URI;
import org.junit.jupiter.api.Test;

class MasterAddressResolverTest {

  @Test
  void theDefaultIsTheLeaderService() {
    assertThat(
            MasterAddressResolver.fromTemplate(MasterAddressResolver.LEADER_SERVICE_TEMPLATE)
                .adminBase(TestPools.pool("ns", "p")))
        .isEqualTo(URI.create("http://p-master.ns.svc:8080"));
  }

  @Test
  void aTemplateCanPointAtAPortForward() {
    assertThat(
            MasterAddressResolver.fromTemplate("http://127.0.0.1:{adminPort}")
                .adminBase(TestPools.pool("ns", "p")))
        .isEqualTo(URI.create("http://127.0.0.1:8080"));
  }

  @Test
  void aTemplateThatIsNoUrlIsRefused() {
    assertThatThrownBy(() -> MasterAddressResolver.fromTemplate("{pool}:8080"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("must be an http(s) URL");
  }
}
