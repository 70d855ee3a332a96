# Build and install subs: the binary, its man pages and the bash, zsh and fish completions.
# `make install SUBS_BIN=path` installs a binary built elsewhere without building.
# `make dist` builds dist/subs-VERSION-linux-ARCH.tar.gz (a binary with the Swift runtime linked
# in statically, so the target machine needs no Swift toolchain) and its SHA-256 checksum file.

prefix ?= /usr/local
bindir = $(prefix)/bin
datadir = $(prefix)/share
mandir = $(datadir)/man
DESTDIR ?=
SWIFT ?= swift

VERSION := $(shell sed -n 's/.*static let version = "\(.*\)".*/\1/p' Sources/SubsCLI/CLI.swift)
ARCH := $(shell uname -m)
DIST_NAME = subs-$(VERSION)-linux-$(ARCH)
DIST_BUILD = .build/dist

ifeq ($(SUBS_BIN),)
SUBS_BIN = .build/release/subs
INSTALL_NEEDS = build
endif

.PHONY: all build test install uninstall dist

all: build

build:
	$(SWIFT) build -c release --product subs

test:
	./scripts/test

install: $(INSTALL_NEEDS)
	install -Dm755 $(SUBS_BIN) $(DESTDIR)$(bindir)/subs
	install -Dm644 man/subs.1 $(DESTDIR)$(mandir)/man1/subs.1
	install -Dm644 man/subs-store.5 $(DESTDIR)$(mandir)/man5/subs-store.5
	install -Dm644 completions/subs.bash $(DESTDIR)$(datadir)/bash-completion/completions/subs
	install -Dm644 completions/_subs $(DESTDIR)$(datadir)/zsh/site-functions/_subs
	install -Dm644 completions/subs.fish $(DESTDIR)$(datadir)/fish/vendor_completions.d/subs.fish

uninstall:
	rm -f $(DESTDIR)$(bindir)/subs
	rm -f $(DESTDIR)$(mandir)/man1/subs.1
	rm -f $(DESTDIR)$(mandir)/man5/subs-store.5
	rm -f $(DESTDIR)$(datadir)/bash-completion/completions/subs
	rm -f $(DESTDIR)$(datadir)/zsh/site-functions/_subs
	rm -f $(DESTDIR)$(datadir)/fish/vendor_completions.d/subs.fish

# The tarball unpacks to subs-VERSION-linux-ARCH/ holding bin/, man/, completions/, the README,
# docs/ and CONTRIBUTING (the README links them), LICENSE and CHANGELOG, and a Makefile-free
# install: see README "Install from the tarball".
dist:
	$(SWIFT) build -c release --product subs --static-swift-stdlib --scratch-path $(DIST_BUILD)
	rm -rf dist/$(DIST_NAME) dist/$(DIST_NAME).tar.gz dist/$(DIST_NAME).tar.gz.sha256
	install -Dm755 -s $(DIST_BUILD)/release/subs dist/$(DIST_NAME)/bin/subs
	install -Dm644 man/subs.1 dist/$(DIST_NAME)/man/man1/subs.1
	install -Dm644 man/subs-store.5 dist/$(DIST_NAME)/man/man5/subs-store.5
	install -Dm644 completions/subs.bash dist/$(DIST_NAME)/completions/subs.bash
	install -Dm644 completions/_subs dist/$(DIST_NAME)/completions/_subs
	install -Dm644 completions/subs.fish dist/$(DIST_NAME)/completions/subs.fish
	install -Dm644 README.md LICENSE CHANGELOG.md -t dist/$(DIST_NAME)
	install -Dm644 CONTRIBUTING.md -t dist/$(DIST_NAME)
	install -Dm644 docs/*.md -t dist/$(DIST_NAME)/docs
	tar -C dist --owner=0 --group=0 --numeric-owner -czf dist/$(DIST_NAME).tar.gz $(DIST_NAME)
	cd dist && sha256sum $(DIST_NAME).tar.gz > $(DIST_NAME).tar.gz.sha256
	rm -rf dist/$(DIST_NAME)
	@echo "dist/$(DIST_NAME).tar.gz"
