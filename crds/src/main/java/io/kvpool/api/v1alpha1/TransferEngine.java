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
 * How bytes move between storage nodes and clients of the pools that reference it: TCP, RDMA or
 * Ascend NPUs.
 */
@Group(KvCachePool.GROUP)
@Version(KvCachePool.VERSION)
@Kind("TransferEngine")
@Plural("transferengines")
@Singular("transferengine")
@ShortNames("kvte")
@AdditionalPrinterColumn(name = "Protocol", jsonPath = ".spec.protocol", type = Type.STRING)
@AdditionalPrinterColumn(
    name = "Device",
    jsonPath = ".spec.devices.resourceName",
    type = Type.STRING)
@AdditionalPrinterColumn(name = "Count", jsonPath = ".spec.devices.count", type = Type.INTEGER)
@AdditionalPrinterColumn(
    name = "Advertised",
    jsonPath = ".status.deviceResourceAdvertised",
    type = Type.BOOLEAN)
@AdditionalPrinterColumn(
    name = "Nodes",
    jsonPath = ".status.nodesWithDevice",
    type = Type.INTEGER,
    priority = 1)
@AdditionalPrinterColumn(name = "Age", jsonPath = ".metadata.creationTimestamp", type = Type.DATE)
@ValidationRule(
    value = "has(self.spec)",
    message = "spec is required: spec: {} selects plain tcp with default ports and buffers",
    fieldPath = ".spec",
    reason = "FieldValueRequired")
public class TransferEngine extends CustomResource<TransferEngineSpec, TransferEngineStatus>
    implements Namespaced {}
