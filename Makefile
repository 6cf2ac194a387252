# iopsy — post-mortem analysis of esxtop and perfmon storage captures.
# Targets: all (default), demo, check-fast, check, check-san, check-slurm, deps, lint, man, format, install,
# bench, clean (README "Testing" says which test tier to run when).
# Switches: SANITIZE=address,undefined  WERROR=1  V=1  PREFIX=/usr/local  DESTDIR=

.DEFAULT_GOAL := all

PREFIX   ?= /usr/local
BINDIR   ?= $(PREFIX)/bin
MANDIR   ?= $(PREFIX)/share/man
CC       ?= cc
PKG_CONFIG ?= pkg-config

BUILD    ?= build
ifneq ($(SANITIZE),)
BUILD    := build-san
endif

PROJ_CFLAGS := -std=c11 -D_GNU_SOURCE -O2 -g -Wall -Wextra -Wshadow -Wstrict-prototypes \
	-Wmissing-prototypes -Wformat=2 -Wno-format-nonliteral -Wpointer-arith -Wcast-qual -Wvla \
	-Wundef -MMD -MP
ifeq ($(WERROR),1)
PROJ_CFLAGS += -Werror
endif
ifneq ($(SANITIZE),)
PROJ_CFLAGS += -fsanitize=$(SANITIZE) -fno-omit-frame-pointer -fno-sanitize-recover=all
PROJ_LDFLAGS += -fsanitize=$(SANITIZE)
endif

PKGS      := libpcre2-8 zlib sqlite3 libcurl
PKG_CFLAGS = $(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   = $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null || echo -lpcre2-8 -lz -lsqlite3 -lcurl)
CHECK_CFLAGS = $(shell $(PKG_CONFIG) --cflags check 2>/dev/null)
CHECK_LIBS   = $(shell $(PKG_CONFIG) --libs check 2>/dev/null || echo -lcheck -lsubunit -lrt -lpthread)
# Debian ships no .pc for libcsv.
LDLIBS   += -lcsv $(PKG_LIBS) -lm
# ISA-L's inflate for gzip input when it is installed (libisal-dev), zlib's otherwise; gzip is
# inflated in a second thread.
ISAL_LIBS := $(shell $(PKG_CONFIG) --libs libisal 2>/dev/null)
ifeq ($(ISAL_LIBS),)
ISAL_LIBS := $(shell test -f /usr/include/isa-l/igzip_lib.h && echo -lisal)
endif
ifneq ($(ISAL_LIBS),)
PROJ_CFLAGS += -DHAVE_ISAL
LDLIBS   += $(ISAL_LIBS)
endif
# libxlsxwriter for --xlsx (libxlsxwriter-dev); without it the xlsx report says so.
XLSX_LIBS := $(shell $(PKG_CONFIG) --libs xlsxwriter 2>/dev/null)
ifneq ($(XLSX_LIBS),)
PROJ_CFLAGS += -DHAVE_XLSXWRITER
LDLIBS   += $(XLSX_LIBS)
endif
# PostgreSQL history (--history postgresql://...) when libpq is installed (libpq-dev); without
# it such a history is refused with a clear error and SQLite works as always.
PQ_LIBS := $(shell $(PKG_CONFIG) --libs libpq 2>/dev/null)
ifneq ($(PQ_LIBS),)
PROJ_CFLAGS += -DHAVE_LIBPQ $(shell $(PKG_CONFIG) --cflags libpq 2>/dev/null)
LDLIBS   += $(PQ_LIBS)
endif
PROJ_CFLAGS  += -pthread
PROJ_LDFLAGS += -pthread

ALL_CFLAGS  = $(PROJ_CFLAGS) $(PKG_CFLAGS) $(CFLAGS)
ALL_LDFLAGS = $(PROJ_LDFLAGS) $(LDFLAGS)

ifeq ($(V),1)
Q :=
else
Q := @
endif

# One-way layers: each is compiled with only the include paths of itself and the layers below
# it, so an upward #include does not build (doc/architecture.md). src/sim stands apart: it sees
# src/base and the kind table only.
INC_base    := -Isrc/base
INC_parsers := $(INC_base) -Iparsers
INC_engine  := $(INC_parsers) -Isrc/engine
INC_reports := $(INC_engine) -Ireports
INC_batch   := $(INC_reports) -Isrc/batch
INC_cli     := $(INC_batch) -Isrc/cli -Isrc
INC_sim     := $(INC_base) -I$(BUILD)/inc-sim
INC_tests   := $(INC_cli)

