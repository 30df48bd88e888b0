# bubble-kiosk: build, test and run. `make test` and `make run` work on a fresh Debian 12
# machine as root: they install the Debian packages they need, once.

SWIFT       ?= swift
DEBUG_BIN   := .build/debug/bubble-kiosk
RELEASE_BIN := .build/release/bubble-kiosk
# The developer's window (SDL2): never installed, never in the .deb; Swift runtime linked dynamically.
DESKTOP_BIN := .build/release/bubble-kiosk-desktop
# Debian packages: C libraries behind the system-library targets (pixman: the renderer's copies
# and fills, also in the arm64 root as cairo's dependency; OpenSSL: why a broker's certificate
# was refused; Pango: text shaping and font fallback), the fonts (DejaVu, and Noto for the
# scripts and CJK characters DejaVu lacks, which the text goldens show), and the tools the
# end-to-end tests use (node_exporter scrapes the kiosk's metrics file; the test starts its own
# on a loopback port; the MQTT tests start their own mosquitto broker and use mosquitto_pub and
# mosquitto_sub; valgrind counts `make bench-instructions`), and the packaging tools (debhelper and
# dpkg-dev build the packages from debian/, rsync copies the source for them; lintian, systemd-analyze,
# debootstrap for the boot test's Debian root), and the desktop window's SDL2 with the X server,
# mouse driver and screenshot tools its test uses; qemu-user-static and qemu-system-arm run the
# arm64 build (same answers under qemu-user, maintainer scripts in the arm64 root, the arm64 boot),
# and device-tree-compiler (dtc) adds the arm64 boot's backlight to the emulated board's device tree;
# python3-venv makes the Home Assistant test's virtual environment; v4l-utils has cec-ctl and
# cec-follower, the TV of the CEC test; apt-utils (apt-ftparchive) and gnupg make `make repo`'s
# signed apt repository; gettext's msgfmt compiles the screens' translations (po/*.po).
DEB_PACKAGES := pkg-config libcairo2-dev libpixman-1-dev libdrm-dev libevdev-dev libsystemd-dev libudev-dev libsqlite3-dev libasound2-dev \
                libsndfile1-dev libmosquitto-dev libssl-dev libpango1.0-dev fonts-dejavu-core fonts-noto-core fonts-noto-cjk evemu-tools alsa-utils qemu-system-x86 busybox-static python3 v4l-utils \
                prometheus-node-exporter mosquitto mosquitto-clients valgrind \
                systemd dpkg-dev debhelper rsync binutils lintian debootstrap libsdl2-dev xvfb xdotool x11-apps imagemagick \
                qemu-user-static qemu-system-arm device-tree-compiler python3-venv apt-utils gnupg gettext
DEPS_STAMP  := build/.deps-installed

