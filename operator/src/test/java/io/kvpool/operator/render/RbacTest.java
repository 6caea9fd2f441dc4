package io.kvpool.operator.render;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.kvpool.api.v1alpha1.KvCachePool;
import io.kvpool.operator.TestPools;
import java.util.List;
import org.junit.jupiter.api.Test;

class RbacTest {
  private final KvCachePool pool = TestPools.defaultedPool("ns", "p");

  @Test
  void serviceAccountIsNamedAfterTheMasters() {
    assertThat(Rbac.masterServiceAccount(pool).getMetadata().getName()).isEqualTo("p-master");
  }

  @Test
  void roleGrantsOnlyTheLeaseAndTheMastersOwnPods() {
    pool.getSpec().getMaster().setReplicas(3);

    Role role = Rbac.masterRole(pool);

    List<PolicyRule> rules = role.getRules();
    assertThat(rules)
        .extracting(PolicyRule::getResources)
        .containsOnly(List.of("leases"), List.of("pods"));
    assertThat(rules)
        .flatExtracting(PolicyRule::getVerbs)
        .containsOnly("get", "list", "watch", "create", "update", "patch");
    PolicyRule pods =
        rules.stream().filter(r -> r.getResources().contains("pods")).findFirst().orElseThrow();
    assertThat(pods.getVerbs()).containsExactly("get", "patch");
    assertThat(pods.getResourceNames()).containsExactly("p-master-0", "p-master-1", "p-master-2");
    PolicyRule namedLease =
        rules.stream()
            .filter(r -> r.getResources().contains("leases") && !r.getResourceNames().isEmpty())
            .findFirst()
            .orElseThrow();
    assertThat(namedLease.getResourceNames()).containsExactly("p-leader");
    // fabric8's elector renews the Lease and takes it over with a patch
    assertThat(namedLease.getVerbs()).containsExactly("get", "update", "patch");
    assertThat(namedLease.getApiGroups()).containsExactly("coordination.k8s.io");
  }

  @Test
  void bindingGivesTheRoleToTheServiceAccount() {
    RoleBinding binding = Rbac.masterRoleBinding(pool);

    assertThat(binding.getRoleRef().getName()).isEqualTo("p-master");
    assertThat(binding.getRoleRef().getKind()).isEqualTo("Role");
    assertThat(binding.getSubjects())
        .singleElement()
        .satisfies(
            s -> {
              assertThat(s.getKind()).isEqualTo("ServiceAccount");
              assertThat(s.getName()).isEqualTo("p-master");
              assertThat(s.getNamespace()).isEqualTo("ns");
            });
  }
}
