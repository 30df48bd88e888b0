# bubble-kiosk: build, test and run. `make test` and `make run` work on a fresh Debian 12
# machine as root: they install the Debian packages they need, once.

SWIFT       ?= swift
DEBUG_BIN   := .build/debug/bubble-kiosk
RELEASE_BIN := .build/release/bubble-kiosk
# Debian packages: C libraries behind the system-library targets, the font, and the tools the
# end-to-end tests use (node_exporter scrapes the kiosk's metrics file; the test starts its own
# on a loopback port).
DEB_PACKAGES := pkg-config libcairo2-dev libdrm-dev libevdev-dev libsystemd-dev libsqlite3-dev fonts-dejavu-core \
                evemu-tools qemu-system-x86 busybox-static python3 prometheus-node-exporter
DEPS_STAMP  := build/.deps-installed

.PHONY: all deps build release test unit-test vm-test run bench clean

all: build

build/:
	mkdir -p build

# Installs only what is missing; the stamp keeps later runs from asking dpkg again.
$(DEPS_STAMP): | build/
	@missing=$$(for p in $(DEB_PACKAGES); do dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q 'ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "installing:" $$missing; \
		if [ "$$(id -u)" != 0 ]; then echo "run as root, or: sudo apt-get install $$missing" >&2; exit 1; fi; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing; \
	fi
	@touch $@

deps: $(DEPS_STAMP)

build: deps
	$(SWIFT) build

# The kiosk binary carries the Swift runtime inside (boards have no Swift toolchain).
release: deps
	$(SWIFT) build -c release --static-swift-stdlib

# Unit and command-line tests run on the debug build (tests find the binary beside themselves).
unit-test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

# The real kernel under QEMU: the harness itself, the DRM display, evdev input with hotplug,
# and the end-to-end game (DRM + evdev + all four rotations). All use the release binary.
vm-test: release
	bash Tests/vm/selftest.sh
	bash Tests/vm/display-test.sh --binary $(RELEASE_BIN)
	bash Tests/vm/input-test.sh --binary $(RELEASE_BIN)
	bash Tests/vm/e2e-test.sh --binary $(RELEASE_BIN)

test: unit-test vm-test

# The kiosk in a virtual framebuffer, attract mode: the screen goes to build/screen.png every
# second, a status line to the terminal. Ctrl-C stops it.
run: release | build/
	$(RELEASE_BIN) run --display virtual:1280x800 --attract --status --screenshot-every 1 build/screen.png --state-dir build/state

# Render benchmark on the release build: prints the figures (targets in the README).
bench: release
	$(RELEASE_BIN) bench

clean:
	rm -rf .build build
