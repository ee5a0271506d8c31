# Two commands set everything up on a fresh machine: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: install run test migrate seed bench clean-data vendor messages

# PyICU (TR39 skeletons of names, cards/text.py) builds against Debian's ICU: installed here when missing.
$(STAMP): pyproject.toml clients/python/pyproject.toml
	(pkg-config --exists icu-i18n && command -v g++) >/dev/null 2>&1 || \
		(apt-get update && apt-get install -y libicu-dev pkg-config g++)
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	$(BIN)/python -m pip install --quiet -e clients/python
	# The wheel's own pgvector needs AVX-512; a portable build of the same version replaces it.
	$(BIN)/python -m memory_site.portable_pgvector
	touch $(STAMP)

install: $(STAMP)

migrate: install
	$(BIN)/python manage.py migrate --noinput

seed: migrate
	$(BIN)/python manage.py seed_demo
	$(BIN)/python manage.py prepare_query_model

# The demo runs as production does: debug off, so an error is the site's own page, never a traceback
# (http, not https, on this machine; a secret key made for the run unless one is set). The static files
# are collected first and served by whitenoise, as in production.
DEMO_ENV := DJANGO_DEBUG=false DJANGO_SSL_REDIRECT=false DJANGO_SECURE_COOKIES=false DJANGO_HSTS_SECONDS=0
run: seed
	@echo "memory-site at http://$(HOST):$(PORT)/  (demo sign-in: see README)"
	export DJANGO_SECRET_KEY="$${DJANGO_SECRET_KEY:-$$($(BIN)/python -c 'import secrets; print(secrets.token_urlsafe(50))')}" && \
	$(DEMO_ENV) $(BIN)/python manage.py collectstatic --noinput --verbosity 0 && \
	$(DEMO_ENV) $(BIN)/python manage.py runserver $(HOST):$(PORT)

# The worker tests need a Redis broker on 127.0.0.1:6379: start one if none answers.
# The dashboard's browser tests drive Debian's Chromium (with a CJK font): installed here when missing.
# lint-imports checks the import contracts in pyproject.toml (the layers point down only).
test: install
	test -x /usr/bin/chromium || (apt-get update && apt-get install -y chromium)
	# Chinese pages' screenshots need a font with Han characters (else each one is a box).
	fc-list :lang=zh-tw | grep -q . || (apt-get update && apt-get install -y fonts-noto-cjk)
	command -v msgfmt >/dev/null || (apt-get update && apt-get install -y gettext)
	redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1 || redis-server --daemonize yes --bind 127.0.0.1 \
		--port 6379 --save "" --appendonly no
	$(BIN)/lint-imports
	$(BIN)/python -m pytest --durations=25

# The pages' words in Traditional Chinese: gathers every marked string into locale/'s catalogue
# (new ones arrive untranslated; tests/test_catalogue.py fails until each has its translation),
# writes the Simplified Chinese one from it, then compiles both. The compiled .mo is committed, so `make run` needs no gettext tools.
MESSAGES_FROM := --ignore '.venv/*' --ignore '.data/*' --ignore 'bench/*' --ignore 'clients/*' --ignore 'tests/*' \
	--ignore 'staticfiles/*' --ignore 'test-artifacts/*'
messages: install
	$(BIN)/python manage.py makemessages -l zh_Hant --no-location --no-obsolete $(MESSAGES_FROM)
	$(BIN)/python manage.py catalogue_simplified
	$(BIN)/python manage.py compilemessages -l zh_Hant -l zh_Hans $(MESSAGES_FROM)

# Re-fetches the vendored htmx (no build step; see static/README.md).
HTMX_VERSION := 2.0.11
vendor:
	rm -rf .vendor-tmp && mkdir .vendor-tmp
	cd .vendor-tmp && npm pack htmx.org@$(HTMX_VERSION) && tar xzf htmx.org-$(HTMX_VERSION).tgz
	mkdir -p static/vendor
	cp .vendor-tmp/package/dist/htmx.min.js static/vendor/htmx-$(HTMX_VERSION).min.js
	rm -rf .vendor-tmp

bench: migrate
	$(BIN)/python bench/ingest.py

# Stops the embedded PostgreSQL and deletes its data folder.
clean-data:
	-$(BIN)/python -c "from memory_site.embedded_db import embedded_stop; embedded_stop()"
	rm -rf .data
