# Storefront's commands. `make run` and `make test` work on a fresh Debian
# bookworm machine as root: they install what is missing first.
.PHONY: install build test run clean bench-http

install:
	@./scripts/install-deps.sh

build: install
	swift build

test:
	@./scripts/test.sh

run: install build
	@./scripts/stack.sh

bench-http: install
	@./scripts/bench-http.sh

clean:
	rm -rf .build
