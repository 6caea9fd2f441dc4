package io.kvpool.e2e.chart;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.authorization.v1.ResourceAttributesBuilder;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReview;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReviewBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBuilder;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.kvpool.testkube.RealKubeApiServer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The chart's RBAC, rendered and then applied for real: the API server's own authorizer answers
 * what the operator's ServiceAccount may do. Namespaced mode renders Roles only (plus the one
 * justified ClusterRole for listing nodes) and grants nothing outside the watched namespaces; in
 * both modes the operator can create exactly the Role its pools' masters need (RBAC lets it grant
 * only what it holds) and nothing beyond.
 */
@ExtendWith(RealKubeApiServer.class)
class ChartRbacTest {
  private static final KvpoolChart CHART = KvpoolChart.fromBuild();
  private static final String LEASE = "kvpool-operator";

  @Test
  void namespacedModeRendersOnlyRolesAndTheNodeListingClusterRole(KubernetesClient client) {
    List<HasMetadata> objects =
        KvpoolChart.objects(
            client,
            CHART.render(ChartValueSets.file("namespaced.yaml"), "ns-static", "ns-static-system"));

    List<ClusterRole> clusterRoles = ofKind(objects, ClusterRole.class);
    assertThat(clusterRoles)
        .extracting(r -> r.getMetadata().getName())
        .containsExactly("ns-static-operator-nodes");
    assertThat(clusterRoles.get(0).getRules())
        .as("the only cluster-wide grant")
        .containsExactly(
            new PolicyRuleBuilder()
                .withApiGroups("")
                .withResources("nodes")
                .withVerbs("list")
                .build());
    assertThat(ofKind(objects, ClusterRoleBinding.class))
        .extracting(b -> b.getRoleRef().getName())
        .containsExactly("ns-static-operator-nodes");

    Map<String, List<String>> rolesByNamespace =
        ofKind(objects, Role.class).stream()
            .collect(
                Collectors.groupingBy(
                    r -> r.getMetadata().getNamespace(),
                    Collectors.mapping(r -> r.getMetadata().getName(), Collectors.toList())));
    assertThat(rolesByNamespace)
        .containsOnly(
            Map.entry("team-a", List.of("ns-static-operator")),
            Map.entry("team-b", List.of("ns-static-operator")),
            Map.entry("ns-static-system", List.of("ns-static-operator-leader-election")));
    assertThat(ofKind(objects, RoleBinding.class))
        .hasSize(3)
        .allSatisfy(b -> assertThat(b.getRoleRef().getKind()).isEqualTo("Role"));
  }

  @Test
  void namespacedModeGrantsNothingOutsideTheWatchedNamespacesButListingNodes(
      KubernetesClient client) {
    Operator operator = install(client, "ns-mode", "ns-mode-system", "namespaced.yaml");

    for (String watched : List.of("team-a", "team-b")) {
      operator.assertAllowed(watched, "list", "kvpool.io", "kvcachepools", null);
      operator.assertAllowed(watched, "patch", "kvpool.io", "kvcachepools/status", null);
      operator.assertAllowed(watched, "create", "apps", "statefulsets", null);
      operator.assertAllowed(watched, "watch", "", "configmaps", null);
      operator.assertAllowed(watched, "patch", "", "pods", "demo-master-0");
      operator.assertAllowed(watched, "create", "", "events", null);
    }
    operator.assertAllowed(null, "list", "", "nodes", null);
    operator.assertAllowed("ns-mode-system", "create", "coordination.k8s.io", "leases", null);
    operator.assertAllowed("ns-mode-system", "patch", "coordination.k8s.io", "leases", LEASE);

    for (String unwatched : List.of("team-c", "kube-system", "default")) {
      for (String[] action : POOL_ACTIONS) {
        operator.assertDenied(unwatched, action[0], action[1], action[2], null);
      }
    }
    for (String[] action : POOL_ACTIONS) {
      operator.assertDenied(null, action[0], action[1], action[2], null); // all namespaces at once
    }
    operator.assertDenied(
        "ns-mode-system", "patch", "coordination.k8s.io", "leases", "some-other-lease");
    operator.assertDenied(null, "get", "", "nodes", "node-1");
    operator.assertDenied(null, "watch", "", "nodes", null);
    operator.assertNeverAllowedAnywhere("team-a");
  }

  @Test
  void clusterModeGrantsThePoolRulesEverywhereAndNothingMore(KubernetesClient client) {
    Operator operator = install(client, "cl-mode", "cl-mode-system", "defaults.yaml");

    for (String namespace : List.of("team-c", "default")) {
      for (String[] action : POOL_ACTIONS) {
        operator.assertAllowed(namespace, action[0], action[1], action[2], null);
      }
    }
    operator.assertAllowed(null, "watch", "kvpool.io", "transferengines", null);
    operator.assertNeverAllowedAnywhere("team-c");
    operator.assertNeverAllowedAnywhere("cl-mode-system");
  }

