# Build and install subs: the binary, its man page and the bash, zsh and fish completions.
# `make install SUBS_BIN=path` installs a binary built elsewhere without building.

prefix ?= /usr/local
bindir = $(prefix)/bin
datadir = $(prefix)/share
mandir = $(datadir)/man
DESTDIR ?=
SWIFT ?= swift

ifeq ($(SUBS_BIN),)
SUBS_BIN = .build/release/subs
INSTALL_NEEDS = build
endif

.PHONY: all build test install uninstall

all: build

build:
	$(SWIFT) build -c release --product subs

test:
	$(SWIFT) test

install: $(INSTALL_NEEDS)
	install -Dm755 $(SUBS_BIN) $(DESTDIR)$(bindir)/subs
	install -Dm644 man/subs.1 $(DESTDIR)$(mandir)/man1/subs.1
	install -Dm644 completions/subs.bash $(DESTDIR)$(datadir)/bash-completion/completions/subs
	install -Dm644 completions/_subs $(DESTDIR)$(datadir)/zsh/site-functions/_subs
	install -Dm644 completions/subs.fish $(DESTDIR)$(datadir)/fish/vendor_completions.d/subs.fish

uninstall:
	rm -f $(DESTDIR)$(bindir)/subs
	rm -f $(DESTDIR)$(mandir)/man1/subs.1
	rm -f $(DESTDIR)$(datadir)/bash-completion/completions/subs
	rm -f $(DESTDIR)$(datadir)/zsh/site-functions/_subs
	rm -f $(DESTDIR)$(datadir)/fish/vendor_completions.d/subs.fish
