#!/usr/bin/env bash
# The GPU checks of issues 19, 21 and 35 in one bounded run, for a lent GPU machine (the project's
# CI stays on CPU). Each step has its own time limit and writes its log to $OUT/<step>.log;
# the last line of each is echoed. Packages the machine lacks can be given as wheels in .whl/
# Step limits and sizes: TESTS_S, JUDGE_S, JUDGE_SIZES, JUDGE_REQUESTS, MAP_PREP_S,
# MAP_PREP_MAPS, MAP_PREP_BEFORE. (.site/ may hold the project's dist-info, for its plugin
# entry points, where it is not installed).
#
#   OUT=/tmp/gpu bash benchmarks/gpu_check.sh [steps...]   (default: every step)
set -u
OUT=${OUT:-/tmp/gpu_check}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 XENT_ARENA_NO_SKIPS=1
if compgen -G ".whl/*.whl" > /dev/null; then  # into the machine's own environment: a
  # test's subprocess then finds them too
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    .whl/*.whl || exit 2
fi
if [ -d .site ]; then
  purelib=$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
  echo "$PWD/.site" > "$purelib/xent-arena-site.pth"
fi
export PYTHONPATH="$PWD"
nvidia-smi -L
python3 -c "import torch, transformers; print('torch', torch.__version__, 'transformers', \
transformers.__version__, torch.cuda.get_device_name())"

step() {  # step NAME SECONDS COMMAND...
  local name=$1 limit=$2
  shift 2
  local start=$SECONDS
  timeout "$limit" "$@" > "$OUT/$name.log" 2>&1
  echo "== $name: exit $? in $((SECONDS - start)) s: $(tail -n 1 "$OUT/$name.log")"
}

tests() {
  step tests "${TESTS_S:-120}" python3 -m pytest -q -rfE --device cuda tests/judges \
    tests/players/test_hf_player.py tests/gamespace/test_transfer_oracle.py
}
judge() {
  step judge "${JUDGE_S:-240}" python3 benchmarks/gpu_judge_bench.py --device cuda \
    --sizes "${JUDGE_SIZES:-bundled,gpt2-small,llama-1b}" --dtypes float32,bfloat16 \
    --requests "${JUDGE_REQUESTS:-2048}"
}
judge_unpacked() {
  step judge_unpacked 120 python3 benchmarks/gpu_judge_bench.py --device cuda \
    --sizes gpt2-small,llama-1b --dtypes bfloat16 --packing 0
}
replicas() {
  step replicas 60 python3 benchmarks/gpu_judge_bench.py --device cuda --sizes llama-1b \
    --dtypes bfloat16 --replicas 2 --max-batch-tokens 16384
}
map_prep() {
  step map_prep "${MAP_PREP_S:-240}" python3 benchmarks/map_prep_bench.py --device cuda \
    --maps "${MAP_PREP_MAPS:-256,256}" --before "${MAP_PREP_BEFORE:-16,16}" --alone 8,8
}
finetune_gpu() {
  step finetune_gpu 60 python3 benchmarks/scope_bench.py --count 0 --games condense \
    --finetune-budget 32000 --player-shape gpt2-small --device cuda
}
finetune_cpu() {
  step finetune_cpu 80 python3 benchmarks/scope_bench.py --count 0 --games condense \
    --finetune-budget 16000 --player-shape gpt2-small --device cpu
}

steps=("$@")
[ ${#steps[@]} -eq 0 ] && steps=(tests judge judge_unpacked map_prep finetune_gpu finetune_cpu replicas)
for one in "${steps[@]}"; do "$one"; done
