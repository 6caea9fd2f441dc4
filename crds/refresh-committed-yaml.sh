#!/usr/bin/env bash
# Regenerates the CRDs from the Java types and rewrites both committed copies:
# crds/*.yml and helm/kvpool/crds/*.yml. Run it after changing a type in io.kvpool.api.v1alpha1,
# then commit the YAML; `./mvnw -pl test-kube,crds verify` fails while the copies are stale.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
./mvnw -q -B -pl test-kube,crds package -Dkvpool.crds.write=true \
  -Dtest=CommittedCrdYamlTest -Dsurefire.failIfNoSpecifiedTests=false "$@"
git status --short -- crds/*.yml helm/kvpool/crds
