GO      ?= go
PKGS    ?= ./...
BIN     := bin

.PHONY: all build demo test bench lint tidy compare scenario clean

all: build

build:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags='-s -w' -o $(BIN)/ ./cmd/...

# demo: the main job (an 8-node local cluster); see README.
demo: build
	./scripts/demo.sh

# test: installs what the tests drive, then runs every test.
test:
	./scripts/test-deps.sh
	$(GO) vet $(PKGS)
	$(GO) test -count=1 -timeout 20m $(PKGS)

bench:
	$(GO) test -run '^$$' -bench . -benchmem $(PKGS)

# scenario: seed 002's 37-node experiment on a LAN of network namespaces (root).
scenario:
	./scripts/scenario.sh

# compare: regenerates docs/compare.md and its plots from the simulator.
compare:
	$(GO) run ./cmd/diagsim compare -n 8,16,32,64,128,256,512,1024 -out docs/compare.md -plots docs

lint:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); exit 1; }
	$(GO) vet $(PKGS)

tidy:
	$(GO) mod tidy
	git diff --exit-code go.mod go.sum

clean:
	rm -rf $(BIN)
