GO      ?= go
PKGS    ?= ./...
BIN     := bin

# The version every build carries (diagagent -version, sysDescr, the
# packages) is the tree's own, internal/version/release.go (Semantic
# Versioning 2.0; RELEASE.md): X.Y.Z on a release, with the commit as build
# metadata (+<commit>) between releases (X.Y.Z-dev) or on a modified tree
# (.dirty). The revision is linked in too, since VCS stamping may be off.
RELEASE   := $(shell sed -n 's/^const Release = "\(.*\)"$$/\1/p' internal/version/release.go)
GIT_SHA   := $(shell git rev-parse --short=12 HEAD 2>/dev/null)
GIT_REV   := $(shell git rev-parse HEAD 2>/dev/null)
GIT_DIRTY := $(if $(GIT_SHA),$(shell git diff --quiet HEAD 2>/dev/null || echo .dirty))
GIT_DATE  := $(shell git log -1 --format=%cd --date=format:%Y-%m-%d 2>/dev/null)
VERSION   ?= $(RELEASE)$(if $(GIT_SHA),$(if $(or $(findstring -,$(RELEASE)),$(GIT_DIRTY)),+$(GIT_SHA)$(GIT_DIRTY)))
# Packages sort a prerelease before its release with a tilde (1.1.0~dev
# before 1.1.0), in dpkg and rpm alike.
PKG_VERSION = $(subst -,~,$(VERSION))
LDFLAGS   := -s -w -X github.com/diagagent/diagagent/internal/version.Version=$(VERSION) \
	-X github.com/diagagent/diagagent/internal/version.Date=$(GIT_DATE) \
	$(if $(GIT_REV),-X github.com/diagagent/diagagent/internal/version.Revision=$(GIT_REV)$(if $(GIT_DIRTY),-dirty))
# nfpm builds the Debian package; run at a pinned release, it stays out of go.mod.
NFPM      ?= $(GO) run github.com/goreleaser/nfpm/v2/cmd/nfpm@v2.44.0
DEB_DIR   ?= $(BIN)

.PHONY: all build deb pkg release demo test bench-agentx unit unit-env bench lint tidy compare scenario chaos nemesis versus versus-hold clean

all: build

# The research tools that draw plots (cmd/diagsim, cmd/lanrun) and the
# memberlist member (cmd/swimmember) are modules of their own, so the
# agent's go.mod holds only what the agent uses.
LAB := cmd/diagsim cmd/lanrun cmd/swimmember
LANPKG := github.com/diagagent/diagagent/internal/lan
CMDPKG := github.com/diagagent/diagagent/cmd/diagagent
# The LAN test whose bounds are tightest under load, the lossy member (three
# LANs of 16 agents for three minutes): make test runs it apart from the other LANs.
LANALONE := ^TestLossyMemberLAN$$

build:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags='$(LDFLAGS)' -o $(BIN)/ ./cmd/...
	for m in $(LAB); do CGO_ENABLED=0 $(GO) build -C $$m -trimpath -o $(CURDIR)/$(BIN)/ . || exit 1; done

# deb: the Debian package for amd64 in $(DEB_DIR) (configs/deb): the static
# binary, the hardened unit, the configuration as a conffile, the manual page
# generated from the key table, the MIB where net-snmp looks. See README.
deb:
	$(MAKE) --no-print-directory pkg PKG_FORMAT=deb PKG_ARCH=amd64 PKG_DIR=$(DEB_DIR)

# pkg: one package, PKG_FORMAT deb or rpm, for PKG_ARCH amd64 or arm64, in
# PKG_DIR, from configs/deb/nfpm.yaml (the RPM's scriptlets: configs/rpm).
PKG_FORMAT ?= deb
PKG_ARCH   ?= amd64
PKG_DIR    ?= $(BIN)
PKG_BUILD   = $(PKG_DIR)/pkg-build-$(PKG_FORMAT)-$(PKG_ARCH)
pkg:
	rm -rf $(PKG_BUILD) && mkdir -p $(PKG_BUILD)
	CGO_ENABLED=0 GOOS=linux GOARCH=$(PKG_ARCH) $(GO) build -trimpath -ldflags='$(LDFLAGS)' -o $(PKG_BUILD)/diagagent ./cmd/diagagent
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags='$(LDFLAGS)' -o $(PKG_BUILD)/host/diagagent ./cmd/diagagent
	sed 's|/usr/local/bin/diagagent|/usr/bin/diagagent|g' configs/diagagent.service >$(PKG_BUILD)/diagagent.service
	$(PKG_BUILD)/host/diagagent -man | gzip -9n >$(PKG_BUILD)/diagagent.8.gz
	sed -e 's|$${DEB_VERSION}|$(PKG_VERSION)|' -e 's|$${DEB_BUILD}|$(abspath $(PKG_BUILD))|' -e 's|$${PKG_ARCH}|$(PKG_ARCH)|' \
		configs/deb/nfpm.yaml >$(PKG_BUILD)/nfpm.yaml
	$(NFPM) package -f $(PKG_BUILD)/nfpm.yaml -p $(PKG_FORMAT) -t $(PKG_DIR)/

