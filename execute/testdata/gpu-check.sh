#!/bin/bash
# GPU check for rdeval execute on a machine with real NVIDIA GPUs: discovers
# the GPUs with nvidia-smi, runs a gpus: 1 task through the sandbox and checks
# that CUDA_VISIBLE_DEVICES holds the assigned UUID, that only that GPU's
# /dev/nvidia<minor> (plus nvidiactl/uvm) is visible inside, that nvidia-smi
# inside sees that GPU only, torch when installed, and that a gpus: 0 task
# sees no GPU. Prints PASS/FAIL/SKIP lines; exits 0 when nothing failed.
#
# Needs no network, git or Go on the GPU machine: build the test binary where
# Go is, then carry it (*.test is git-ignored):
#   go test -c -o execute.test ./execute
#   bash execute/testdata/gpu-check.sh ./execute.test
# (for the device tool: carry ["execute.test"], command
#  "bash execute/testdata/gpu-check.sh ./execute.test", timeout_s 300).
# Without an argument it builds the binary with go (needs the module cache).
set -u
bin=${1:-}
if [ -z "$bin" ]; then
  bin=$(mktemp -d)/execute.test
  (cd "$(dirname "$0")/../.." && go test -c -o "$bin" ./execute) || { echo "FAIL build: go test -c ./execute"; exit 1; }
fi
bin=$(readlink -f "$bin")
command -v nvidia-smi >/dev/null || echo "FAIL nvidia-smi not on PATH"
command -v bwrap >/dev/null || echo "SKIP bubblewrap not installed: device-node isolation is not checked (apt-get install bubblewrap)"
cd "$(dirname "$0")/.." || exit 1   # the package folder, as go test runs it
out=$(RDEVAL_GPU_CHECK=1 "$bin" -test.run '^TestRealGPU$' -test.v -test.count=1 2>&1)
rc=$?
printf '%s\n' "$out"
echo "---"
grep -E '^(PASS|FAIL|SKIP) ' <<<"$out"
if [ $rc -ne 0 ] || grep -q '^FAIL ' <<<"$out"; then
  echo "RESULT: FAIL"
  exit 1
fi
echo "RESULT: PASS"
