# Storefront's commands. `make run` and `make test` work on a fresh Debian
# bookworm machine as root: each installs what is missing first.
.PHONY: install build run test unit lint check-compose check-monitoring bench bench-http scale-demo chaos fuzz clean

install:        ## Debian packages and the pinned wheels (librdkafka >= 2.2, Tansu)
	@./scripts/install-deps.sh

build: install  ## debug build of every target
	swift build

run:            ## the whole stack against the provider sandbox; Ctrl-C stops it
	@./scripts/run.sh

test:           ## unit tests with no server, then a throwaway PostgreSQL and broker for every other test
	@./scripts/test.sh

unit:           ## only the unit test targets, with no server (DATABASE_URL, KAFKA_BROKERS, STOREFRONT_SCRIPTS unset)
	@./scripts/unit-tests.sh

lint:           ## every Swift file against .swift-format (swift format, from the toolchain); scripts/lint.sh --fix rewrites them
	@./scripts/lint.sh

settings-docs:  ## after adding or changing a Setting: regenerate docs/settings.json and the tables of docs/configuration.md
	@./scripts/settings-docs.sh

check-compose:  ## docker-compose.yml: Compose Specification schema and Storefront's rules (no engine needed)
	@./scripts/check-compose.sh

check-monitoring:  ## Prometheus configuration, alert rules and their unit tests, Grafana dashboards (promtool; no server needed)
	@./scripts/check-monitoring.sh

bench:          ## every throughput figure beside its baseline, same run (release build, own stack); settings: scripts/bench.sh
	@./scripts/install-deps.sh
	@./scripts/bench.sh

bench-http:     ## Swift HTTP server vs nginx serving the same 2 KB JSON
	@./scripts/install-deps.sh
	@./scripts/bench-http.sh

scale-demo:     ## 20,000 webhooks through 2 receivers and 3 projectors, one projector killed midway; checks PostgreSQL
	@./scripts/install-deps.sh
	@./scripts/scale-demo.sh

chaos:          ## fault suite: 50,000 webhooks (Lemon Squeezy's retries) while the broker is frozen twice, a projector SIGKILLed, PostgreSQL and a receiver restarted; then sandbox purchases of both providers (their real retry schedules) while the broker is killed, PostgreSQL black-holed, the broker down past Lemon Squeezy's retries; 0 lost, 0 twice; settings: scripts/chaos.sh
	@./scripts/install-deps.sh
	@./scripts/chaos.sh

fuzz:           ## fuzz longer: the API through a live stack (schemathesis, FUZZ_API_EXAMPLES=500), then each libFuzzer target for FUZZ_SECONDS (60); settings: scripts/fuzz-api.sh, scripts/fuzz.sh
	@./scripts/install-deps.sh
	swift build
	@FUZZ_API_EXAMPLES=$${FUZZ_API_EXAMPLES:-500} ./scripts/fuzz-api.sh
	@./scripts/fuzz.sh

clean:
	rm -rf .build
