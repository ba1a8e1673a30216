# Two commands set everything up: `make run` and `make test` (see README.md).
SHELL := /bin/bash
DATA_DIR ?= ./data
NPM ?= npm

.PHONY: node install build run test test-unit test-image lint bench clean help

help:
	@echo "make run    install, build and start on the embedded default (SQLite, in-process events, mail to files)"
	@echo "make test   install, lint and run every test against real MariaDB/MySQL, Kafka and SMTP"
	@echo "make lint   eslint, tsc --noEmit, the dependency rule and Redocly on the served OpenAPI document"
	@echo "make test-image   build the image and run it under a container engine (provisions Podman)"
	@echo "make bench  npm run bench on the supported node (docs/BENCHMARKS.md)"

# A supported Node (LTS 22 or 24): the machine's when it is one, else the official Node 24 binary
# from the npm registry under .cache/node (scripts/ensure-node.sh). Every recipe sources NODE_ENV.
NODE_ENV := .cache/node.env
WITH_NODE := source $(NODE_ENV) &&

node:
	@command -v node >/dev/null || { echo "Node.js is required (22 or 24 LTS; https://nodejs.org)"; exit 1; }
	@bash scripts/ensure-node.sh $(NODE_ENV)

# Installs exactly the locked versions, again when the lock file or the node running it changes
# (native addons are built for one node). npm ci's postinstall records that node's ABI in
# node_modules/.install-node.json, which each process compares with its own at start; an install
# older than that record gets it here.
install: node
	@$(WITH_NODE) want="$$(node -v) $$(cat package.json package-lock.json | sha256sum | cut -c1-16)"; \
	  if [ "$$(cat node_modules/.install-stamp 2>/dev/null)" = "$$want" ]; then \
	    [ -f node_modules/.install-node.json ] || $(NPM) run --silent postinstall; \
	  else \
	    echo "installing the locked dependencies with node $$(node -v)"; $(NPM) ci --no-audit --no-fund && echo "$$want" > node_modules/.install-stamp; \
	  fi

build: install
	@$(WITH_NODE) $(NPM) run --silent build

# The embedded default: a bootstrap admin `admin` whose password is generated once and kept
# (mode 600) in $(DATA_DIR)/admin-password; it is never written to the log.
run: build
	@mkdir -p "$(DATA_DIR)"
	@if [ -n "$${ADMIN_PASSWORD:-}" ]; then \
	  echo "Bootstrap admin (made on this database's first start only): username '$${ADMIN_USERNAME:-admin}', password: the ADMIN_PASSWORD you set"; \
	else \
	  [ -s "$(DATA_DIR)/admin-password" ] || { umask 077; node -e "process.stdout.write(require('crypto').randomBytes(18).toString('base64url'))" > "$(DATA_DIR)/admin-password"; }; \
	  echo "Bootstrap admin (made on this database's first start only): username '$${ADMIN_USERNAME:-admin}', password in $(DATA_DIR)/admin-password"; \
	fi
	@echo "Admin console: http://localhost:$${PORT:-3000}/console (sign in as the bootstrap admin)"
	@$(WITH_NODE) DATA_DIR="$(DATA_DIR)" \
	ADMIN_USERNAME="$${ADMIN_USERNAME:-admin}" \
	ADMIN_EMAIL="$${ADMIN_EMAIL:-admin@localhost.localdomain}" \
	ADMIN_NAME="$${ADMIN_NAME:-Administrator}" \
	ADMIN_PASSWORD="$${ADMIN_PASSWORD:-$$(cat "$(DATA_DIR)/admin-password")}" \
	$(NPM) start --silent

lint: install
	@$(WITH_NODE) $(NPM) run lint

# Every test; the services come from DATABASE_URL/KAFKA_BROKERS, a container engine (testcontainers),
# or are provisioned locally (see test/support). The container engine is found or provisioned
# (scripts/container-engine.sh: Podman from Debian), and the images the tests run are built
# (scripts/container-images.sh: the service's Dockerfile, and local stand-ins for images no
# registry can give). The last line is "N passed, N failed". JEST_WORKERS test files run at once: most of
# a suite's time is spent waiting on a database, a broker, a container or a browser, so three keep 2 cores busy.
JEST_WORKERS ?= 3
test: install lint
	@$(WITH_NODE) bash scripts/audit.sh
	@$(WITH_NODE) $(NPM) run build
	@bash scripts/ensure-chromium.sh
	@bash scripts/ensure-kubectl.sh
	@bash scripts/ensure-go-oidc.sh
	@bash scripts/ensure-oathtool.sh
	@mkdir -p .cache
	@bash scripts/container-engine.sh .cache/container-engine.env
	@$(WITH_NODE) source .cache/container-engine.env && bash scripts/container-images.sh
	@$(WITH_NODE) source .cache/container-engine.env; status=0; npx jest --ci --maxWorkers=$(JEST_WORKERS) --json --outputFile=.cache/jest-results.json || status=$$?; \
	  node scripts/test-summary.js .cache/jest-results.json || status=1; exit $$status

# The image alone: find or provision the engine, build the images, run the image's tests.
test-image: install
	@mkdir -p .cache
	@bash scripts/container-engine.sh .cache/container-engine.env
	@$(WITH_NODE) source .cache/container-engine.env && bash scripts/container-images.sh
	@$(WITH_NODE) source .cache/container-engine.env && npx jest --ci --selectProjects integration -- test/e2e/image

bench: install
	@bash scripts/ensure-chromium.sh
	@$(WITH_NODE) $(NPM) run bench

test-unit: install
	@bash scripts/ensure-oathtool.sh
	@$(WITH_NODE) npx jest --ci --selectProjects unit

clean:
	rm -rf dist dist-bench coverage .cache node_modules/.install-stamp
