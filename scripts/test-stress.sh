#!/usr/bin/env bash
# The integration tests under load (make test-stress): a CPU hog (stress-ng) keeps every core busy
# beside them, STRESS_RUNS times in a row, and each run's failures are printed. docs/testing.md.
#   STRESS_RUNS   runs in a row (3)
#   STRESS_CPU    stress-ng CPU workers (2: both cores of the reference machine)
#   STRESS_FILES  test files to run instead of the whole integration project (space-separated)
#   STRESS_SHUFFLE=1  files in a random order, a new seed each run (printed); STRESS_SEED repeats one
# The runs share one local environment: HELMCREW_TEST_STATE_DIR when set (left running), else one
# started here in .helmcrew/stress-env and stopped at the end.
set -uo pipefail
cd "$(dirname "$0")/.."

runs=${STRESS_RUNS:-3}
cpus=${STRESS_CPU:-2}
read -r -a files <<<"${STRESS_FILES:-}"
say() { printf '[test-stress] %s\n' "$*" >&2; }

command -v stress-ng >/dev/null || { say "stress-ng is missing: run make setup"; exit 1; }
[[ $runs =~ ^[1-9][0-9]*$ ]] || { say "STRESS_RUNS must be a positive number, not '$runs'"; exit 2; }
[[ $cpus =~ ^[1-9][0-9]*$ ]] || { say "STRESS_CPU must be a positive number, not '$cpus'"; exit 2; }
shuffle=${STRESS_SHUFFLE:-}
seed=${STRESS_SEED:-$RANDOM}
[[ $seed =~ ^[0-9]+$ ]] || { say "STRESS_SEED must be a number, not '$seed'"; exit 2; }

out=.helmcrew/stress
mkdir -p "$out"
started_env=
if [[ -z ${HELMCREW_TEST_STATE_DIR:-} ]]; then
  export HELMCREW_TEST_STATE_DIR=$PWD/.helmcrew/stress-env
  say "starting the local environment in $HELMCREW_TEST_STATE_DIR (before the load)"
  HELMCREW_STATE_DIR=$HELMCREW_TEST_STATE_DIR node bin/helmcrew.js dev up >"$out/env-up.log" 2>&1 || {
    say "the environment did not start; see $out/env-up.log"
    exit 1
  }
  started_env=1
fi

hog=
cleanup() {
  [[ -n $hog ]] && kill "$hog" 2>/dev/null
  [[ -n $started_env ]] && HELMCREW_STATE_DIR=$HELMCREW_TEST_STATE_DIR node bin/helmcrew.js dev down >/dev/null 2>&1
}
trap cleanup EXIT
trap 'exit 130' INT TERM

failed_runs=0
for ((run = 1; run <= runs; run++)); do
  stress-ng --cpu "$cpus" --quiet &
  hog=$!
  say "run $run/$runs: integration tests beside stress-ng --cpu $cpus"
  result=$out/run-$run.json
  rm -f "$result"
  if ((${#files[@]})); then target=("${files[@]}"); else target=(--project integration --project integration-serial); fi
  if [[ -n $shuffle ]]; then
    target+=(--sequence.shuffle.files "--sequence.seed=$((seed + run - 1))")
    say "run $run/$runs: files shuffled with seed $((seed + run - 1)) (STRESS_SEED=$((seed + run - 1)) STRESS_RUNS=1 repeats it)"
  fi
  npx vitest run "${target[@]}" --reporter=default --reporter=json --outputFile.json="$result" >"$out/run-$run.log" 2>&1
  status=$?
  kill "$hog" 2>/dev/null
  wait "$hog" 2>/dev/null
  hog=
  printf 'run %d/%d: ' "$run" "$runs"
  node scripts/print-test-summary.mjs "$result" --failures
  node scripts/print-slowest-files.mjs "$result" 5
  if ((status != 0)); then
    failed_runs=$((failed_runs + 1))
    say "run $run failed (exit $status); its output: $out/run-$run.log"
  fi
done
say "$((runs - failed_runs)) of $runs runs passed"
((failed_runs == 0))
