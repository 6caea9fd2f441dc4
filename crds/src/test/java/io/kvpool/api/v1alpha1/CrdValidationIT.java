package io.kvpool.api.v1alpha1;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.APIResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.StatusCause;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.kvpool.testkube.RealKubeApiServer;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The committed CRDs against a real kube-apiserver: bad specs are refused with a cause that names
 * the field, good ones (test fixtures and the user examples in manifests/examples) are stored
 * unchanged and read back into the Java types, and the server applies the defaults.
 */
@ExtendWith(RealKubeApiServer.class)
class CrdValidationIT {

  private static final String NAMESPACE =
      "crd-test-" + UUID.randomUUID().toString().substring(0, 8);
  private static KubernetesClient client;

  @BeforeAll
  static void createNamespace(KubernetesClient kubernetesClient) {
    client = kubernetesClient;
    client
        .namespaces()
        .resource(
            new NamespaceBuilder().withNewMetadata().withName(NAMESPACE).endMetadata().build())
        .create();
  }

  @AfterAll
  static void deleteNamespace() {
    client.namespaces().withName(NAMESPACE).delete();
  }

  static Stream<Manifest> invalidManifests() {
    return Manifest.in(testResource("invalid")).stream();
  }

  static Stream<Manifest> validManifests() {
    Path examples =
        Path.of(System.getProperty("kvpool.crds.module"), "..", "manifests", "examples")
            .normalize();
    return Stream.concat(
        Manifest.in(testResource("valid")).stream(), Manifest.in(examples).stream());
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("invalidManifests")
  void refusesInvalidSpecNamingTheField(Manifest manifest) {
    GenericKubernetesResource resource = parse(manifest);

    assertThatThrownBy(() -> create(resource))
        .isInstanceOfSatisfying(
            KubernetesClientException.class,
            refused -> {
              assertThat(refused.getCode())
                  .as("HTTP status for %s: %s", manifest, refused.getMessage())
                  .isEqualTo(422);
              assertThat(causes(refused.getStatus()))
                  .as("causes the server gave for %s", manifest)
                  .anySatisfy(
                      cause -> {
                        assertThat(fieldOf(cause)).isEqualTo(manifest.expectedField());
                        assertThat(cause.getMessage()).contains(manifest.expectedMessage());
                      });
            });
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("validManifests")
  void acceptsValidSpecAndStoresItUnchanged(Manifest manifest) {
    GenericKubernetesResource resource = parse(manifest);

    GenericKubernetesResource stored = create(resource);

    // Pruning would drop fields the schema does not know: every field written must come back as
    // written
    // (the server may add defaults next to them).
    assertThat(
            WrittenFields.lostOrChanged(
                "spec",
                resource.getAdditionalProperties().get("spec"),
                stored.getAdditionalProperties().get("spec")))
        .as("fields of %s the server did not keep", manifest)
        .isEmpty();
    // The Java types read and write every stored field.
    Class<?> type =
        "KvCachePool".equals(resource.getKind()) ? KvCachePool.class : TransferEngine.class;
    KubernetesSerialization serialization = client.getKubernetesSerialization();
    Object typed = serialization.unmarshal(serialization.asJson(stored), type);
    GenericKubernetesResource rewritten =
        serialization.unmarshal(serialization.asJson(typed), GenericKubernetesResource.class);
    assertThat(
            WrittenFields.lostOrChanged(
                "spec",
                stored.getAdditionalProperties().get("spec"),
                rewritten.getAdditionalProperties().get("spec")))
        .as("fields of %s lost through %s", manifest, type.getSimpleName())
        .isEmpty();
  }

  @Test
  void appliesPoolDefaults() {
    KvCachePool pool = new KvCachePool();
    pool.setMetadata(
        new ObjectMetaBuilder().withName("minimal-pool").withNamespace(NAMESPACE).build());
    KvCachePoolSpec spec = new KvCachePoolSpec();
    spec.setVersion("0.1.0");
    StorageSpec storage = new StorageSpec();
    storage.setMemoryPerNode(new Quantity("4Gi"));
    spec.setStorage(storage);
    pool.setSpec(spec);

    KvCachePoolSpec stored = client.resource(pool).create().getSpec();

    assertThat(stored.getImage()).isNull();
    assertThat(stored.getImagePullPolicy()).isEqualTo(ImagePullPolicy.IfNotPresent);
    assertThat(stored.getMaster().getReplicas()).isEqualTo(1);
    assertThat(stored.getMaster().getPort()).isEqualTo(50051);
    assertThat(stored.getMaster().getAdminPort()).isEqualTo(8080);
    assertThat(stored.getStorage().getReplicas()).isEqualTo(3);
    assertThat(stored.getStorage().getMemoryPerNode()).isEqualTo(new Quantity("4Gi"));
    assertThat(stored.getStorage().getSegments()).isEqualTo(1);
    assertThat(stored.getStorage().getHugePages()).isEqualTo(HugePages.TRANSPARENT);
    assertThat(stored.getStorage().getPort()).isEqualTo(50052);
    assertThat(stored.getStorage().getAdminPort()).isEqualTo(8081);
    assertThat(stored.getObjectReplicas()).isEqualTo(2);
    assertThat(stored.getLeaseTtl()).isEqualTo("5s");
    assertThat(stored.getNodeTtl()).isEqualTo("10s");
    assertThat(stored.getEviction().getHighWatermark()).isEqualTo(0.9);
    assertThat(stored.getEviction().getEvictRatio()).isEqualTo(0.1);
    assertThat(stored.getUpgrade().getPaused()).isFalse();
    assertThat(stored.getStorage().getWarmRestart().getEnabled()).isFalse();
    assertThat(stored.getStorage().getWarmRestart().getHostPath()).isEqualTo("/dev/shm/kvpool");
    assertThat(stored.getUpgrade().getStepTimeout()).isEqualTo("10m");
    assertThat(stored.getUpgrade().getOnFailure()).isEqualTo(UpgradeFailurePolicy.Pause);
    assertThat(stored.getUpgrade().getAllowDowngrade()).isFalse();
    assertThat(stored.getTransferEngineRef()).isNull();
    assertThat(stored.getScheduling()).isNull();
  }

  @Test
  void appliesTransferEngineDefaults() {
    TransferEngine engine = new TransferEngine();
    engine.setMetadata(
        new ObjectMetaBuilder().withName("minimal-engine").withNamespace(NAMESPACE).build());
    engine.setSpec(new TransferEngineSpec());

    TransferEngineSpec stored = client.resource(engine).create().getSpec();

    assertThat(stored.getProtocol()).isEqualTo(TransferProtocol.TCP);
    assertThat(stored.getPort()).isEqualTo(50060);
    assertThat(stored.getHostNetwork()).isFalse();
    assertThat(stored.getBufferPool().getSize()).isEqualTo(new Quantity("256Mi"));
    assertThat(stored.getBufferPool().getBuffers()).isEqualTo(8);
    assertThat(stored.getDevices()).isNull();
  }

  @Test
  void ascendDevicesGetVisibilityEnvDefault() {
    TransferEngine engine = new TransferEngine();
    engine.setMetadata(
        new ObjectMetaBuilder().withName("ascend-engine").withNamespace(NAMESPACE).build());
    TransferEngineSpec spec = new TransferEngineSpec();
    spec.setProtocol(TransferProtocol.ASCEND);
    DeviceSpec devices = new DeviceSpec();
    devices.setResourceName("huawei.com/Ascend910");
    devices.setCount(1);
    devices.setDriverMounts(List.of(DriverMount.of("hccn-conf", "/etc/hccn.conf")));
    spec.setDevices(devices);
    engine.setSpec(spec);

    DeviceSpec stored = client.resource(engine).create().getSpec().getDevices();

    assertThat(stored.getVisibleDevicesEnv()).isEqualTo("ASCEND_VISIBLE_DEVICES");
    assertThat(stored.getDriverMounts())
        .containsExactly(DriverMount.of("hccn-conf", "/etc/hccn.conf"));
  }

  @Test
  void diskVolumeClaimIsFixedOnceStoredWhileTheTierSizeMayChange() {
    GenericKubernetesResource written = parse(valid("pool-disk-tiers.yaml"));
    written.getMetadata().setName("disk-claim-pool");
    KvCachePool pool =
        client.getKubernetesSerialization().convertValue(create(written), KvCachePool.class);
    var pools = client.resources(KvCachePool.class).inNamespace(NAMESPACE);

    pool.getSpec().getStorage().getDisk().setSize(new Quantity("24Gi"));
    KvCachePool resized = pools.resource(pool).update();
    assertThat(resized.getSpec().getStorage().getDisk().getSize()).isEqualTo(new Quantity("24Gi"));

    resized.getSpec().getStorage().getDisk().getVolumeClaim().setSize(new Quantity("50Gi"));
    assertThatThrownBy(() -> pools.resource(resized).update())
        .isInstanceOfSatisfying(
            KubernetesClientException.class,
            refused -> {
              assertThat(refused.getCode()).isEqualTo(422);
              assertThat(causes(refused.getStatus()))
                  .anySatisfy(
                      cause -> {
                        assertThat(fieldOf(cause)).isEqualTo("spec.storage.disk.volumeClaim");
                        assertThat(cause.getMessage())
                            .contains("cannot be added, removed or changed on a running pool");
                      });
            });
  }

  @Test
  void scaleSubresourceMovesStorageReplicas() {
    GenericKubernetesResource pool = parse(valid("pool-memory-as-integer.yaml"));
    pool.getMetadata().setName("scaled-pool");
    create(pool);

    client.resources(KvCachePool.class).inNamespace(NAMESPACE).withName("scaled-pool").scale(5);

    KvCachePool scaled =
        client.resources(KvCachePool.class).inNamespace(NAMESPACE).withName("scaled-pool").get();
    assertThat(scaled.getSpec().getStorage().getReplicas()).isEqualTo(5);
  }

  @Test
  void statusIsASubresourceTheSpecCannotOverwrite() {
    GenericKubernetesResource written = parse(valid("pool-single-storage-node.yaml"));
    written.getMetadata().setName("status-pool");
    KvCachePool pool =
        client.getKubernetesSerialization().convertValue(create(written), KvCachePool.class);
    KvCachePoolStatus status = new KvCachePoolStatus();
    status.setPhase(PoolPhase.Running);
    status.setStorageReadyReplicas(1);
    status.setStorageSelector("app.kubernetes.io/instance=status-pool");
    pool.setStatus(status);

    KvCachePool updated = client.resource(pool).updateStatus();

    assertThat(updated.getStatus().getPhase()).isEqualTo(PoolPhase.Running);
    assertThat(updated.getSpec()).isEqualTo(pool.getSpec());
    assertThat(
            client
                .resources(KvCachePool.class)
                .inNamespace(NAMESPACE)
                .withName("status-pool")
                .scale()
                .getStatus()
                .getReplicas())
        .isEqualTo(1);
  }

  @Test
  void printerColumnsMakeADashboardInDeclaredOrder() throws Exception {
    GenericKubernetesResource written = parse(valid("pool-single-storage-node.yaml"));
    written.getMetadata().setName("dashboard-pool");
    KvCachePool pool =
        client.getKubernetesSerialization().convertValue(create(written), KvCachePool.class);
    KvCachePoolStatus status = new KvCachePoolStatus();
    status.setCapacity("1Gi");
    status.setUsed("512Mi");
    CacheSignalsStatus signals = new CacheSignalsStatus();
    signals.setTiers(List.of(tier("memory", "1Gi", "512Mi"), tier("disk", "8Gi", "3Gi")));
    status.setCacheSignals(signals);
    pool.setStatus(status);
    client.resource(pool).updateStatus();

    Map<String, Object> row = tableRow("kvcachepools", "dashboard-pool");
    assertThat(row.keySet())
        .containsExactly(
            "Name",
            "Phase",
            "Version",
            "Leader",
            "Masters",
            "Storage",
            "Capacity",
            "Used",
            "Disk",
            "Disk-Capacity",
            "Objects",
            "Age");
    // the disk columns pick the disk tier out of the tiers the leader reports
    assertThat(row)
        .containsEntry("Used", "512Mi")
        .containsEntry("Disk", "3Gi")
        .containsEntry("Disk-Capacity", "8Gi");
    assertThat(tableColumns("transferengines"))
        .containsExactly("Name", "Protocol", "Device", "Count", "Advertised", "Nodes", "Age");
  }

  @Test
  void discoveryShowsShortNamesAndSubresources() {
    Map<String, APIResource> resources =
        client
            .getApiResources(KvCachePool.GROUP + "/" + KvCachePool.VERSION)
            .getResources()
            .stream()
            .collect(Collectors.toMap(APIResource::getName, resource -> resource));

    assertThat(resources)
        .containsOnlyKeys(
            "kvcachepools",
            "kvcachepools/status",
            "kvcachepools/scale",
            "transferengines",
            "transferengines/status");
    assertThat(resources.get("kvcachepools").getShortNames()).containsExactly("kvp", "kvpool");
    assertThat(resources.get("transferengines").getShortNames()).containsExactly("kvte");
    assertThat(resources.get("kvcachepools").getNamespaced()).isTrue();
  }

  private static TierUsage tier(String name, String capacity, String used) {
    TierUsage t = new TierUsage();
    t.setName(name);
    t.setCapacity(capacity);
    t.setUsed(used);
    return t;
  }

  /** The cells of one object's row in the server-side table, by column name, in column order. */
  private static Map<String, Object> tableRow(String plural, String name) throws Exception {
    Map<?, ?> table = table(plural);
    List<String> columns = columnNames(table);
    for (Object r : (List<?>) table.get("rows")) {
      List<?> cells = (List<?>) ((Map<?, ?>) r).get("cells");
      if (name.equals(cells.get(0))) {
        Map<String, Object> row = new java.util.LinkedHashMap<>();
        for (int i = 0; i < columns.size(); i++) {
          row.put(columns.get(i), cells.get(i));
        }
        return row;
      }
    }
    throw new AssertionError("no row named " + name + " in the table of " + plural + ": " + table);
  }

  /** Column names of the server-side table kubectl prints for {@code kubectl get <plural>}. */
  private static List<String> tableColumns(String plural) throws Exception {
    return columnNames(table(plural));
  }

  private static List<String> columnNames(Map<?, ?> table) {
    return ((List<?>) table.get("columnDefinitions"))
        .stream().map(column -> (String) ((Map<?, ?>) column).get("name")).toList();
  }

  private static Map<?, ?> table(String plural) throws Exception {
    HttpClient http = client.getHttpClient();
    HttpRequest request =
        http.newHttpRequestBuilder()
            .uri(
                client.getMasterUrl()
                    + "apis/"
                    + KvCachePool.GROUP
                    + "/"
                    + KvCachePool.VERSION
                    + "/namespaces/"
                    + NAMESPACE
                    + "/"
                    + plural)
            .header("Accept", "application/json;as=Table;v=v1;g=meta.k8s.io")
            .build();
    HttpResponse<String> response = http.sendAsync(request, String.class).get(30, TimeUnit.SECONDS);
    assertThat(response.code()).as("table of %s: %s", plural, response.body()).isEqualTo(200);
    return client.getKubernetesSerialization().unmarshal(response.body(), Map.class);
  }

  private static GenericKubernetesResource create(GenericKubernetesResource resource) {
    return client
        .genericKubernetesResources(resource.getApiVersion(), resource.getKind())
        .inNamespace(NAMESPACE)
        .resource(resource)
        .create();
  }

  private static Manifest valid(String fileName) {
    return Manifest.in(testResource("valid")).stream()
        .filter(manifest -> manifest.toString().equals(fileName))
        .findFirst()
        .orElseThrow();
  }

  private static GenericKubernetesResource parse(Manifest manifest) {
    GenericKubernetesResource resource =
        client
            .getKubernetesSerialization()
            .unmarshal(manifest.yaml(), GenericKubernetesResource.class);
    resource.getMetadata().setNamespace(NAMESPACE);
    return resource;
  }

  /**
   * The field a cause names; "(object)" for a rule on the whole object, such as the one on
   * metadata.name (a CRD rule cannot point into metadata, so its message names the field).
   */
  private static String fieldOf(StatusCause cause) {
    String field = cause.getField();
    return field == null || field.isEmpty() || "<nil>".equals(field) ? "(object)" : field;
  }

  private static List<StatusCause> causes(Status status) {
    if (status == null || status.getDetails() == null || status.getDetails().getCauses() == null) {
      return List.of();
    }
    return status.getDetails().getCauses();
  }

  private static Path testResource(String folder) {
    try {
      return Path.of(CrdValidationIT.class.getResource("/" + folder).toURI());
    } catch (URISyntaxException e) {
      throw new IllegalStateException(
          "Test resource folder /" + folder + " not on the classpath", e);
    }
  }
}
