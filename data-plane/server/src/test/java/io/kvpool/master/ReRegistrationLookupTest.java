package io.kvpool.master;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvpool.protocol.ErrorCode;
import io.kvpool.protocol.PutStartResult;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Storage nodes that register again with the leader (they lost their link to it, e.g. while it was
 * frozen) deliver their inventories after their registrations replace the earlier ones. Meanwhile
 * an object whose every replica is on such a node is not gone, only not confirmed yet: lookups
 * answer RECOVERING (clients ask again), never NOT_FOUND; and a put that needs such a node is asked
 * to retry, not told that the pool has too few nodes.
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

  @Test
  void aPutThatNeedsNodesRegisteringAgainIsAskedToRetryNotToldTheNodesAreMissing() {
    PoolFixture f = new PoolFixture(0.9, 0.1).node("a", 16 * MIB).node("b", 16 * MIB).settle();
    f.beginRegistration(f.nodes.get("a"));

    PutStartResult whileReturning = f.start("k", 1000, 2);
    assertThat(whileReturning.status())
        .as("one node ALIVE, the other registering again: retryable, the client asks again")
        .isEqualTo(ErrorCode.RECOVERING);
    assertThat(whileReturning.message()).contains("1 storage node(s) are ALIVE and 1 registering");
    assertThat(f.start("one-copy", 1000, 1).status())
        .as("a put the ALIVE node can take is placed meanwhile")
        .isEqualTo(ErrorCode.OK);
    assertThat(f.start("three", 1000, 3).status())
        .as("more replicas than nodes registered or registering: infeasible, said at once")
        .isEqualTo(ErrorCode.NOT_ENOUGH_NODES);

    f.finishRegistration(f.nodes.get("a"));
    assertThat(f.start("k", 1000, 2).status()).isEqualTo(ErrorCode.OK);
  }
}