# release: every artifact of a release in RELEASE_DIR: static binaries for
# RELEASE_TARGETS, .deb and .rpm for amd64 and arm64, and SHA256SUMS; all
# carry $(VERSION) and the date of the last commit. TestRelease runs it.
RELEASE_DIR     ?= $(BIN)/release
RELEASE_TARGETS ?= linux/amd64 linux/arm64 windows/amd64 darwin/arm64 darwin/amd64
release:
	rm -rf $(RELEASE_DIR) && mkdir -p $(RELEASE_DIR)
	for t in $(RELEASE_TARGETS); do \
		os=$${t%/*}; arch=$${t#*/}; ext=; if [ $$os = windows ]; then ext=.exe; fi; \
		CGO_ENABLED=0 GOOS=$$os GOARCH=$$arch $(GO) build -trimpath -ldflags='$(LDFLAGS)' \
			-o $(RELEASE_DIR)/diagagent_$(VERSION)_$${os}_$${arch}$$ext ./cmd/diagagent || exit 1; \
	done
	for a in amd64 arm64; do for f in deb rpm; do \
		$(MAKE) --no-print-directory pkg PKG_FORMAT=$$f PKG_ARCH=$$a PKG_DIR=$(RELEASE_DIR) || exit 1; \
	done; done
	rm -rf $(RELEASE_DIR)/pkg-build-*
	cd $(RELEASE_DIR) && sha256sum diagagent* >SHA256SUMS

# demo: the main job (an 8-node local cluster); see README.
demo: build
	./scripts/demo.sh

# test: installs what the tests drive, then runs every test: the unit tests
# and, under the integration tag, those that drive net-snmp, namespaces,
# real ICMP and Chromium (a missing tool fails them, never skips them).
test:
	./scripts/test-deps.sh
	$(GO) vet -tags integration $(PKGS)
	GOOS=windows GOARCH=amd64 $(GO) vet $(PKGS) # nothing Unix-only in what Windows builds
	GOOS=darwin GOARCH=arm64 $(GO) vet $(PKGS)
	for m in $(LAB); do $(GO) vet -C $$m ./... || exit 1; done
	# cmd/diagagent first among the other packages (its tests take longest), and beside them the
	# lossy member's three LANs (48 agents, about half a core), its output held until both end.
	# Then internal/lan's other LANs alone, admitted by their agents (LAN_AGENTS): beside
	# cmd/diagagent's tests they starved.
	rc=0; all=$$($(GO) list $(PKGS)); lan=$$(echo "$$all" | grep -x $(LANPKG)); mkdir -p $(BIN); \
	if [ -n "$$lan" ]; then ($(GO) test -tags integration -count=1 -parallel 32 -timeout 15m -v -run '$(LANALONE)' $$lan > $(BIN)/lossy.log 2>&1) & lossy=$$!; fi; \
	$(GO) test -tags integration -count=1 -parallel 32 -timeout 20m $$(echo "$$all" | grep -x $(CMDPKG)) $$(echo "$$all" | grep -vx -e $(LANPKG) -e $(CMDPKG)) || rc=1; \
	if [ -n "$$lan" ]; then wait $$lossy || rc=1; grep -v '^=== \|^    --- PASS' $(BIN)/lossy.log; \
		$(GO) test -tags integration -count=1 -parallel 32 -timeout 30m -skip '$(LANALONE)' $$lan || rc=1; fi; exit $$rc
	for m in $(LAB); do $(GO) test -C $$m -count=1 ./... || exit 1; done

# unit: the unit tests alone; they need no root and none of the test tools.
unit:
	$(GO) test -count=1 $(PKGS)
	for m in $(LAB); do $(GO) test -C $$m -count=1 ./... || exit 1; done

# unit-env: the unit tests as an unprivileged user with the test tools hidden (root to set up).
unit-env:
	./scripts/unit-env.sh -count=1

bench:
	$(GO) test -run '^$$' -bench . -benchmem $(PKGS)
	$(GO) test -C cmd/diagsim -run '^$$' -bench . -benchmem ./...

# bench-agentx: GET latency through snmpd and AgentX against the standalone
# agent, interleaved on loopback; writes docs/bench-agentx.md. Root.
bench-agentx:
	./scripts/bench-agentx.sh

# scenario: seed 002's 37-node experiment on a LAN of network namespaces (root).
scenario:
	./scripts/scenario.sh

