# The README's two commands:  make run  |  make test
# Everything they need is installed here, from pinned files, on a fresh machine.

SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PIP := $(BIN)/pip --disable-pip-version-check --quiet
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
APT_INSTALL := $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends
VENDOR := hippograph/server/static/vendor/graphiql.min.js

.PHONY: run test install install-dev assets test-deps lint bench clean

## Install and start the service on the embedded graph (GraphiQL at http://127.0.0.1:8000/graphql)
run: install assets
	$(BIN)/hippograph serve

## Install everything the tests need, then lint, type-check and run the whole suite
test: install-dev assets test-deps lint
	$(BIN)/pytest

lint: install-dev
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

install: $(VENV)/.runtime
install-dev: $(VENV)/.dev

# torch goes first and pinned: an unpinned torch would pull gigabytes of CUDA.
$(VENV)/.runtime: requirements.lock pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(PIP) install torch==2.13.0
	$(PIP) install -r requirements.lock
	$(PIP) install --no-deps -e .
	touch $@

$(VENV)/.dev: $(VENV)/.runtime requirements-dev.lock
	$(PIP) install -r requirements-dev.lock
	touch $@

web/node_modules/.installed: web/package.json web/package-lock.json
	cd web && npm ci --no-audit --no-fund --loglevel=error
	touch $@

assets: $(VENDOR)
$(VENDOR): web/node_modules/.installed web/build-assets.mjs
	node web/build-assets.mjs

# System packages the tests use: Redis (tests start their own on a free port)
# and Chromium (headless browser tests). Installed only when missing.
test-deps:
	@command -v redis-server >/dev/null || $(APT_INSTALL) redis-server \
		|| ($(SUDO) apt-get update && $(APT_INSTALL) redis-server)
	@command -v chromium >/dev/null || $(APT_INSTALL) chromium \
		|| ($(SUDO) apt-get update && $(APT_INSTALL) chromium)

## Reproducible benchmarks (see bench/README.md)
bench: install
	$(BIN)/python bench/search_latency.py

clean:
	rm -rf $(VENV) web/node_modules hippograph/server/static/vendor
