#!/usr/bin/env bash
# Installs what `kvpool bench compare` needs on a fresh Debian machine, and nothing when it is all there:
#  - the peers' servers: redis-server and memcached (Debian); fio (the disk-3x workload measures the disk's O_DIRECT
#    read limit with it); libibverbs1 (Mooncake's transfer engine links it
#    even for TCP), iproute2 and util-linux (ip, unshare: Mooncake runs in a private network namespace);
#  - a Python environment (default ~/.cache/kvpool/bench-venv) with Mooncake Store, the crc32c wheel the kvpool Python
#    client uses, numpy and matplotlib (the charts). The kvpool Python client itself is imported from the checkout.
# Usage: setup.sh VENV
set -euo pipefail
venv=${1:?usage: setup.sh VENV}

requirements=(
  "mooncake-transfer-engine-non-cuda==0.3.13.post1"
  "crc32c>=2.3"
  "numpy>=1.26"
  "matplotlib>=3.8"
)

missing=()
command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
command -v memcached >/dev/null 2>&1 || missing+=(memcached)
command -v fio >/dev/null 2>&1 || missing+=(fio)
{ ldconfig -p 2>/dev/null || /sbin/ldconfig -p; } | grep -q 'libibverbs\.so\.1' || missing+=(libibverbs1)
command -v ip >/dev/null 2>&1 || [ -x /usr/sbin/ip ] || [ -x /sbin/ip ] || missing+=(iproute2)
command -v unshare >/dev/null 2>&1 || missing+=(util-linux)
python3 -c 'import ensurepip, venv' >/dev/null 2>&1 || missing+=(python3-venv)
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "setup: installing ${missing[*]}"
    apt-get update -q >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
  else
    echo "setup: missing ${missing[*]}; install them (as root: apt-get install ${missing[*]})" >&2
  fi
fi
# Debian's packages start their services where an init system runs: the suite starts its own servers instead
for service in redis-server memcached; do
  if command -v systemctl >/dev/null 2>&1 && systemctl is-active --quiet "$service" 2>/dev/null; then
    echo "setup: note: the $service service is running; the suite uses its own $service on another port"
  fi
done

stamp="$venv/.kvpool-requirements"
wanted="$(printf '%s\n' "${requirements[@]}")"
if [ -x "$venv/bin/python" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$wanted" ]; then
  echo "setup: Python environment $venv is ready"
  exit 0
fi
echo "setup: creating the Python environment $venv (Mooncake Store, numpy, matplotlib, crc32c)"
mkdir -p "$(dirname "$venv")"
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/python" -m pip install -q --disable-pip-version-check "${requirements[@]}"
printf '%s\n' "$wanted" > "$stamp"
echo "setup: done"