  /**
   * The operator can create its pools' master Role and RoleBinding, but could not grant anything
   * more.
   */
  @Test
  void theOperatorCanGrantExactlyTheMasterRole(KubernetesClient client) {
    for (String[] mode :
        new String[][] {
          {"grant-ns", "namespaced.yaml", "team-a"}, {"grant-cl", "defaults.yaml", "team-c"}
        }) {
      Operator operator = install(client, mode[0], mode[0] + "-system", mode[1]);
      String namespace = mode[2];
      ensureNamespace(client, namespace);
      try (KubernetesClient asOperator = operator.client(client)) {
        // for real: binding a Role is checked against the stored Role's rules
        asOperator.resource(masterRole(namespace)).serverSideApply();
        asOperator.resource(masterRoleBinding(namespace)).serverSideApply();
        client.resource(masterRoleBinding(namespace)).delete();
        client.resource(masterRole(namespace)).delete();

        Role more = masterRole(namespace);
        more.getRules()
            .add(
                new PolicyRuleBuilder()
                    .withApiGroups("")
                    .withResources("secrets")
                    .withVerbs("get")
                    .build());
        assertThatThrownBy(() -> asOperator.resource(more).dryRun().create())
            .as("%s: a Role granting more than the operator holds", mode[1])
            .isInstanceOf(KubernetesClientException.class)
            .hasMessageContaining("attempting to grant RBAC permissions not currently held");
      }
    }
  }

  /** What the operator does in each namespace whose pools it reconciles. */
  private static final String[][] POOL_ACTIONS = {
    {"list", "kvpool.io", "kvcachepools"},
    {"watch", "kvpool.io", "transferengines"},
    {"patch", "kvpool.io", "kvcachepools/status"},
    {"list", "", "configmaps"},
    {"update", "", "configmaps"},
    {"update", "", "secrets"},
    {"create", "", "services"},
    {"patch", "apps", "statefulsets"},
    {"create", "policy", "poddisruptionbudgets"},
    {"create", "rbac.authorization.k8s.io", "roles"},
    {"patch", "rbac.authorization.k8s.io", "rolebindings"},
    {"get", "", "pods"},
    {"patch", "", "pods"},
    {"delete", "", "pods"},
    {"create", "", "pods"},
    {"create", "coordination.k8s.io", "leases"},
    {"create", "", "events"},
  };

  /**
   * The masters' Role as operator/src/main (MasterRoleDependent) builds it for a pool "demo" with
   * three masters: the election Lease of the pool and the master pods, nothing else.
   */
  private static Role masterRole(String namespace) {
    return new RoleBuilder()
        .withNewMetadata()
        .withName("demo-master")
        .withNamespace(namespace)
        .endMetadata()
        .withRules(
            new ArrayList<>(
                List.of(
                    new PolicyRuleBuilder()
                        .withApiGroups("coordination.k8s.io")
                        .withResources("leases")
                        .withVerbs("create", "list", "watch")
                        .build(),
                    new PolicyRuleBuilder()
                        .withApiGroups("coordination.k8s.io")
                        .withResources("leases")
                        .withResourceNames("demo-leader")
                        .withVerbs("get", "update", "patch")
                        .build(),
                    new PolicyRuleBuilder()
                        .withApiGroups("")
                        .withResources("pods")
                        .withResourceNames("demo-master-0", "demo-master-1", "demo-master-2")
                        .withVerbs("get", "patch")
                        .build())))
        .build();
  }

  private static RoleBinding masterRoleBinding(String namespace) {
    return new RoleBindingBuilder()
        .withNewMetadata()
        .withName("demo-master")
        .withNamespace(namespace)
        .endMetadata()
        .withNewRoleRef()
        .withApiGroup("rbac.authorization.k8s.io")
        .withKind("Role")
        .withName("demo-master")
        .endRoleRef()
        .addNewSubject()
        .withKind("ServiceAccount")
        .withName("demo-master")
        .withNamespace(namespace)
        .endSubject()
        .build();
  }

