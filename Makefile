# The two commands of the README. Each does its own set-up (scripts/setup.sh).
.PHONY: setup demo test test-unit test-stress checks typecheck lint format-check eslint depcruise dockerfile-lint format down

setup:
	@bash scripts/setup.sh

demo: setup
	node bin/helmcrew.js demo

test: setup
	@$(MAKE) --no-print-directory checks
	@mkdir -p .helmcrew
	npx vitest run --reporter=default --reporter=json --outputFile.json=.helmcrew/test-results.json; \
	  status=$$?; node scripts/print-test-summary.mjs .helmcrew/test-results.json --failures; exit $$status

test-unit:
	npx vitest run --project unit

# The integration tests with stress-ng on every core, STRESS_RUNS (3) times in a row; docs/testing.md.
test-stress: setup
	@bash scripts/test-stress.sh

# The type check and the linters, two at a time: each is one process on one core (~2 min → ~1.3 min
# on 2 cores); --output-sync keeps each one's words together.
checks:
	@$(MAKE) --no-print-directory -j2 --output-sync=target typecheck lint

typecheck:
	npx tsc --noEmit -p tsconfig.test.json

# The formatter, the linter and the import rule (docs/architecture.md); each names what it refuses.
lint: format-check eslint depcruise dockerfile-lint

format-check:
	npx prettier --check --log-level warn .

eslint:
	npx eslint --max-warnings 0 --cache --cache-location .helmcrew/eslint-cache .

depcruise:
	npx depcruise src --config .dependency-cruiser.cjs --output-type err-long

dockerfile-lint:
	npx dockerfile-utils lint Dockerfile

format:
	npx prettier --write --log-level warn .

down:
	node bin/helmcrew.js dev down