$(BUILD)/src/base/%.o:   LAYER_INC = $(INC_base)
$(BUILD)/parsers/%.o:    LAYER_INC = $(INC_parsers)
$(BUILD)/src/engine/%.o: LAYER_INC = $(INC_engine)
$(BUILD)/reports/%.o:    LAYER_INC = $(INC_reports)
$(BUILD)/src/batch/%.o:  LAYER_INC = $(INC_batch)
$(BUILD)/src/cli/%.o:    LAYER_INC = $(INC_cli)
$(BUILD)/src/sim/%.o:    LAYER_INC = $(INC_sim)
# the simulator sees the kind table and nothing else of the engine
SIM_OBJ := $(patsubst %.c,$(BUILD)/%.o,$(wildcard src/sim/*.c))
$(SIM_OBJ): | $(BUILD)/inc-sim/kinds.h
$(BUILD)/inc-sim/kinds.h: src/engine/kinds.h
	@mkdir -p $(dir $@)
	$(Q)cp $< $@
$(BUILD)/tests/%.o:      LAYER_INC = $(INC_tests)

LAYER_DIRS := src/base parsers src/engine reports src/batch src/cli src/sim
LIB_SRC  := $(filter-out src/cli/main.c,$(foreach d,$(LAYER_DIRS),$(wildcard $(d)/*.c)))
LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/%.o)
MAIN_OBJ := $(BUILD)/src/cli/main.o
TEST_SRC := $(wildcard tests/check_*.c)
TEST_OBJ := $(TEST_SRC:%.c=$(BUILD)/%.o) $(BUILD)/tests/runner.o
BIN      := $(BUILD)/iopsy

.PHONY: format man all demo check check-fast check-san ci-slurm check-unit check-unit-quick golden-plain golden-threads hostile-fast hostile-mem check-unit check-golden check-hostile check-batch check-shard check-pg check-slurm check-browser check-deliverable stress valgrind fuzz deps deps-test lint install uninstall bench clean samples

all: $(BIN) iopsy

iopsy: $(BIN)
	$(Q)ln -sf $(BIN) iopsy

$(BIN): $(MAIN_OBJ) $(BUILD)/libiopsy.a
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/libiopsy.a: $(LIB_OBJ)
	@$(if $(Q),echo "  AR      $@")
	$(Q)rm -f $@ && ar rcs $@ $^

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(LAYER_INC) $(ALL_CFLAGS) $(ISA_CFLAGS) $(if $(filter tests/%,$<),$(CHECK_CFLAGS)) -c -o $@ $<

# The per-ISA field scanners get their instruction sets here and nowhere else: fieldscan.c calls
# one only after the CPU check (each file is empty on other architectures).
ifneq ($(filter x86_64%,$(shell $(CC) -dumpmachine 2>/dev/null)),)
$(BUILD)/parsers/fieldscan_avx2.o: ISA_CFLAGS := -mavx2 -mpclmul -mpopcnt
$(BUILD)/parsers/fieldscan_avx512.o: ISA_CFLAGS := -mavx512f -mavx512bw -mpclmul -mpopcnt
endif

$(BUILD)/check_iopsy: $(TEST_OBJ) $(BUILD)/libiopsy.a
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(CHECK_LIBS) $(LDLIBS)

# man: rewrites the generated regions of doc/iopsy.1 (kinds, formats, reports, analysis options)
# from the tables; commit the result (tests/check_registry.c fails when the page differs).
$(BUILD)/mkman: $(BUILD)/tests/mkman.o $(BUILD)/libiopsy.a
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LDLIBS)

man: $(BUILD)/mkman
	$(Q)$(BUILD)/mkman doc/iopsy.1 >doc/iopsy.1.tmp && mv doc/iopsy.1.tmp doc/iopsy.1

# format: clang-format (.clang-format: the kernel's style at 120 columns) on the C files this
# working tree changes against HEAD, not on the whole tree (which would bury history)
format:
	$(Q)git diff --name-only --diff-filter=AM HEAD -- '*.c' '*.h' | xargs -r clang-format -i
	$(Q)git ls-files --others --exclude-standard -- '*.c' '*.h' | xargs -r clang-format -i

# deps: install the Debian packages the build, the demo and the tests need (idempotent).
DEB_PKGS := gcc make libcsv-dev libpcre2-dev zlib1g-dev libisal-dev libsqlite3-dev libcurl4-openssl-dev libxlsxwriter-dev libpq-dev pkg-config gnuplot-nox check tzdata
deps:
	@sh tests/ensure-deps.sh $(DEB_PKGS)

# What the tests need on top: a real SMTP server and Python's email package for the mail test,
# Chromium for the browser test (and --pdf), poppler-utils (pdftotext, pdftoppm) for the PDF test,
# the sqlite3 shell, GNU time for the memory checks, a PostgreSQL server for the PostgreSQL
# history (a throwaway cluster, tests/pgtmp.sh), PyYAML for the Kubernetes manifests' test,
# Universal Ctags for lint's size budget (tests/sizes.sh).
TEST_PKGS := python3 unzip python3-aiosmtpd chromium poppler-utils sqlite3 time postgresql python3-yaml universal-ctags
deps-test: deps
	@sh tests/ensure-deps.sh $(TEST_PKGS)

demo: deps
	$(Q)$(MAKE) --no-print-directory all
	./$(BIN) counters --match 'SCSI Device|LogicalDisk' samples/healthy/esxtop.csv.gz samples/healthy/perfmon.csv.gz
	./$(BIN) analyze samples/lsi-guest-queue-cap/esxtop.csv.gz samples/lsi-guest-queue-cap/perfmon.csv.gz

# Test tiers. The unit binary takes suite names and a shard (tests/runner.c): the three simulator
# suites are cut into shards that run side by side (-j2: the machine has two cores), so a tier's
# wall time is about its longest job, not the sum. Every tier runs each test once. Jobs are listed
# longest first (make starts them in that order), so no long job starts last.
#  check-fast  build, lint, the quick unit suites, one golden pass and the hostile inputs that do
#              not measure memory: the loop after every change
#  check       everything check-fast runs, plus the simulator suites, the golden pass with
#              threads, the memory bounds and the integration suites (batch, shard, PostgreSQL,
#              browser, deliverable, view); the README's test command
#  check-san   the sanitizer build (SANITIZE=address,undefined by default) of the tests that find
#              bugs there: every unit suite, the goldens, the hostile inputs and the batch runner;
#              the simulator suites run each scenario with one seed (--one-seed: the seed rotates
#              with the scenario), the plain tier runs all three. SEED_SPLIT=1 (.ci/run, which runs
#              both tiers) has the plain tier run only the other two (--other-seeds): each
#              scenario and seed then runs once in CI
UNIT_QUICK  := util actions pdh model topology iopath hyperv registry reader doc rules deliv flow detect batch html
UNIT_SHARDS := compare_scenarios.0.3 compare_scenarios.1.3 compare_scenarios.2.3 \
	scenarios.0.3 scenarios.1.3 scenarios.2.3 sim.0.2 sim.1.2
UNIT_SIM    := $(addprefix unit-,$(UNIT_SHARDS))
CHECK_JOBS  ?= 2
# A tier runs CHECK_JOBS jobs at a time, unless a parent make already holds a jobserver (`make -j2
# check check-san`, as .ci/run does, or `make -j4 check`): then its jobs take that make's slots, so
# two tiers run side by side without more jobs than cores, and neither leaves a core idle at its end.
TIER_J       = $(if $(findstring jobserver,$(MAKEFLAGS)),,-j$(CHECK_JOBS))
UNIT_FLAGS  ?=
UNIT_RUN     = $(TIMED) env IOPSY_SRCDIR=$(CURDIR) $(BUILD)/check_iopsy $(UNIT_FLAGS)
# each test job says its wall time (tests/timed.sh): "time: build-san/unit-sim.0.2 41 s (exit 0)"
TIMED        = sh tests/timed.sh $(BUILD)/$@

check-fast: deps-test
	$(Q)$(MAKE) --no-print-directory $(TIER_J) all $(BUILD)/check_iopsy
	$(Q)$(MAKE) --no-print-directory $(TIER_J) -Otarget lint check-unit-quick golden-plain hostile-fast

check: deps-test
	$(Q)$(MAKE) --no-print-directory $(TIER_J) all $(BUILD)/check_iopsy
	$(Q)$(MAKE) --no-print-directory $(TIER_J) $(if $(SEED_SPLIT),UNIT_FLAGS=--other-seeds) -Otarget \
		check-pg check-batch check-browser lint check-unit check-golden check-hostile check-shard check-deliverable check-view

SAN_FLAVOUR ?= address,undefined
check-san: deps
	$(Q)$(MAKE) --no-print-directory $(TIER_J) SANITIZE=$(SAN_FLAVOUR) all
	$(Q)$(MAKE) --no-print-directory $(TIER_J) SANITIZE=$(SAN_FLAVOUR) build-san/check_iopsy
	$(Q)$(MAKE) --no-print-directory $(TIER_J) -Otarget SANITIZE=$(SAN_FLAVOUR) UNIT_FLAGS=--one-seed \
		check-batch check-unit check-golden check-hostile

check-unit: $(wordlist 1,6,$(UNIT_SIM)) check-unit-quick $(wordlist 7,8,$(UNIT_SIM))

check-unit-quick: unit-quick unit-compare

unit-quick: $(BUILD)/check_iopsy
	$(Q)$(UNIT_RUN) $(UNIT_QUICK)

unit-compare: $(BUILD)/check_iopsy
	$(Q)$(UNIT_RUN) compare

# unit-SUITE.K.N: shard K of N of one simulator suite
unit-%: $(BUILD)/check_iopsy
	$(Q)set -- $(subst ., ,$*); $(UNIT_RUN) --shard $$2/$$3 $$1

check-golden: golden-plain golden-threads

golden-plain: $(BIN)
	$(Q)$(TIMED) sh tests/golden.sh $(BIN)

golden-threads: $(BIN)
	$(Q)$(TIMED) sh tests/golden.sh $(BIN) --threads

check-batch: $(BIN)
	$(Q)$(TIMED) sh tests/batch.sh $(BIN)

# sharded runs (--shard, --finish) with the SQLite history, the Kubernetes manifests
check-shard: $(BIN)
	$(Q)$(TIMED) sh tests/shard.sh $(BIN)

# the PostgreSQL history on a throwaway cluster (skipped, saying so, without PostgreSQL)
check-pg: $(BIN)
	$(Q)$(TIMED) sh tests/pg.sh $(BIN)

# Not part of check (needs root, starts daemons): a single-node Slurm cluster (slurm-wlm and
# munge, installed here when missing) runs contrib/slurm over 30 simulator sets.
check-slurm: $(BIN)
	@sh tests/ensure-deps.sh slurm-wlm munge
	$(Q)sh tests/slurm.sh $(BIN)

# .ci/run: the Slurm test as soon as the plain tier is done (its binary built), beside the end of
# the sanitizer tier (its time is mostly its daemons' waiting)
ci-slurm: check
	$(Q)$(MAKE) --no-print-directory check-slurm

check-hostile: hostile-fast hostile-mem

hostile-fast: $(BIN)
	$(Q)$(TIMED) env HOSTILE_TIER=fast sh tests/hostile.sh $(BIN)

hostile-mem: $(BIN)
	$(Q)$(TIMED) env HOSTILE_TIER=mem sh tests/hostile.sh $(BIN)

# Not part of check (minutes to hours): a 2 GB capture streamed through stdin; valgrind memcheck
# over the unit suites and golden cases; the libFuzzer harnesses for FUZZ_SECONDS each.
FUZZ_SECONDS ?= 60
stress: $(BIN)
	sh tests/stress.sh $(BIN)

valgrind: all $(BUILD)/check_iopsy
	sh tests/valgrind.sh $(BUILD)

fuzz:
	FUZZ_SECONDS=$(FUZZ_SECONDS) sh tests/fuzz/run.sh

check-browser: $(BIN)
	$(Q)$(TIMED) sh tests/browser.sh $(BIN)

# the PDF (Chromium, poppler-utils), the xlsx workbook and hostile engagement fields (issue 15)
check-deliverable: $(BIN)
	$(Q)$(TIMED) sh tests/deliverable.sh $(BIN)

# the layer check reads the built objects (tests/layers.sh)
lint: $(LIB_OBJ) $(MAIN_OBJ)
	@$(TIMED) env BUILD=$(BUILD) sh tests/lint.sh

install: $(BIN)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1
	install -m 755 $(BIN) $(DESTDIR)$(BINDIR)/iopsy
	install -m 644 doc/iopsy.1 $(DESTDIR)$(MANDIR)/man1/iopsy.1

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/iopsy $(DESTDIR)$(MANDIR)/man1/iopsy.1

bench: $(BIN)
	sh bench/run.sh

clean:
	rm -rf build build-san build-fuzz iopsy

-include $(LIB_OBJ:.o=.d) $(MAIN_OBJ:.o=.d) $(TEST_OBJ:.o=.d) $(BUILD)/tests/mkman.d

# view-assets: rewrites reports/view_assets.c (uPlot and iopsy view's page script and style as C
# strings, with the sha256 hashes of the page's CSP) from reports/vendor/uplot/ and
# reports/view_app.{js,css}; commit the result (tests/view.sh fails when it is stale).
# check-view: iopsy view's page, its downsampling and its CLI (tests/view.sh).
.PHONY: view-assets check-view
view-assets:
	$(Q)python3 reports/vendor/embed.py
check-view: all
	$(Q)$(TIMED) sh tests/view.sh $(BIN)