  /**
   * Applies the release's ServiceAccount and RBAC objects for real (nothing else), in their
   * namespaces.
   */
  private static Operator install(
      KubernetesClient client, String release, String namespace, String valuesFile) {
    List<HasMetadata> objects =
        KvpoolChart.objects(
            client, CHART.render(ChartValueSets.file(valuesFile), release, namespace));
    ensureNamespace(client, namespace);
    String serviceAccount = null;
    for (HasMetadata object : objects) {
      if (object.getMetadata().getNamespace() != null) {
        ensureNamespace(client, object.getMetadata().getNamespace());
      }
      switch (object.getKind()) {
        case "ServiceAccount" -> serviceAccount = object.getMetadata().getName();
        case "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding" -> {}
        default -> {
          continue;
        }
      }
      client.resource(object).forceConflicts().serverSideApply();
    }
    assertThat(serviceAccount).as("ServiceAccount rendered for %s", valuesFile).isNotNull();
    return new Operator(client, namespace, serviceAccount);
  }

  private static void ensureNamespace(KubernetesClient client, String namespace) {
    client
        .resource(
            new NamespaceBuilder().withNewMetadata().withName(namespace).endMetadata().build())
        .serverSideApply();
  }

  private static <T> List<T> ofKind(List<HasMetadata> objects, Class<T> kind) {
    return objects.stream().filter(kind::isInstance).map(kind::cast).toList();
  }

  /** The operator's ServiceAccount as the API server's authorizer sees it. */
  private record Operator(KubernetesClient admin, String namespace, String serviceAccount) {
    String user() {
      return "system:serviceaccount:" + namespace + ":" + serviceAccount;
    }

    List<String> groups() {
      return List.of(
          "system:serviceaccounts", "system:serviceaccounts:" + namespace, "system:authenticated");
    }

    /** A client that acts as the ServiceAccount (impersonation; the caller closes it). */
    KubernetesClient client(KubernetesClient admin) {
      return new KubernetesClientBuilder()
          .withConfig(
              new ConfigBuilder(admin.getConfiguration())
                  .withImpersonateUsername(user())
                  .withImpersonateGroups(groups().toArray(String[]::new))
                  .build())
          .build();
    }

    boolean allowed(String ns, String verb, String group, String resource, String name) {
      String[] parts = resource.split("/", 2);
      SubjectAccessReview review =
          admin
              .authorization()
              .v1()
              .subjectAccessReview()
              .create(
                  new SubjectAccessReviewBuilder()
                      .withNewSpec()
                      .withUser(user())
                      .withGroups(groups())
                      .withResourceAttributes(
                          new ResourceAttributesBuilder()
                              .withNamespace(ns)
                              .withVerb(verb)
                              .withGroup(group)
                              .withResource(parts[0])
                              .withSubresource(parts.length > 1 ? parts[1] : null)
                              .withName(name)
                              .build())
                      .endSpec()
                      .build());
      return review.getStatus().getAllowed();
    }

    void assertAllowed(String ns, String verb, String group, String resource, String name) {
      assertThat(allowed(ns, verb, group, resource, name))
          .as(
              "%s may %s %s/%s%s in %s",
              user(),
              verb,
              group,
              resource,
              name == null ? "" : " " + name,
              ns == null ? "all namespaces" : ns)
          .isTrue();
    }

    void assertDenied(String ns, String verb, String group, String resource, String name) {
      assertThat(allowed(ns, verb, group, resource, name))
          .as(
              "%s must not %s %s/%s%s in %s",
              user(),
              verb,
              group,
              resource,
              name == null ? "" : " " + name,
              ns == null ? "all namespaces" : ns)
          .isFalse();
    }

    /** Verbs and kinds the operator's code never uses, even where it reconciles pools. */
    void assertNeverAllowedAnywhere(String ns) {
      assertDenied(ns, "get", "", "secrets", null);
      assertDenied(ns, "delete", "", "secrets", null);
      assertDenied(ns, "delete", "apps", "statefulsets", null);
      assertDenied(ns, "delete", "", "configmaps", null);
      assertDenied(ns, "update", "kvpool.io", "kvcachepools", null);
      assertDenied(ns, "delete", "kvpool.io", "kvcachepools", null);
      assertDenied(ns, "escalate", "rbac.authorization.k8s.io", "roles", null);
      assertDenied(ns, "bind", "rbac.authorization.k8s.io", "roles", null);
      assertDenied(ns, "create", "", "pods/exec", null);
      assertDenied(ns, "create", "", "pods/eviction", null);
      assertDenied(ns, "deletecollection", "", "pods", null);
      assertDenied(null, "create", "rbac.authorization.k8s.io", "clusterroles", null);
      assertDenied(null, "create", "rbac.authorization.k8s.io", "clusterrolebindings", null);
      assertDenied(null, "patch", "apiextensions.k8s.io", "customresourcedefinitions", null);
      assertDenied(null, "get", "", "secrets", null);
    }
  }
}