# Installing: `make install [PREFIX=/usr/local] [DESTDIR=...]`. The unit goes where systemd
# looks for PREFIX's units; the config always goes to /etc/bubble-kiosk, where the kiosk reads it.
VERSION     := $(shell cat VERSION)
PREFIX      ?= /usr/local
DESTDIR     ?=
BINDIR      := $(PREFIX)/bin
MAN1DIR     := $(PREFIX)/share/man/man1
MAN5DIR     := $(PREFIX)/share/man/man5
# The screens' translations, po/LANG.po compiled by msgfmt: installed where gettext looks
# (/usr/share/locale for PREFIX=/usr, which the kiosk also finds as ../share/locale beside
# its binary), and for the build tree in .build/locale (two up from .build/TRIPLE/release).
LANGUAGES   := $(basename $(notdir $(wildcard po/*.po)))
LOCALEDIR   := $(PREFIX)/share/locale
LOCALE_BUILD_DIR := .build/locale
MO_NAME     := bubble-kiosk.mo
# udev reads rules from /usr/local/lib/udev/rules.d as well. For PREFIX=/usr, where this system's
# systemd keeps its units (systemd.pc): /lib on Debian 12, /usr/lib on Debian 13, where /lib is
# only a link; udev's rules go beside them.
ifeq ($(PREFIX),/usr)
UNITDIR     := $(or $(shell pkg-config --variable=systemdsystemunitdir systemd 2>/dev/null),/lib/systemd/system)
SYSUSERSDIR := /usr/lib/sysusers.d
UDEVRULESDIR := $(patsubst %/systemd/system,%/udev/rules.d,$(UNITDIR))
else
UNITDIR     := $(PREFIX)/lib/systemd/system
SYSUSERSDIR := $(PREFIX)/lib/sysusers.d
UDEVRULESDIR := $(PREFIX)/lib/udev/rules.d
endif
BACKLIGHT_RULES := 60-bubble-kiosk-backlight.rules
CONFDIR     := /etc/bubble-kiosk
# unattended-upgrades' drop-in that allows the kiosk's own repository (`make repo`).
APTCONFDIR  := /etc/apt/apt.conf.d
UNATTENDED_CONF := 51bubble-kiosk-unattended-upgrades
HOST_ARCH   := $(shell dpkg --print-architecture)
# What install-files installs and strips, and runs to make the sounds (debian/rules hands in its
# build, its strip and, when cross-building, an emulator to run it with as KIOSK_EXEC).
KIOSK_BIN   ?= $(RELEASE_BIN)
KIOSK_EXEC  ?=
STRIP       ?= strip

# arm64 boards (Raspberry Pi OS on trixie, Debian 13): cross-built with Debian 13's Swift 6.0.3
# in a Debian 13 root made from Debian's archive (packaging/arm64/toolchain.sh, kept in
# /var/cache/bubble-kiosk-arm64 outside the checkout). Its own scratch folder: never mixed with
# this machine's .build.
IN_TOOLCHAIN  := packaging/arm64/in-toolchain.sh
ARM64_SCRATCH := .build-arm64
ARM64_BIN     := $(ARM64_SCRATCH)/aarch64-unknown-linux-gnu/release/bubble-kiosk
# What `make deb-arm64` passes to debian/rules for the cross build (the SDK: toolchain.sh).
SWIFT_SDK_FLAGS := --swift-sdks-path /opt/swift-sdks --swift-sdk aarch64-debian13

.PHONY: all deps build release desktop locale po test unit-test desktop-test fleet-test ha-test fleet-bench vm-test vm-test-sound vm-test-hotplug vm-test-cec vm-test-systemd package-test run bench bench-instructions \
        sounds install install-files uninstall deb deb-lockdown deb-source clean arm64-toolchain release-arm64 deb-arm64 arm64-test arm64-prepare \
        repo repo-test vm-test-upgrade

all: build

build/:
	mkdir -p build

# Installs only what is missing; the stamp keeps later runs from asking dpkg again (until the
# Makefile, and so perhaps the list, changes).
$(DEPS_STAMP): Makefile | build/
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

# The kiosk binary carries the Swift runtime inside (boards have no Swift toolchain). What keeps
# it small (the lean settings and link) is in Package.swift, so every build of it gets them.
release: deps
	$(SWIFT) build -c release --static-swift-stdlib --product bubble-kiosk

# The translations for a kiosk run from the build tree (`make run`); `make po` brings the
# template and every po/LANG.po up to date with the messages in the code (UIMessage).
locale: deps
	@for l in $(LANGUAGES); do \
		mkdir -p $(LOCALE_BUILD_DIR)/$$l/LC_MESSAGES && \
		msgfmt --check -o $(LOCALE_BUILD_DIR)/$$l/LC_MESSAGES/$(MO_NAME) po/$$l.po || exit 1; \
	done
po: build
	$(DEBUG_BIN) check-config --pot > po/bubble-kiosk.pot
	for l in $(LANGUAGES); do msgmerge --quiet --update --backup=none po/$$l.po po/bubble-kiosk.pot || exit 1; done

# bubble-kiosk-desktop, for `make run` on a desktop: the same commands plus a window (SDL2).
desktop: deps
	$(SWIFT) build -c release --product bubble-kiosk-desktop

# Unit and command-line tests run on the debug build (tests find the binary beside themselves).
unit-test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

# The real kernel under QEMU: the harness itself, the DRM display, evdev input with hotplug,
# the end-to-end game (DRM + evdev + all four rotations, VT switches, display sleep), screens
# that come and go (forced off and on, two virtio-gpu heads mirrored), sound on snd-aloop, HDMI-CEC
# with a TV on vivid's emulated adapters. All use the release binary; `make vm-test-sound`,
# `make vm-test-hotplug` and `make vm-test-cec` run one test alone.
vm-test: release
	bash Tests/vm/selftest.sh
	bash Tests/vm/display-test.sh --binary $(RELEASE_BIN)
	bash Tests/vm/hotplug-test.sh --binary $(RELEASE_BIN)
	bash Tests/vm/input-test.sh --binary $(RELEASE_BIN)
	bash Tests/vm/e2e-test.sh --binary $(RELEASE_BIN)
	bash Tests/vm/sound-test.sh --binary $(RELEASE_BIN)
	bash Tests/vm/cec-test.sh --binary $(RELEASE_BIN)

vm-test-sound: release
	bash Tests/vm/sound-test.sh --binary $(RELEASE_BIN)

vm-test-hotplug: release
	bash Tests/vm/hotplug-test.sh --binary $(RELEASE_BIN)

vm-test-cec: release
	bash Tests/vm/cec-test.sh --binary $(RELEASE_BIN)

# The package on a real systemd: a debootstrap'd Debian root (cached) with the .deb installed,
# booted under QEMU; the unit's restarts, watchdog, reload, state and config errors, MQTT from
# inside the sandbox with the package's drop-in (a broker in the guest); bubble-kiosk-lockdown
# installed and a keyboard typing every key of the keys table (doc/installing.md); then keys-table.sh: four
# boots without the lockdown that measure what those keys do (again only when what decides
# them changed since a run that passed: KEYS_TABLE_FORCE=1 measures them anyway); then the
# upgrade test (vm-test-upgrade).
vm-test-systemd: deb
	bash Tests/vm/systemd-test.sh --deb build/bubble-kiosk_$(VERSION)-*_$(HOST_ARCH).deb \
		--lockdown build/bubble-kiosk-lockdown_$(VERSION)-*_all.deb
	bash Tests/vm/keys-table.sh --deb build/bubble-kiosk_$(VERSION)-*_$(HOST_ARCH).deb
	bash Tests/vm/systemd-test.sh --upgrade --deb build/bubble-kiosk_$(VERSION)-*_$(HOST_ARCH).deb

# An update from the repository on the booted Debian 12 root: version N from the repository
# served in the guest, a round in play, N+1 published and unattended-upgrade run; the round goes
# on, the kiosk restarts into N+1 at the start screen with scores and edited config kept; then a
# downgrade to N. Prints each phase's time. Also the last part of vm-test-systemd.
vm-test-upgrade: deb
	bash Tests/vm/systemd-test.sh --upgrade --deb build/bubble-kiosk_$(VERSION)-*_$(HOST_ARCH).deb

# MQTT fleet control against a real broker: mosquitto started by the test on loopback ports
# (plain, TLS with a test CA, a password file), the release binary on a virtual display, the
# operator's side with mosquitto_sub/mosquitto_pub. About a minute, no VM.
fleet-test: release
	bash Tests/fleet/mqtt-test.sh $(RELEASE_BIN)

# A real Home Assistant (2024.3.3, every Python package pinned in Tests/fleet/ha-requirements.txt,
# a virtual environment made once in /var/cache/bubble-kiosk-ha) against the test's own
# mosquitto and two kiosks: entities and devices as it shows them, commands through its REST
# API, availability, its restart, its log free of warnings about the kiosks. About 25 s with the
# environment there, a minute or two to make it. No VM.
ha-test: release
	bash Tests/fleet/ha-test.sh $(RELEASE_BIN)

# Not part of `make test`: FLEET_BENCH_KIOSKS kiosks on small virtual displays against one
# mosquitto: their memory, CPU and traffic idle and in the demo, and a broker restart (how long
# until all are back, reconnects per second). Prints figures, also in build/fleet-bench.json.
# About 6 minutes.
FLEET_BENCH_KIOSKS ?= 100
fleet-bench: release | build/
	bash Tests/fleet/fleet-bench.sh $(RELEASE_BIN) --kiosks $(FLEET_BENCH_KIOSKS) --json build/fleet-bench.json

# make install into a scratch DESTDIR and back out; the .deb's contents, Depends, maintainer
# scripts and lintian; the lockdown package's contents and lintian, and its install and purge in a
# copy of the boot test's Debian 12 root (the root made for the kiosk package's Depends, so both
# share one cached root); the source package's lintian, fields and contents.
package-test: deb deb-source
	bash Tests/package/install-test.sh
	bash Tests/package/deb-test.sh build/bubble-kiosk_$(VERSION)-*_$(HOST_ARCH).deb
	bash Tests/package/lockdown-deb-test.sh build/bubble-kiosk-lockdown_$(VERSION)-*_all.deb \
		build/bubble-kiosk_$(VERSION)-*_$(HOST_ARCH).deb
	bash Tests/package/source-test.sh build/bubble-kiosk_$(VERSION)-*.dsc

# The desktop window under a real X server (Xvfb), played with xdotool; ldd keeps SDL out of
# the kiosk binary. Debug build, like the unit tests.
desktop-test: deps
	$(SWIFT) build
	bash Tests/desktop/xvfb-test.sh --bin-dir .build/debug

test: arm64-prepare unit-test desktop-test fleet-test ha-test vm-test package-test vm-test-systemd arm64-test repo-test

# The arm64 tests' caches (build environment, kernel, Debian 13 roots), made in the background
# while the other tests run (Tests/arm64/prepare.sh says why); arm64-test prints its log.
arm64-prepare: deps | build/
	@echo "arm64: making the arm64 tests' caches in the background (log: build/arm64-prepare.log)"
	@bash Tests/arm64/prepare.sh < /dev/null > build/arm64-prepare.log 2>&1 &

# On a desktop (DISPLAY or WAYLAND_DISPLAY set): the game in a window, attract mode, played
# with the mouse. Headless: the kiosk in a virtual framebuffer, attract mode: the screen goes to
# build/screen.png every second. A status line goes to the terminal; Ctrl-C stops it.
run: deps locale | build/
	@if [ -n "$$DISPLAY$$WAYLAND_DISPLAY" ]; then \
		$(MAKE) --no-print-directory desktop && \
		echo "$(DESKTOP_BIN) run --attract --status --state-dir build/state" && \
		$(DESKTOP_BIN) run --attract --status --state-dir build/state; \
	else \
		$(MAKE) --no-print-directory release && \
		echo "$(RELEASE_BIN) run --display virtual:1280x800 --attract --status --screenshot-every 1 build/screen.png --state-dir build/state" && \
		$(RELEASE_BIN) run --display virtual:1280x800 --attract --status --screenshot-every 1 build/screen.png --state-dir build/state; \
	fi

# The default sounds, synthesised by the kiosk itself (SoundSynth): build/sounds/*.wav, 16-bit
# mono 48 kHz. They belong in $(SOUNDS_INSTALL_DIR), where `[sounds] ... = auto` looks first
# (without them the kiosk makes the same sounds in memory).
SOUNDS_INSTALL_DIR := /usr/share/bubble-kiosk/sounds
SOUND_FILES := pop.wav swipe.wav round_start.wav round_over.wav high_score.wav
# Unit drop-ins shipped for the operator to install, none active as installed: mqtt.conf gives
# the unit the network MQTT fleet control needs.
SYSTEMD_EXTRAS_DIR := $(PREFIX)/share/bubble-kiosk/systemd
sounds: build | build/
	mkdir -p build/sounds
	$(DEBUG_BIN) generate-sounds build/sounds

# Render benchmark on the release build: prints the figures (targets in doc/benchmarks.md), then the
# render cases again on the small panels kiosks use, where fixed per-frame costs show most, on a
# 4K screen and with 400 bubbles, each with its own targets.
BENCH_RENDER_CASES ?= "--size 1024x600" "--size 800x480" "--size 3840x2160" "--bubbles 400"
bench: release
	$(RELEASE_BIN) bench
	@for case in $(BENCH_RENDER_CASES); do $(RELEASE_BIN) bench --render-only $$case || exit 1; done

# Instructions per frame of each render case, counted by callgrind: exact and repeatable on a
# loaded machine, so a regression shows as a number. Runs `bench --render-only` under valgrind
# on a copy stripped of its DWARF (valgrind 3.19 cannot read DWARF 5) that keeps the symbols
# the cases are found by (Benchmark.fullRedraw and its neighbours). valgrind comes with the
# other Debian packages (deps).
BENCH_INSTR_SIZES  ?= 1920x1080 1024x600 800x480
BENCH_INSTR_FRAMES ?= 30
bench-instructions: release | build/
	strip -g -o build/bubble-kiosk.callgrind $(RELEASE_BIN)
	@printf '%-10s %14s %14s %14s %14s %14s\n' size "full redraw" animated idle memcpy "plain compos."
	@for size in $(BENCH_INSTR_SIZES); do \
		out=build/callgrind.bench.$$size; \
		valgrind --tool=callgrind --callgrind-out-file=$$out build/bubble-kiosk.callgrind \
			bench --render-only --size $$size --frames $(BENCH_INSTR_FRAMES) > /dev/null 2> $$out.log \
			|| { cat $$out.log >&2; exit 1; }; \
		callgrind_annotate --inclusive=yes --threshold=100 $$out 2> /dev/null | awk -v size=$$size -v n=$(BENCH_INSTR_FRAMES) ' \
			function count(s) { gsub(",", "", s); return s / n } \
			/9BenchmarkV10fullRedraw/ { f = count($$1) } /9BenchmarkV13animatedFrame/ { a = count($$1) } \
			/9BenchmarkV9idleFrame/ { i = count($$1) } /9BenchmarkV11memcpyFrame/ { m = count($$1) } \
			/9BenchmarkV14plainComposite/ { p = count($$1) } \
			END { printf "%-10s %14d %14d %14d %14d %14d\n", size, f, a, i, m, p }'; \
	done
	@echo "(instructions per frame, $(BENCH_INSTR_FRAMES) frames a case; callgrind output in build/callgrind.bench.*)"

# The binary (stripped), the unit with ExecStart= at BINDIR, the sysusers file, the udev rule
# for the backlight, the man pages (the command's, and the config file's generated from the key
# table: doc/bubble-kiosk.conf.5), the MQTT drop-in (in SYSTEMD_EXTRAS_DIR, not active: the
# operator copies it to /etc/systemd/system/bubble-kiosk.service.d/), unattended-upgrades' drop-in
# for the kiosk's repository (inert without unattended-upgrades and the repository's source), and
# the commented default config, which is never overwritten: an edited one stays.
# (install-files installs the release binary as it is, without asking SwiftPM again.)
install: release
	@$(MAKE) --no-print-directory install-files

install-files:
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(UNITDIR) $(DESTDIR)$(SYSUSERSDIR) $(DESTDIR)$(MAN1DIR) $(DESTDIR)$(MAN5DIR) \
		$(DESTDIR)$(CONFDIR) $(DESTDIR)$(CONFDIR)/kiosk.conf.d $(DESTDIR)$(UDEVRULESDIR)
	install -m 755 $(KIOSK_BIN) $(DESTDIR)$(BINDIR)/bubble-kiosk
	$(STRIP) --strip-unneeded --remove-section=.comment --remove-section=.note $(DESTDIR)$(BINDIR)/bubble-kiosk
	sed 's|^ExecStart=/usr/bin/bubble-kiosk |ExecStart=$(BINDIR)/bubble-kiosk |' systemd/bubble-kiosk.service \
		> $(DESTDIR)$(UNITDIR)/bubble-kiosk.service
	chmod 644 $(DESTDIR)$(UNITDIR)/bubble-kiosk.service
	install -m 644 systemd/bubble-kiosk-retry.timer systemd/bubble-kiosk-retry.service $(DESTDIR)$(UNITDIR)/
	install -m 644 systemd/bubble-kiosk.sysusers $(DESTDIR)$(SYSUSERSDIR)/bubble-kiosk.conf
	install -m 644 systemd/$(BACKLIGHT_RULES) $(DESTDIR)$(UDEVRULESDIR)/$(BACKLIGHT_RULES)
	install -d $(DESTDIR)$(SOUNDS_INSTALL_DIR)
	$(KIOSK_EXEC) $(KIOSK_BIN) generate-sounds $(DESTDIR)$(SOUNDS_INSTALL_DIR) > /dev/null
	chmod 644 $(DESTDIR)$(SOUNDS_INSTALL_DIR)/*.wav
	install -d $(DESTDIR)$(SYSTEMD_EXTRAS_DIR)
	install -m 644 systemd/mqtt.conf $(DESTDIR)$(SYSTEMD_EXTRAS_DIR)/mqtt.conf
	install -d $(DESTDIR)$(APTCONFDIR)
	install -m 644 packaging/unattended-upgrades.conf $(DESTDIR)$(APTCONFDIR)/$(UNATTENDED_CONF)
	for l in $(LANGUAGES); do \
		install -d $(DESTDIR)$(LOCALEDIR)/$$l/LC_MESSAGES && \
		msgfmt --check -o $(DESTDIR)$(LOCALEDIR)/$$l/LC_MESSAGES/$(MO_NAME) po/$$l.po && \
		chmod 644 $(DESTDIR)$(LOCALEDIR)/$$l/LC_MESSAGES/$(MO_NAME) || exit 1; \
	done
	sed 's|@VERSION@|$(VERSION)|' doc/bubble-kiosk.1 | gzip -9n > $(DESTDIR)$(MAN1DIR)/bubble-kiosk.1.gz
	chmod 644 $(DESTDIR)$(MAN1DIR)/bubble-kiosk.1.gz
	sed 's|@VERSION@|$(VERSION)|' doc/bubble-kiosk.conf.5 | gzip -9n > $(DESTDIR)$(MAN5DIR)/bubble-kiosk.conf.5.gz
	chmod 644 $(DESTDIR)$(MAN5DIR)/bubble-kiosk.conf.5.gz
	@if [ -e $(DESTDIR)$(CONFDIR)/kiosk.conf ]; then \
		echo "keeping $(DESTDIR)$(CONFDIR)/kiosk.conf"; \
	else \
		install -m 644 systemd/kiosk.conf.example $(DESTDIR)$(CONFDIR)/kiosk.conf; \
	fi
	@if [ -z "$(DESTDIR)" ]; then \
		systemd-sysusers $(SYSUSERSDIR)/bubble-kiosk.conf; \
		if [ -d /run/udev ]; then udevadm control --reload && udevadm trigger -s backlight -c add || true; fi; \
		if [ -d /run/systemd/system ]; then systemctl daemon-reload; fi; \
		echo "installed; start it with: systemctl enable --now bubble-kiosk"; \
	fi

# Removes what install installed. The config only when it is unchanged (an edited one is the
# administrator's); the user and /var/lib/bubble-kiosk (scores) stay.
uninstall:
	@if [ -z "$(DESTDIR)" ] && [ -d /run/systemd/system ]; then \
		systemctl disable --now bubble-kiosk.service 2>/dev/null || true; \
	fi
	rm -f $(DESTDIR)$(BINDIR)/bubble-kiosk $(DESTDIR)$(UNITDIR)/bubble-kiosk.service \
		$(DESTDIR)$(UNITDIR)/bubble-kiosk-retry.timer $(DESTDIR)$(UNITDIR)/bubble-kiosk-retry.service \
		$(DESTDIR)$(SYSUSERSDIR)/bubble-kiosk.conf $(DESTDIR)$(MAN1DIR)/bubble-kiosk.1.gz \
		$(DESTDIR)$(MAN5DIR)/bubble-kiosk.conf.5.gz \
		$(DESTDIR)$(UDEVRULESDIR)/$(BACKLIGHT_RULES)
	rm -f $(DESTDIR)$(SYSTEMD_EXTRAS_DIR)/mqtt.conf $(DESTDIR)$(APTCONFDIR)/$(UNATTENDED_CONF) \
		$(foreach l,$(LANGUAGES),$(DESTDIR)$(LOCALEDIR)/$(l)/LC_MESSAGES/$(MO_NAME))
	-rmdir $(DESTDIR)$(SYSTEMD_EXTRAS_DIR) $(DESTDIR)$(dir $(SYSTEMD_EXTRAS_DIR:%/=%)) 2>/dev/null
	rm -f $(addprefix $(DESTDIR)$(SOUNDS_INSTALL_DIR)/,$(SOUND_FILES))
	-rmdir $(DESTDIR)$(SOUNDS_INSTALL_DIR) $(DESTDIR)$(dir $(SOUNDS_INSTALL_DIR:%/=%)) 2>/dev/null
	@if cmp -s $(DESTDIR)$(CONFDIR)/kiosk.conf systemd/kiosk.conf.example; then \
		rm -f $(DESTDIR)$(CONFDIR)/kiosk.conf; \
	elif [ -e $(DESTDIR)$(CONFDIR)/kiosk.conf ]; then \
		echo "leaving $(DESTDIR)$(CONFDIR)/kiosk.conf: it was edited"; \
	fi
	-rmdir $(DESTDIR)$(CONFDIR)/kiosk.conf.d $(DESTDIR)$(CONFDIR) 2>/dev/null
	@if [ -z "$(DESTDIR)" ]; then \
		if [ -d /run/systemd/system ]; then systemctl daemon-reload; fi; \
		echo "left in place: the user bubble-kiosk and /var/lib/bubble-kiosk"; \
	fi

# The packages come from debian/ (debhelper) with dpkg-buildpackage, which writes them beside the
# source tree: it runs on a copy of the checkout in build/deb*/bubble-kiosk (kept with its .build
# between runs, so SwiftPM builds only what changed; `make clean` removes it), and the packages
# are copied to build/. -d: Debian 12 has no swiftlang package, the Swift of Build-Depends (this
# machine's Swift comes from swift.org, the arm64 build's from the toolchain root).
# (MAKEFLAGS is cleared: this make's command-line variables are not debian/rules'.)
DEB_COPY_EXCLUDES := --exclude=/.build --exclude=/.build-arm64 --exclude=/build --exclude=/.git --exclude=/.swiftpm
deb_copy = mkdir -p $(1) && rsync -a --delete $(DEB_COPY_EXCLUDES) ./ $(1)/bubble-kiosk/
deb_buildpackage = cd $(1)/bubble-kiosk && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL SWIFT=$(SWIFT) \
	$(2) dpkg-buildpackage -us -uc -d --no-pre-clean $(3)

# build/bubble-kiosk_VERSION-REV_ARCH.deb and the same source's other package,
# build/bubble-kiosk-lockdown_VERSION-REV_all.deb. The stripped binary's size is printed, and
# over 8 MB fails the build (packaging/check-size.sh).
deb: deps | build/
	rm -f build/bubble-kiosk_*_$(HOST_ARCH).deb build/deb/*.deb
	$(call deb_copy,build/deb)
	$(call deb_buildpackage,build/deb,,-b)
	cp build/deb/bubble-kiosk_$(VERSION)-*_$(HOST_ARCH).deb build/deb/bubble-kiosk-lockdown_$(VERSION)-*_all.deb build/
	@bash packaging/check-size.sh build/deb/bubble-kiosk/debian/bubble-kiosk/usr/bin/bubble-kiosk

# bubble-kiosk-lockdown alone (dpkg-buildpackage -A: no Swift build), for `deb-arm64`.
deb-lockdown: deps | build/
	rm -f build/bubble-kiosk-lockdown_*_all.deb build/deb-lockdown/*.deb
	$(call deb_copy,build/deb-lockdown)
	$(call deb_buildpackage,build/deb-lockdown,,-A)
	cp build/deb-lockdown/bubble-kiosk-lockdown_$(VERSION)-*_all.deb build/

# The source package: build/bubble-kiosk_VERSION-REV.dsc with its .orig.tar.xz (the tree without
# debian/; the format is 3.0 (quilt) because the packages carry a Debian revision) and
# .debian.tar.xz. Made from a fresh copy, so nothing built is in it.
DEB_SOURCE_DIR := build/deb-source/bubble-kiosk-$(VERSION)
deb-source: deps | build/
	rm -rf build/deb-source build/bubble-kiosk_$(VERSION)*.dsc build/bubble-kiosk_$(VERSION)*.tar.xz
	mkdir -p $(DEB_SOURCE_DIR)
	rsync -a $(DEB_COPY_EXCLUDES) ./ $(DEB_SOURCE_DIR)/
	tar -C build/deb-source --exclude=bubble-kiosk-$(VERSION)/debian --sort=name --owner=0 --group=0 --numeric-owner \
		--mtime="$$(dpkg-parsechangelog -S Date)" -cJf build/deb-source/bubble-kiosk_$(VERSION).orig.tar.xz bubble-kiosk-$(VERSION)
	cd $(DEB_SOURCE_DIR) && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL dpkg-buildpackage -S -d -us -uc
	cp build/deb-source/bubble-kiosk_$(VERSION)*.dsc build/deb-source/bubble-kiosk_$(VERSION)*.tar.xz build/

# --- arm64 --------------------------------------------------------------------------------------
# The build environment alone (made once, then reused; rebuilt when its inputs change).
arm64-toolchain: deps
	bash packaging/arm64/toolchain.sh

# The kiosk for arm64, Swift runtime inside, like `release`. This is also the check that the
# code builds with the board's compiler (Swift 6.0.3) as well as with this machine's.
release-arm64: deps
	@t0=$$(date +%s); \
	$(IN_TOOLCHAIN) swift build -c release --static-swift-stdlib --product bubble-kiosk \
		--swift-sdks-path /opt/swift-sdks --swift-sdk aarch64-debian13 --scratch-path $(ARM64_SCRATCH) && \
	echo "arm64: release-arm64 took $$(( $$(date +%s) - t0 )) s"

# build/bubble-kiosk_VERSION-REV_arm64.deb: the same debian/ cross-built in the toolchain root
# (dpkg-buildpackage -a arm64: Debian 13's debhelper, units where Debian 13 keeps them, Depends
# from its arm64 libraries, the sounds made by the arm64 binary under qemu-user). The lockdown
# package (Architecture: all) is built beside it, for the arm64 boot test.
DEB_ARM64_BIN := build/deb-arm64/bubble-kiosk/.build/aarch64-unknown-linux-gnu/release/bubble-kiosk
deb-arm64: deps deb-lockdown | build/
	rm -f build/bubble-kiosk_*_arm64.deb build/deb-arm64/*.deb
	$(call deb_copy,build/deb-arm64)
	@t0=$$(date +%s); \
	$(call deb_buildpackage,build/deb-arm64,$(CURDIR)/$(IN_TOOLCHAIN) env SWIFT_SDK_FLAGS="$(SWIFT_SDK_FLAGS)",-a arm64 -B) && \
	echo "arm64: dpkg-buildpackage -a arm64 took $$(( $$(date +%s) - t0 )) s"
	cp build/deb-arm64/bubble-kiosk_$(VERSION)-*_arm64.deb build/
	@bash packaging/check-size.sh build/deb-arm64/bubble-kiosk/debian/bubble-kiosk/usr/bin/bubble-kiosk

# The arm64 build and package, and the amd64 package on Debian 13 (each step prints its time):
# the same answers as this machine's build under qemu-user, the package's checks, a boot of the
# arm64 package on an emulated arm64 machine (systemd, virtio-gpu, a uinput tap, a reload), and
# the Debian 12 amd64 package booted in a Debian 13 root.
arm64-test: deb-arm64 deb release
	@t0=$$(date +%s); eval "$$(bash packaging/arm64/toolchain.sh)" && \
	bash Tests/arm64/same-answers.sh --arm64 $(DEB_ARM64_BIN) --host $(RELEASE_BIN) --sysroot "$$TOOLCHAIN" && \
	echo "arm64: same-answers took $$(( $$(date +%s) - t0 )) s"
	bash Tests/package/deb-test.sh build/bubble-kiosk_$(VERSION)-*_arm64.deb
	@t0=$$(date +%s); bash Tests/vm/systemd-test.sh --arch arm64 --deb build/bubble-kiosk_$(VERSION)-*_arm64.deb && \
	echo "arm64: the boot test took $$(( $$(date +%s) - t0 )) s"
	@t0=$$(date +%s); bash Tests/vm/systemd-test.sh --suite trixie --deb build/bubble-kiosk_$(VERSION)-*_$(HOST_ARCH).deb && \
	echo "arm64: the amd64 package on Debian 13 took $$(( $$(date +%s) - t0 )) s"
	@if [ -f build/arm64-prepare.log ]; then cat build/arm64-prepare.log; fi

# --- the apt repository -----------------------------------------------------------------------
# build/apt: suites bookworm (amd64) and trixie (amd64: the Debian 12 build; arm64), component
# main, signed; the public key and bubble-kiosk.sources beside them (packaging/make-repo.sh says
# more). Signed with the operator's key when REPO_SIGNING_KEY=KEYID is given, else with a test
# key kept in /var/cache/bubble-kiosk-repo; REPO_URL= fills in the .sources file's URIs:.
# Versions already there stay (the last three of each), for downgrades.
REPO_SIGNING_KEY ?=
REPO_URL ?=
repo: deb deb-arm64
	bash packaging/make-repo.sh $(if $(REPO_SIGNING_KEY),--key $(REPO_SIGNING_KEY)) $(if $(REPO_URL),--url $(REPO_URL)) \
		build/apt build/bubble-kiosk_$(VERSION)-*_amd64.deb build/bubble-kiosk_$(VERSION)-*_arm64.deb \
		build/bubble-kiosk-lockdown_$(VERSION)-*_all.deb

# The repository as a kiosk sees it: in copies of the Debian 12 root and the Debian 13 arm64 root
# with only its .sources file and key, apt-get update verifies the signature and the package
# installs from it; a tampered InRelease or Release is refused.
repo-test: repo
	bash Tests/package/repo-test.sh build/apt

clean:
	rm -rf .build $(ARM64_SCRATCH) build
