package io.kvpool.operator;

import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The operator's packages depend on one another one way only, read from the compiled classes (so a
 * fully qualified name counts as much as an import; only a compile-time constant, which javac
 * copies, leaves no trace): {@code pool} (the reconcilers' wiring and the dependents) over {@code
 * observe} (the one read of a reconciliation) over {@code status} over {@code autoscale} (sizing on
 * cache signals) over {@code rollout} over {@code admin} (the master's admin API) and {@code
 * render} (pure builders of the pool's objects) over {@code transferengine} over {@code common}. A
 * failure names the classes that close a cycle or reach upwards.
 */
class PackageLayersTest {
  private static final String OPERATOR = "io.kvpool.operator";
  private static final JavaClasses CLASSES =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .importPackages(OPERATOR);

  @Test
  void noPackageDependsOnItselfThroughAnother() {
    slices().matching(OPERATOR + ".(**)").should().beFreeOfCycles().check(CLASSES);
  }

  /** A layer may use any layer below it; admin and render stand side by side. */
  @Test
  void eachPackageUsesOnlyThoseBelowIt() {
    layeredArchitecture()
        .consideringOnlyDependenciesInAnyPackage(OPERATOR + "..")
        .layer("pool")
        .definedBy(OPERATOR + ".pool..")
        .layer("observe")
        .definedBy(OPERATOR + ".observe..")
        .layer("status")
        .definedBy(OPERATOR + ".status..")
        .layer("autoscale")
        .definedBy(OPERATOR + ".autoscale..")
        .layer("rollout")
        .definedBy(OPERATOR + ".rollout..")
        .layer("admin")
        .definedBy(OPERATOR + ".admin..")
        .layer("render")
        .definedBy(OPERATOR + ".render..")
        .layer("transferengine")
        .definedBy(OPERATOR + ".transferengine..")
        .layer("common")
        .definedBy(OPERATOR + ".common..")
        .whereLayer("pool")
        .mayNotBeAccessedByAnyLayer()
        .whereLayer("observe")
        .mayOnlyBeAccessedByLayers("pool")
        .whereLayer("status")
        .mayOnlyBeAccessedByLayers("pool", "observe")
        .whereLayer("autoscale")
        .mayOnlyBeAccessedByLayers("pool", "observe", "status")
        .whereLayer("rollout")
        .mayOnlyBeAccessedByLayers("pool", "observe", "status", "autoscale")
        .whereLayer("admin")
        .mayOnlyBeAccessedByLayers("pool", "observe", "status", "autoscale", "rollout")
        .whereLayer("render")
        .mayOnlyBeAccessedByLayers("pool", "observe", "status", "autoscale", "rollout")
        .whereLayer("transferengine")
        .mayOnlyBeAccessedByLayers(
            "pool", "observe", "status", "autoscale", "rollout", "admin", "render")
        .check(CLASSES);
  }
}
