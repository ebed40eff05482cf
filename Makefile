# The two commands of the README. Each does its own set-up (scripts/setup.sh).
.PHONY: setup demo test test-unit typecheck down

setup:
	@bash scripts/setup.sh

demo: setup
	node bin/helmcrew.js demo

test: setup typecheck
	@mkdir -p .helmcrew
	npx vitest run --reporter=default --reporter=json --outputFile.json=.helmcrew/test-results.json; \
	  status=$$?; node scripts/print-test-summary.mjs .helmcrew/test-results.json; exit $$status

test-unit:
	npx vitest run --project unit

typecheck:
	npx tsc --noEmit -p tsconfig.test.json

down:
	node bin/helmcrew.js dev down
