# Switchboard — two commands for a new user:
#   make run    install what is missing, build, and open the window
#   make test   install what the tests need and run every test
# See README.md.

SHELL := /bin/bash
GO ?= go
UNAME := $(shell uname -s)
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -s -w -X github.com/switchboard-app/switchboard/internal/buildinfo.Version=$(VERSION)

ifeq ($(UNAME),Linux)
TAGS := desktop,production,webkit2_41
DEV_TAGS := dev,webkit2_41
else
TAGS := desktop,production
DEV_TAGS := dev
endif

BIN := build/bin/switchboard
DEV_BIN := build/bin/switchboard-dev
# Node.js new enough for Vite (the system's, or Node 22 from npm).
NODE_PATH_PREFIX = PATH="$$($(CURDIR)/scripts/node.sh):$$PATH"
# Node 22 and the real MCP servers used by the tests.
TEST_NODE_PATH = PATH="$(CURDIR)/test/node/node_modules/.bin:$$PATH"
GO_SOURCES := $(shell find . -name '*.go' -not -path './frontend/*' -not -path './test/node/*' 2>/dev/null)
FRONTEND_SOURCES := $(shell find frontend/src frontend/index.html frontend/vite.config.ts -type f 2>/dev/null)

.PHONY: generate generate-check run build build-dev deps test-deps frontend vet cross go-test unit conformance doctor-real drills e2e e2e-window e2e-browser screenshots test bench fuzz fuzz-short clean

## run: install what is missing, build, and open the window
run: build
	./$(BIN)

## build: the release binary at build/bin/switchboard
build: deps $(BIN)

$(BIN): $(GO_SOURCES) frontend/dist/index.html go.mod go.sum build/appicon.png
	$(GO) build -tags $(TAGS) -trimpath -ldflags "$(LDFLAGS)" -o $@ .

## build-dev: a development binary that serves the UI to a browser (-devserver)
build-dev: deps $(DEV_BIN)

$(DEV_BIN): $(GO_SOURCES) frontend/dist/index.html go.mod go.sum
	$(GO) build -tags $(DEV_TAGS) -o $@ .

deps: .deps-system frontend/node_modules/.package-lock.json .deps-go

.deps-system: scripts/deps.sh
	scripts/deps.sh run
	@touch $@

.deps-go: go.mod go.sum
	$(GO) mod download
	@touch $@

frontend/node_modules/.package-lock.json: frontend/package.json frontend/package-lock.json
	cd frontend && $(NODE_PATH_PREFIX) npm ci --no-audit --no-fund --loglevel=error

test/node/node_modules/.package-lock.json: test/node/package.json test/node/package-lock.json
	cd test/node && npm ci --no-audit --no-fund --loglevel=error

## frontend: build the web UI into frontend/dist (embedded in the binary)
frontend: frontend/dist/index.html

frontend/dist/index.html: frontend/node_modules/.package-lock.json $(FRONTEND_SOURCES)
	cd frontend && $(NODE_PATH_PREFIX) npm run build --silent
	@touch frontend/dist/.gitkeep

test-deps: deps .deps-test test/node/node_modules/.package-lock.json

.deps-test: scripts/deps.sh
	scripts/deps.sh test
	@touch $@

## test: go vet, go test -race, the frontend's unit tests, and the end-to-end tests
test: test-deps
	@$(MAKE) --no-print-directory vet cross go-test fuzz-short unit conformance doctor-real drills e2e

## generate: the frontend's copy of the Go<->UI contract (frontend/wailsjs: bound methods,
## models, event names and payloads), from Go by Wails' binding generator and tools/gencontract
generate:
	$(GO) run -tags bindings ./tools/gencontract >/dev/null

vet: generate-check
	@mkdir -p frontend/dist && touch frontend/dist/.gitkeep # main.go embeds it; a build empties the folder
	$(GO) vet ./...
	cd frontend && $(NODE_PATH_PREFIX) npx svelte-check --tsconfig ./tsconfig.json --threshold error --output machine | tail -n 3

