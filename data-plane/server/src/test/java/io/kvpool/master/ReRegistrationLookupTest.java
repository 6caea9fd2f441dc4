package io.kvpool.master;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvpool.protocol.ErrorCode;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Storage nodes that register again with the leader (they lost their link to it, e.g. while it was
 * frozen) deliver their inventories after their registrations replace the earlier ones. Meanwhile
 * an object whose every replica is on such a node is not gone, only not confirmed yet: lookups
 * answer RECOVERING (clients ask again), never NOT_FOUND.
 */
class ReRegistrationLookupTest {
  private static final long MIB = 1 << 20;

  @Test
  void anObjectWhoseNodesAreRegisteringAgainIsNotAnsweredAsMissing() {
    PoolFixture f = new PoolFixture(0.9, 0.1).node("a", 16 * MIB).node("b", 16 * MIB).settle();
    f.put("k", 1000, 2);
    PoolFixture.SimNode a = f.nodes.get("a");
    PoolFixture.SimNode b = f.nodes.get("b");

    f.beginRegistration(a);
    assertThat(f.pool.getReplicas(List.of("k")).get(0).status())
        .as("one replica is still on a serving node")
        .isEqualTo(ErrorCode.OK);
    f.beginRegistration(b);
    assertThat(f.pool.getReplicas(List.of("k")).get(0).status())
        .as("both holders re-registering, their inventories not delivered yet")
        .isEqualTo(ErrorCode.RECOVERING);
    assertThat(f.pool.exists(List.of("k"))).containsExactly(ErrorCode.RECOVERING);
    assertThat(f.pool.getReplicas(List.of("never-put")).get(0).status())
        .as("a key that was never stored is still simply missing")
        .isEqualTo(ErrorCode.NOT_FOUND);

    f.finishRegistration(a);
    f.finishRegistration(b);
    assertThat(f.pool.getReplicas(List.of("k")).get(0).status()).isEqualTo(ErrorCode.OK);
    assertThat(f.replicas("k")).isEqualTo(2);
  }

  @Test
  void anObjectItsReRegisteredNodesNoLongerHoldIsMissingOnceTheyAreDone() {
    PoolFixture f = new PoolFixture(0.9, 0.1).node("a", 16 * MIB).node("b", 16 * MIB).settle();
    f.put("k", 1000, 2);
    for (PoolFixture.SimNode n : f.nodes.values()) {
      n.objects.clear(); // their memory was lost
      f.beginRegistration(n);
    }
    assertThat(f.pool.getReplicas(List.of("k")).get(0).status()).isEqualTo(ErrorCode.RECOVERING);
    for (PoolFixture.SimNode n : f.nodes.values()) {
      f.finishRegistration(n);
    }
    f.tickUntilQuiet();
    assertThat(f.pool.getReplicas(List.of("k")).get(0).status()).isEqualTo(ErrorCode.NOT_FOUND);
  }
}
