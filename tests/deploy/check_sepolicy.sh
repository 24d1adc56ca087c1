#!/bin/sh
# The policy module compiles (checkmodule + semodule_package through the
# reference policy devel Makefile) and declares the daemons' domains.
# Skips (77) when the devel files or tools are not installed.
set -u
devel=/usr/share/selinux/devel
[ -f "$devel/Makefile" ] && command -v checkmodule >/dev/null && command -v semodule_package >/dev/null ||
	{ echo "SKIP: selinux-policy-dev, checkpolicy or semodule-utils missing"; exit 77; }
s=${top_srcdir:?}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cp "$s/sepolicy/faro.te" "$s/sepolicy/faro.fc" "$s/sepolicy/faro.if" "$dir/"
if ! out=$(make -s -C "$dir" -f "$devel/Makefile" faro.pp 2>&1); then
	echo "FAIL: policy does not compile:"; echo "$out"; exit 1
fi
[ -s "$dir/faro.pp" ] || { echo "FAIL: no faro.pp"; exit 1; }
for t in traced_t traced_probes_t trace_processor_t traced_producer_socket_t traced_consumer_socket_t; do
	grep -q "^type $t;" "$dir/faro.te" || { echo "FAIL: $t not declared"; exit 1; }
done
# Only traced_probes may touch tracefs.
if grep -E '^allow (traced_t|trace_processor_t) tracefs_t' "$dir/faro.te"; then
	echo "FAIL: tracefs access outside traced_probes"; exit 1
fi
echo "PASS: faro.pp built ($(wc -c < "$dir/faro.pp") bytes)"