## cross: what builds here for the other platforms the README promises: go vet and the whole app
## built for Windows (Wails needs no cgo there), go vet of internal/ for macOS (cgo-free, as
## cross-compiling is). test/drills and test/bench drive Linux (Xvfb, /proc, process groups)
## and are left out. It reuses the Go build cache, so it takes seconds after the first run.
cross: frontend/dist/index.html
	GOOS=windows $(GO) vet $$($(GO) list ./... | grep -v -e /test/drills -e /test/bench)
	GOOS=windows CGO_ENABLED=0 $(GO) build -tags desktop,production -o /dev/null .
	GOOS=darwin CGO_ENABLED=0 $(GO) vet ./internal/...

## generate-check: fails when regenerating the contract would change a committed file
generate-check:
	@rm -rf .generate-check && cp -r frontend/wailsjs .generate-check
	@$(MAKE) --no-print-directory generate
	@if ! diff -r .generate-check frontend/wailsjs; then rm -rf .generate-check; \
		echo "frontend/wailsjs is out of date with the Go code: run make generate and commit the result"; exit 1; fi
	@rm -rf .generate-check

# The drills run on their own (make drills), against a freshly built binary.
go-test:
	$(TEST_NODE_PATH) SWITCHBOARD_REQUIRE_NODE_SERVERS=1 SWITCHBOARD_REQUIRE_KEYRING=1 $(GO) test -race -timeout 20m $$($(GO) list ./... | grep -v /test/drills)

## drills: fault drills through the app's core and the release binary (kill mid-stream, dead and
## hanging servers, garbage and floods, provider faults, bad imports, no keyring)
drills: build test/node/node_modules/.package-lock.json
	$(TEST_NODE_PATH) SWITCHBOARD_REQUIRE_E2E=1 SWITCHBOARD_REQUIRE_NODE_SERVERS=1 $(GO) test -count=1 -timeout 5m ./test/drills/

## doctor-real: switchboard doctor over real npm servers no other test uses, without a network
doctor-real: build test/node/node_modules/.package-lock.json
	test/doctor/real.sh

## bench: figures against baselines measured in the same run -> test-results/bench.json
bench: build build-dev test-deps
	SWITCHBOARD_REQUIRE_NODE_SERVERS=1 $(GO) run ./test/bench -runs 5 -settle 60s

unit:
	cd frontend && $(NODE_PATH_PREFIX) npx vitest run

## conformance: the MCP conformance suite's client scenarios against the app's own client stack
conformance: test/node/node_modules/.package-lock.json
	GO=$(GO) test/conformance/run.sh

e2e: e2e-window e2e-browser

## e2e-window: the real release binary in a real window under Xvfb (and servers' views in it)
e2e-window: build build/bin/fakeprovider test/node/node_modules/.package-lock.json
	test/e2e/window.sh
	test/e2e/window-views.sh

build/bin/fakeprovider: $(GO_SOURCES)
	$(GO) build -o $@ ./test/fakeprovider

build/bin/taskserver: $(GO_SOURCES)
	$(GO) build -o $@ ./test/taskserver

# A local MCP registry (the registry API over test/registryserver/testdata/servers.json).
build/bin/registryserver: $(GO_SOURCES) test/registryserver/testdata/servers.json
	$(GO) build -o $@ ./test/registryserver

## e2e-browser: the real backend (-tags dev) serving the real frontend to Chromium
e2e-browser: build-dev build/bin/fakeprovider build/bin/taskserver build/bin/registryserver test/node/node_modules/.package-lock.json
	cd frontend && $(NODE_PATH_PREFIX) node e2e/run.mjs

## screenshots: the README's screenshots (docs/screenshot-*.png), taken by the browser end-to-end test
screenshots:
	@SWITCHBOARD_README_SHOTS=1 E2E_ONLY='README screenshots' $(MAKE) --no-print-directory e2e-browser

## fuzz: every fuzz target for FUZZTIME each (make test runs each for a fixed number of inputs)
FUZZTIME ?= 60s
fuzz:
	@GO="$(GO)" FUZZTIME=$(FUZZTIME) scripts/fuzz.sh

fuzz-short:
	@$(MAKE) --no-print-directory fuzz FUZZTIME=2000x

clean:
	rm -rf build/bin test-results frontend/dist/assets frontend/dist/index.html .deps-system .deps-go .deps-test
