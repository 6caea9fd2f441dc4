package io.kvpool.operator.render;

import io.kvpool.operator.common.PoolLabels.Component;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Which field of a pool's spec a field of its rendered StatefulSet comes from, so that a refusal of
 * the API server ("spec.template.spec.nodeSelector: Invalid value...") is reported where the user
 * can fix it ("spec.scheduling.nodeSelector: Invalid value...").
 */
public final class RenderedFields {
  private static final String POD = "spec.template.spec.";
  private static final String CONTAINER = POD + "containers[0].";

  private RenderedFields() {}

  public static String poolField(Component component, String renderedField) {
    if (renderedField == null || renderedField.isEmpty()) {
      return "the " + component.label() + " StatefulSet rendered from the spec";
    }
    String scheduling =
        component == Component.STORAGE ? "spec.scheduling" : "spec.master.scheduling";
    String resources =
        component == Component.STORAGE ? "spec.storage.resources" : "spec.master.resources";
    Map<String, String> sources = new LinkedHashMap<>();
    sources.put(POD + "nodeSelector", scheduling + ".nodeSelector");
    sources.put(POD + "tolerations", scheduling + ".tolerations");
    sources.put(POD + "affinity", scheduling + ".affinity");
    sources.put(POD + "topologySpreadConstraints", scheduling + ".topologySpreadConstraints");
    sources.put(CONTAINER + "resources", resources);
    sources.put(CONTAINER + "image", "spec.image");
    sources.put(
        POD + "volumes", "the TransferEngine's spec.devices.driverMounts (" + renderedField + ")");
    sources.put(
        CONTAINER + "volumeMounts",
        "the TransferEngine's spec.devices.driverMounts (" + renderedField + ")");
    for (Map.Entry<String, String> source : sources.entrySet()) {
      if (renderedField.equals(source.getKey())) {
        return source.getValue();
      }
      if (renderedField.startsWith(source.getKey()) && !source.getValue().contains("(")) {
        return source.getValue() + renderedField.substring(source.getKey().length());
      }
      if (renderedField.startsWith(source.getKey())) {
        return source.getValue();
      }
    }
    return "the "
        + component.label()
        + " StatefulSet rendered from the spec ("
        + renderedField
        + ")";
  }
}
