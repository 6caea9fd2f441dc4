package io.kvpool.operator.render;

import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.ContainerPortBuilder;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.ServicePortBuilder;
import java.util.List;

/**
 * The named ports of the data-plane processes. Services target them by name and the probes use the
 * admin port by name, so the numbers live only in the spec.
 */
public final class DataPlanePorts {
  public static final String RPC = "rpc";
  public static final String ADMIN = "admin";
  public static final String TRANSFER = "transfer";

  private DataPlanePorts() {}

  /** The RPC and admin ports every data-plane container exposes. */
  public static List<ContainerPort> containerPorts(int rpcPort, int adminPort) {
    return List.of(containerPort(RPC, rpcPort), containerPort(ADMIN, adminPort));
  }

  /** The RPC and admin ports of a Service in front of data-plane pods. */
  public static List<ServicePort> servicePorts(int rpcPort, int adminPort) {
    return List.of(servicePort(RPC, rpcPort), servicePort(ADMIN, adminPort));
  }

  public static ContainerPort containerPort(String name, int port) {
    return new ContainerPortBuilder()
        .withName(name)
        .withContainerPort(port)
        .withProtocol("TCP")
        .build();
  }

  public static ServicePort servicePort(String name, int port) {
    return new ServicePortBuilder()
        .withName(name)
        .withProtocol("TCP")
        .withPort(port)
        .withTargetPort(new IntOrString(name))
        .build();
  }
}