# nemesis: TestOperatorsNemesisLAN once per seed in NEMESIS_SEEDS, operators
# changing the list for NEMESIS_FOR each while agents are killed and cut off
# (make test runs seed 1); each seed's result line, and the log of
# a failing one, under bin/nemesis. Root.
NEMESIS_SEEDS ?= 1 2 3 4 5 6 7 8 9 10
NEMESIS_FOR   ?= 3m
nemesis:
	mkdir -p $(BIN)/nemesis
	fail=0; for s in $(NEMESIS_SEEDS); do \
		if LAN_NEMESIS_SEED=$$s LAN_NEMESIS_DURATION=$(NEMESIS_FOR) $(GO) test -tags integration -count=1 -timeout 20m \
			-run '^TestOperatorsNemesisLAN$$' -v ./internal/lan >$(BIN)/nemesis/seed-$$s.log 2>&1; then \
			echo "seed $$s: ok: $$(grep -o '[0-9]* changes taken.*members' $(BIN)/nemesis/seed-$$s.log)"; \
		else echo "seed $$s: FAIL ($(BIN)/nemesis/seed-$$s.log)"; fail=1; fi; \
	done; exit $$fail

# chaos: 16 agents, a printer and a station under 1% loss and random faults for
# CHAOS (10m); every invariant is checked (docs/reliability.md). Root.
CHAOS ?= 10m
chaos:
	./scripts/scenario.sh -mode chaos -algorithms vcube -nodes 16 -interval 1s -test.timeout 500ms \
		-test.retries 2 -test.ping_timeout 1s -test.ping_count 1 -chaos $(CHAOS)

# versus: memberlist and diagagent side by side on one LAN, one run per N in
# VERSUS_N; each saves docs/data/versus/n<N>.json and rewrites docs/versus.md's
# tables and plots (about 25 minutes per N). From N = 256 on, the systems
# together starve 2 cores at start-up (docs/versus.md, "N = 256"): each then
# runs alone, one after the other (-versus.apart, about 2 hours), diagagent's
# comparable setting at 4 s, the shortest interval at which it held 256
# alone, with longer waits for start-up and for each event; a system that
# does not start or finish there is named in the tables, and the others
# still run. Their state and logs go to /dev/shm: 256 agents saving at once
# on one shared disk stalled each other's pushes (scripts/scenario.sh,
# DIAGLAN_TMP). Root.
VERSUS_N ?= 16 64 256
VERSUS_FLAGS = -mode versus -algorithms vcube -test.timeout 500ms -test.retries 2 -test.ping_timeout 1s -test.ping_count 1
versus:
	for n in $(VERSUS_N); do \
		large=; tmp=/tmp; if [ $$n -ge 256 ]; then large="-versus.apart -versus.interval 4s -versus.cap 5m -startup 8m"; tmp=/dev/shm; fi; \
		DIAGLAN_TMP=$$tmp ./scripts/scenario.sh $(VERSUS_FLAGS) -nodes $$n $$large \
			-loss 1,5 -soak 5m -versus.out docs -versus.doc || exit 1; \
	done

# versus-hold: whether each system alone holds N members at an interval: a
# 2-minute fault-free window, no other system on the machine, its cost and
# any false alarm. One run per system:N:interval of VERSUS_HOLD (system is
# memberlist or fast, diagagent at memberlist's timing); each log and table
# goes to docs/data/versus/hold/. Root.
VERSUS_HOLD ?= memberlist:128:1s memberlist:256:1s fast:128:1s fast:256:2s fast:256:4s
versus-hold:
	mkdir -p docs/data/versus/hold
	for h in $(VERSUS_HOLD); do \
		set -- $$(echo $$h | tr : ' '); out=docs/data/versus/hold/$$1-n$$2-$$3.md; \
		./scripts/scenario.sh $(VERSUS_FLAGS) -nodes $$2 -versus.kinds steady -versus.systems $$1 \
			-versus.interval $$3 -versus.probe $$3 >$$out 2>&1 || echo "lanrun failed: the system does not hold" >>$$out; \
	done

# compare: regenerates docs/compare.md and its plots from the simulator.
compare:
	$(GO) run -C cmd/diagsim . compare -n 8,16,32,64,128,256,512,1024 -out ../../docs/compare.md -plots ../../docs

lint:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); exit 1; }
	$(GO) vet $(PKGS)
	$(GO) vet -tags integration $(PKGS)
	for m in $(LAB); do $(GO) vet -C $$m ./... || exit 1; done

tidy:
	$(GO) mod tidy
	for m in $(LAB); do $(GO) mod tidy -C $$m || exit 1; done
	git diff --exit-code go.mod go.sum $(addsuffix /go.mod,$(LAB)) $(addsuffix /go.sum,$(LAB))

clean:
	rm -rf $(BIN)
