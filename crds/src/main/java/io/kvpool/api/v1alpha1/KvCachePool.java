package io.kvpool.api.v1alpha1;

import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn.Type;
import io.fabric8.generator.annotation.ValidationRule;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Singular;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * A pool of KV-cache memory: masters plus storage nodes running one data-plane release. The columns
 * make {@code kubectl get kvp} the dashboard an operator user checks first.
 */
@Group(KvCachePool.GROUP)
@Version(KvCachePool.VERSION)
@Kind("KvCachePool")
@Plural("kvcachepools")
@Singular("kvcachepool")
@ShortNames({"kvp", "kvpool"})
@AdditionalPrinterColumn(name = "Phase", jsonPath = ".status.phase", type = Type.STRING)
@AdditionalPrinterColumn(name = "Version", jsonPath = ".status.currentVersion", type = Type.STRING)
@AdditionalPrinterColumn(name = "Leader", jsonPath = ".status.leader", type = Type.STRING)
@AdditionalPrinterColumn(name = "Masters", jsonPath = ".status.masters", type = Type.STRING)
@AdditionalPrinterColumn(name = "Storage", jsonPath = ".status.storage", type = Type.STRING)
@AdditionalPrinterColumn(name = "Capacity", jsonPath = ".status.capacity", type = Type.STRING)
@AdditionalPrinterColumn(name = "Used", jsonPath = ".status.used", type = Type.STRING)
@AdditionalPrinterColumn(
    name = "Disk",
    jsonPath = ".status.cacheSignals.tiers[?(@.name==\"disk\")].used",
    type = Type.STRING)
@AdditionalPrinterColumn(
    name = "Disk-Capacity",
    jsonPath = ".status.cacheSignals.tiers[?(@.name==\"disk\")].capacity",
    type = Type.STRING,
    priority = 1)
@AdditionalPrinterColumn(
    name = "Objects",
    jsonPath = ".status.objectCount",
    type = Type.INTEGER,
    priority = 1)
@AdditionalPrinterColumn(name = "Age", jsonPath = ".metadata.creationTimestamp", type = Type.DATE)
@ValidationRule(
    value = "has(self.spec)",
    message = "spec is required: set at least spec.version and spec.storage.memoryPerNode",
    fieldPath = ".spec",
    reason = "FieldValueRequired")
@ValidationRule(
    value =
        "size(self.metadata.name) <= "
            + ApiLimits.MAX_POOL_NAME
            + " && self.metadata.name.matches('"
            + ApiLimits.POOL_NAME_PATTERN
            + "')",
    message =
        "metadata.name of a KvCachePool must be at most "
            + ApiLimits.MAX_POOL_NAME
            + " characters of lowercase"
            + " letters, digits and '-', starting with a letter and ending with a letter or digit: the pool's Services"
            + " and StatefulSets are named after it (<name>-master-peers, <name>-storage)",
    reason = "FieldValueInvalid")
public class KvCachePool extends CustomResource<KvCachePoolSpec, KvCachePoolStatus>
    implements Namespaced {

  public static final String GROUP = "kvpool.io";
  public static final String VERSION = "v1alpha1";
}
