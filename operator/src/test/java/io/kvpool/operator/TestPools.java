package io.kvpool.operator;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.kvpool.api.v1alpha1.DeviceSpec;
import io.kvpool.api.v1alpha1.EvictionSpec;
import io.kvpool.api.v1alpha1.HugePages;
import io.kvpool.api.v1alpha1.KvCachePool;
import io.kvpool.api.v1alpha1.KvCachePoolSpec;
import io.kvpool.api.v1alpha1.MasterSpec;
import io.kvpool.api.v1alpha1.StorageSpec;
import io.kvpool.api.v1alpha1.TransferEngine;
import io.kvpool.api.v1alpha1.TransferEngineRef;
import io.kvpool.api.v1alpha1.TransferEngineSpec;
import io.kvpool.api.v1alpha1.TransferProtocol;

/**
 * Pools and engines as a user would write them (only required fields; defaults left to the server).
 */
public final class TestPools {
  private TestPools() {}

  public static KvCachePool pool(String namespace, String name) {
    KvCachePool pool = new KvCachePool();
    pool.setMetadata(
        new ObjectMetaBuilder().withNamespace(namespace).withName(name).withGeneration(1L).build());
    KvCachePoolSpec spec = new KvCachePoolSpec();
    spec.setVersion("0.1.0");
    StorageSpec storage = new StorageSpec();
    storage.setMemoryPerNode(new Quantity("256Mi"));
    storage.setReplicas(3);
    spec.setStorage(storage);
    pool.setSpec(spec);
    return pool;
  }

  /** A pool with every defaulted field filled, as the API server returns it. */
  public static KvCachePool defaultedPool(String namespace, String name) {
    KvCachePool pool = pool(namespace, name);
    KvCachePoolSpec spec = pool.getSpec();
    MasterSpec master = new MasterSpec();
    master.setReplicas(1);
    master.setPort(50051);
    master.setAdminPort(8080);
    master.setPlacementRamp(true);
    spec.setMaster(master);
    StorageSpec storage = spec.getStorage();
    storage.setSegments(1);
    storage.setHugePages(HugePages.TRANSPARENT);
    storage.setPort(50052);
    storage.setAdminPort(8081);
    spec.setObjectReplicas(2);
    spec.setLeaseTtl("5s");
    spec.setNodeTtl("10s");
    EvictionSpec eviction = new EvictionSpec();
    eviction.setHighWatermark(0.9);
    eviction.setEvictRatio(0.1);
    spec.setEviction(eviction);
    return pool;
  }

  public static KvCachePool withEngine(KvCachePool pool, String engineName) {
    TransferEngineRef ref = new TransferEngineRef();
    ref.setName(engineName);
    pool.getSpec().setTransferEngineRef(ref);
    return pool;
  }

  public static TransferEngine tcpEngine(String namespace, String name) {
    TransferEngine engine = new TransferEngine();
    engine.setMetadata(
        new ObjectMetaBuilder().withNamespace(namespace).withName(name).withGeneration(1L).build());
    TransferEngineSpec spec = new TransferEngineSpec();
    spec.setProtocol(TransferProtocol.TCP);
    spec.setPort(50060);
    engine.setSpec(spec);
    return engine;
  }

  public static TransferEngine ascendEngine(
      String namespace, String name, String resourceName, int count) {
    TransferEngine engine = tcpEngine(namespace, name);
    engine.getSpec().setProtocol(TransferProtocol.ASCEND);
    DeviceSpec devices = new DeviceSpec();
    devices.setResourceName(resourceName);
    devices.setCount(count);
    engine.getSpec().setDevices(devices);
    return engine;
  }
}
