# Sourced by the CLI tests: sets gpu=1 when nvidia-smi lists a GPU, 0 otherwise. Independent of the
# plugin, so a plugin that wrongly reports "no CUDA device" on a GPU machine fails the tests instead
# of skipping them.
gpu=0
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then gpu=1; fi
