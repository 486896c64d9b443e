# ferry: one portable GNU Makefile.
#   make              build ./ferry
#   make check        unit and integration tests against local S3 servers
#                     (Ceph and Swift; FERRY_TEST_SERVERS=ceph picks one)
#   make demo         start the gateway, sync a sample tree twice, stop it
#   make fuzz         run every fuzz target for FUZZ_SECONDS each
#   make install      PREFIX (default /usr/local) and DESTDIR honoured
#   make deb          build the Debian package (../ferry_*.deb) from debian/
#   make completions  write the shell completions again from the help
#   SANITIZE=1        build with AddressSanitizer and UBSan (in build-san/)
#   WERROR=1          warnings are errors (CI and developers; never the
#                     default, so a user's compiler or flags cannot fail it)
#
# CFLAGS, CPPFLAGS and LDFLAGS are the user's (default CFLAGS -O2 -g): the
# flags ferry itself needs sit in FERRY_CFLAGS, which they cannot drop.

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR ?= $(PREFIX)/share/zsh/vendor-completions
FISHCOMPDIR ?= $(PREFIX)/share/fish/vendor_completions.d
MAN1 = $(wildcard man/*.1)
MAN5 = $(wildcard man/*.5)
CC ?= cc
PKG_CONFIG ?= pkg-config
PKGS = libcurl openssl libxxhash lmdb libcjson expat zlib
FUZZ_SECONDS ?= 30

WARN = -Wall -Wextra -Wshadow -Wstrict-prototypes -pedantic
ifeq ($(WERROR),1)
WARN += -Werror
endif
CFLAGS ?= -O2 -g
FERRY_CFLAGS = -std=c11 -D_GNU_SOURCE -I. $(WARN) \
	$(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null)
FERRY_LDFLAGS =
LIBS = $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null) -lpthread

ifeq ($(SANITIZE),1)
BUILD = build-san
FERRY_CFLAGS += -fsanitize=address,undefined -fno-omit-frame-pointer \
	-fno-sanitize-recover=undefined
FERRY_LDFLAGS += -fsanitize=address,undefined
else
BUILD = build
endif

ALL_CFLAGS = $(FERRY_CFLAGS) $(CPPFLAGS) $(CFLAGS)
ALL_LDFLAGS = $(CFLAGS) $(FERRY_LDFLAGS) $(LDFLAGS)

LIB_SRC = $(wildcard common/*.c remote/*.c manifest/*.c) \
	$(filter-out sync/main.c,$(wildcard sync/*.c sync/*/*.c))
LIB_OBJ = $(LIB_SRC:%.c=$(BUILD)/%.o)
UNIT_SRC = $(wildcard tests/unit/test_*.c)
UNIT_BIN = $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
FUZZ_SRC = $(wildcard tests/fuzz/fuzz_*.c)

.PHONY: all check unit unit-build integration demo deps fuzz install uninstall \
	clean format bench deb completions FORCE

all: ferry

ferry: $(BUILD)/ferry
	@if [ "$(BUILD)" = build ]; then cp $(BUILD)/ferry ferry.tmp && mv -f ferry.tmp ferry; fi

$(BUILD)/ferry: $(BUILD)/sync/main.o $(BUILD)/libferry.a $(BUILD)/flags
	$(CC) $(ALL_LDFLAGS) -o $@ $(filter %.o %.a,$^) $(LIBS)

$(BUILD)/libferry.a: $(LIB_OBJ)
	rm -f $@
	ar rcs $@ $^

# Objects are rebuilt when the compiler or its flags change.
$(BUILD)/flags: FORCE
	@mkdir -p $(BUILD)
	@echo '$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS)' | cmp -s - $@ || \
		echo '$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS)' >$@

$(BUILD)/%.o: %.c $(BUILD)/flags
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

$(BUILD)/tests/test_%: tests/unit/test_%.c $(BUILD)/libferry.a $(BUILD)/flags
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(FERRY_LDFLAGS) $(LDFLAGS) -o $@ $< \
		$(BUILD)/libferry.a \
		$(LIBS) $(shell $(PKG_CONFIG) --libs cmocka)

deps:
	@sh tests/deps.sh

unit-build: $(UNIT_BIN)

unit: unit-build
	@fail=0; for t in $(UNIT_BIN); do \
		echo "== $$t"; $$t || fail=1; done; \
	echo "== tests/includes.sh"; sh tests/includes.sh || fail=1; \
	exit $$fail

integration: $(BUILD)/ferry
	FERRY=$(CURDIR)/$(BUILD)/ferry sh tests/integration/run.sh

check: deps
	$(MAKE) unit
	$(MAKE) integration

demo: deps ferry
	sh examples/demo.sh

fuzz:
	sh tests/fuzz/run.sh $(FUZZ_SECONDS)

bench: deps ferry
	bash bench/run.sh

install: ferry
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 \
		$(DESTDIR)$(MANDIR)/man5
	install -m 755 ferry $(DESTDIR)$(BINDIR)/ferry
	install -m 644 $(MAN1) $(DESTDIR)$(MANDIR)/man1/
	install -m 644 $(MAN5) $(DESTDIR)$(MANDIR)/man5/
	install -d $(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR) \
		$(DESTDIR)$(FISHCOMPDIR)
	install -m 644 examples/ferry.bash-completion \
		$(DESTDIR)$(BASHCOMPDIR)/ferry
	install -m 644 examples/ferry.zsh-completion $(DESTDIR)$(ZSHCOMPDIR)/_ferry
	install -m 644 examples/ferry.fish-completion \
		$(DESTDIR)$(FISHCOMPDIR)/ferry.fish
	install -d $(DESTDIR)$(PREFIX)/share/ferry
	install -m 644 man/ferry-events.schema.json $(DESTDIR)$(PREFIX)/share/ferry/

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/ferry \
		$(MAN1:man/%=$(DESTDIR)$(MANDIR)/man1/%) \
		$(MAN5:man/%=$(DESTDIR)$(MANDIR)/man5/%) \
		$(DESTDIR)$(BASHCOMPDIR)/ferry $(DESTDIR)$(ZSHCOMPDIR)/_ferry \
		$(DESTDIR)$(FISHCOMPDIR)/ferry.fish \
		$(DESTDIR)$(PREFIX)/share/ferry/ferry-events.schema.json

# The package is built from a copy of the tracked files, in build-deb/,
# where dpkg-buildpackage leaves the .deb (not in the parent folder).
deb:
	rm -rf build-deb
	mkdir -p build-deb/ferry
	git ls-files | tar -cf - -T - | tar -xf - -C build-deb/ferry
	cd build-deb/ferry && dpkg-buildpackage -us -uc -b

# the bash, zsh and fish completions, from "ferry COMMAND --help"
completions: ferry
	python3 examples/gen-completions.py ./ferry

format:
	clang-format -i $$(git ls-files '*.c' '*.h')

clean:
	rm -rf build build-san build-deb ferry

-include $(shell find build build-san -name '*.d' 2>/dev/null)
