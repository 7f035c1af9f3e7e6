# Thin wrapper over CMake. 'make run' and 'make test' work on a fresh
# Debian machine as root: they install what they need first, each only the
# Debian packages of its purpose (scripts/install-deps.sh: build, test, image,
# wheel).
BUILD ?= build
ASAN_BUILD ?= build-asan
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
EXAMPLE ?= examples/tiny-kernel-storm.db
PREFIX ?= /usr/local
DESTDIR ?=

.PHONY: all deps deps-test image wheel build run test test-asan format format-check bench clean install deb

all: build

deps:
	@bash scripts/install-deps.sh build

deps-test:
	@bash scripts/install-deps.sh test

build: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_ARGS) >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

# The build goes to a log (its last lines are shown if it fails); doctor
# first, then the report, then the report's verdict again, so that it is
# on screen at the end. An existing build directory keeps its configuration.
run: deps
	@mkdir -p $(BUILD)
	@echo "== building gpuscope (log: $(BUILD)/build.log)"
	@{ [ -f $(BUILD)/CMakeCache.txt ] || cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo; } >$(BUILD)/build.log 2>&1 && \
	  cmake -S . -B $(BUILD) $(CMAKE_ARGS) >>$(BUILD)/build.log 2>&1 && \
	  cmake --build $(BUILD) -j $(JOBS) >>$(BUILD)/build.log 2>&1 || \
	  { tail -n 40 $(BUILD)/build.log; echo "gpuscope: the build failed (all of it in $(BUILD)/build.log)"; exit 1; }
	@echo "== gpuscope doctor"
	@$(BUILD)/gpuscope doctor || true
	@echo "== gpuscope report $(EXAMPLE)"
	@$(BUILD)/gpuscope report $(EXAMPLE) >$(BUILD)/run-report.txt; rc=$$?; cat $(BUILD)/run-report.txt; \
	  echo "== the verdict (gpuscope report $(EXAMPLE), above)"; \
	  sed -n '/^VERDICT/,/^$$/p' $(BUILD)/run-report.txt; exit $$rc

test: deps-test
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGPUSCOPE_WERROR=ON $(CMAKE_ARGS) >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS)
	@$(MAKE) --no-print-directory test-asan
	@$(MAKE) --no-print-directory format-check

test-asan: deps-test
	@cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DGPUSCOPE_WERROR=ON -DGPUSCOPE_SANITIZE=ON $(CMAKE_ARGS) >/dev/null
	@cmake --build $(ASAN_BUILD) -j $(JOBS)
	@cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 ctest --output-on-failure -j $(JOBS)

format:
	@find src tests bench workloads -name '*.[ch]' -o -name '*.cu' | xargs clang-format -i

format-check:
	@find src tests bench workloads -name '*.[ch]' -o -name '*.cu' | xargs clang-format --dry-run --Werror
	@echo "clang-format: ok"

# PREFIX/bin/gpuscope, PREFIX/lib/gpuscope/ (the injected libraries), the
# man pages and the bash completion under PREFIX/share; DESTDIR for staging.
install: build
	@DESTDIR="$(DESTDIR)" cmake --install $(BUILD) --prefix "$(PREFIX)"

# BUILD/gpuscope_VERSION_ARCH.deb (CPack; scripts/deb.sh computes Depends)
deb: build
	@bash scripts/deb.sh $(BUILD)

# an OCI image with buildah from scratch (scripts/image.sh): gpuscope:VERSION
# in buildah's storage and BUILD/gpuscope-image-VERSION.oci.tar
image: build
	@bash scripts/install-deps.sh image
	@bash scripts/image.sh $(BUILD)

# the pip wheel (pyproject.toml, scripts/wheel.sh): BUILD/wheel/gpuscope-*.whl,
# manylinux, checked with auditwheel
wheel:
	@bash scripts/install-deps.sh wheel
	@bash scripts/wheel.sh $(BUILD) >/dev/null

bench: build
	@bash bench/run.sh $(BUILD)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD)
