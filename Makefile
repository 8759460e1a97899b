# journalship — see README.md. Two commands matter on a fresh machine:
#   make run    build everything, start a local Loki, ship a sample, show what landed
#   make test   everything CI runs
SHELL := /bin/bash
GO    ?= go
BIN   := $(CURDIR)/bin
FLBGO  = $(shell $(GO) list -m -f '{{.Dir}}' github.com/fluent/fluent-bit-go)
GOSRC := $(shell find . -name '*.go' -not -path './tools/*' -not -path './bin/*') go.mod go.sum

export JOURNALSHIP_PLUGIN  := $(BIN)/out_journalship.so
export JOURNALSHIP_FLBHOST := $(BIN)/flbhost
export JOURNALSHIP_LOKI    := $(BIN)/loki

.PHONY: all build deps loki ccusage test fuzz fuzz-targets bench run vet clean

all: build

# Debian packages the build and tests need: a C compiler and libc headers
# for the cgo plugin and the C host, valgrind to check the C host and the
# cgo layer for memory errors, PostgreSQL for the retention agent's job-status
# source (started by its tests in a temp dir). Installed only when missing.
deps:
	@missing=""; for p in gcc libc6-dev valgrind postgresql prometheus; do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then apt-get update -qq && apt-get install -y -qq $$missing; fi
	$(GO) mod download

build: deps $(BIN)/out_journalship.so $(BIN)/journalship $(BIN)/flbhost

$(BIN)/out_journalship.so: $(GOSRC)
	CGO_ENABLED=1 $(GO) build -buildmode=c-shared -o $@ ./plugin

$(BIN)/journalship: $(GOSRC)
	$(GO) build -o $@ ./cmd/journalship

$(BIN)/flbhost: tools/flbhost/flbhost.c
	@mkdir -p $(BIN)
	gcc -O1 -g -Wall -Werror -pthread -I$(FLBGO)/output -o $@ $< -ldl

# ccusage, the community's cost tool for Claude Code transcripts, pinned by
# tools/ccusage/package-lock.json: a test compares journalship's token and
# cost sums with its figures (internal/sample/claudecode). Needs node and
# npm (Debian's nodejs and npm packages when missing). `npm install` with
# the lock, not `npm ci`: ccusage 20.0.24 names native packages for other
# platforms that were never published at that version, which npm ci takes
# for a lock out of sync; --no-save leaves the lock as committed.
CCUSAGE := tools/ccusage/node_modules/.bin/ccusage
ccusage: $(CCUSAGE)
$(CCUSAGE): tools/ccusage/package.json tools/ccusage/package-lock.json
	@command -v npm >/dev/null || { apt-get update -qq && apt-get install -y -qq nodejs npm; }
	npm install --prefix tools/ccusage --no-audit --no-fund --no-save --loglevel=error
	@touch $@

# Loki v3.7.8 built from the Go module proxy (about 8 minutes cold), cached.
loki: $(BIN)/loki
$(BIN)/loki: tools/loki/go.mod tools/loki/go.sum
	@echo "building Loki v3.7.8 from the Go module proxy into bin/loki (about 8 minutes the first time, cached after)"
	@tools/make/heartbeat.sh "Loki build" 'cd tools/loki && $(GO) build -o $@ github.com/grafana/loki/v3/cmd/loki'
	@touch $@

vet:
	$(GO) vet ./...

# Every step runs even when an earlier one failed (tools/make/steps.sh), with
# a progress line every minute while a step is silent, and a summary of
# each step's result at the end; make test fails if any step failed.
RACE_PKGS := ./chunk ./integrity ./pipeline ./output ./ledger ./loki
test: build loki ccusage
	@tools/make/steps.sh \
		vet   '$(GO) vet ./...' \
		unit  '$(GO) test -count=1 -timeout 20m ./...' \
		race  '$(GO) test -count=1 -race -timeout 20m $(RACE_PKGS)' \
		fuzz  '$(MAKE) --no-print-directory fuzz'

# Every fuzz target of the module (found with go test -list, so a new one
# runs without being listed here) for a bounded number of runs; findings
# are saved under the package's testdata/fuzz and fail the run. Every
# target runs even when an earlier one found something. The budgets are
# run counts (about 10 s each on this project's 2-core VM), not
# durations: with a duration, Go 1.26's fuzz coordinator can report
# "context deadline exceeded" as a failure when the time runs out while a
# worker is busy (golang/go#75804, fixed in Go 1.27), a flake on any
# loaded machine. FUZZ_BUDGET is every target's, except the slower ones
# in FUZZ_SLOW (pkg:Fuzz:runs); FUZZTIME=30s (or 1000x) overrides all.
FUZZTIME ?=
FUZZ_BUDGET := 100000x
FUZZ_SLOW := output:FuzzFlush:2000x format/orbitmesh:FuzzSnapshot:10000x format/gosession:FuzzMetadata:50000x \
	format/gosession:FuzzManifest:50000x redact:FuzzRedact:50000x
MODULE = $(shell $(GO) list -m)
# A package that does not build lists nothing: fuzz-targets then fails,
# never leaves its targets out. (A package whose tests cannot start, e2e
# before make build, lists nothing either; it has no fuzz target, and
# TestEveryFuzzTargetRuns checks the list against the sources.)
fuzz-targets:
	@$(GO) test -list '^Fuzz' ./... | awk -v mod='$(MODULE)/' '/^Fuzz/ { fns = fns " " $$1; next } \
		$$1 == "ok" { p = $$2; if (index(p, mod) == 1) p = substr(p, length(mod) + 1); \
			n = split(fns, f, " "); for (i = 1; i <= n; i++) print p ":" f[i] } \
		/^FAIL.*\[(build|setup) failed\]/ { broken = 1 } { fns = "" } END { exit broken }'
fuzz:
	@targets=$$($(MAKE) --no-print-directory -s fuzz-targets) || { echo "make fuzz-targets failed"; exit 1; }; \
	if [ -z "$$targets" ]; then echo "no fuzz target found"; exit 1; fi; \
	failed=""; for t in $$targets; do pkg=$${t%%:*}; fn=$${t#*:}; budget=$(FUZZ_BUDGET); \
		for s in $(FUZZ_SLOW); do case $$s in "$$t":*) budget=$${s##*:};; esac; done; \
		budget=$${FUZZTIME:-$$budget}; echo "fuzz $$pkg $$fn ($$budget)"; \
		$(GO) test -run=NONE -fuzz="^$$fn\$$" -fuzztime=$$budget -fuzzminimizetime=2s ./$$pkg || failed="$$failed $$pkg:$$fn"; done; \
	if [ -n "$$failed" ]; then echo "fuzz targets that failed:$$failed"; exit 1; fi

bench: build
	$(GO) test -run=NONE -bench=. -benchmem -benchtime=2s -cpu=1 ./chunk ./integrity ./format/... ./loki ./pipeline ./audit ./ledger ./redact
	$(GO) test -run=NONE -bench=BenchmarkPlugin -benchtime=3x ./e2e

run: build loki
	$(BIN)/journalship demo

clean:
	rm -rf $(BIN)
