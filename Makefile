# kubenotes: two commands do all the set-up.
#   make lab    create .venv if missing, install kubenotes with its extras, open JupyterLab at the index
#   make test   same set-up, then unit tests, doctests, every notebook under nbval, and the browser tests
# A second run reinstalls nothing unless pyproject.toml changed.

PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.kubenotes-installed
EXTRAS ?= lab,test
PORT   ?= 8888
# pytest-xdist workers for `make test`: one test file per worker at a time (--dist loadfile), so a module's
# fixtures (the browser tests' one JupyterLab) stay in one process. 2 fits the 2-core CI machine.
WORKERS ?= 2
ROOT_FLAG := $(shell [ "$$(id -u)" = 0 ] && echo --allow-root)

.PHONY: lab test install unit notebooks browser bench clean help

help:
	@echo "make lab    - install (first time) and open JupyterLab on notebooks/"
	@echo "make test   - install (first time) and run every test, notebook and browser check"
	@echo "make bench  - scheduler, replay, control-plane (and one 10,000-replica Deployment), kubelet and kube-proxy benchmarks"

$(BIN)/python:
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "kubenotes needs Python 3.11 or newer; found " + sys.version.split()[0])'
	$(PYTHON) -m venv $(VENV)

# uv (from PyPI) installs several times faster than pip; pip is the fallback.
$(STAMP): pyproject.toml | $(BIN)/python
	@($(BIN)/python -m pip install -q --disable-pip-version-check uv 2>/dev/null && \
	  $(BIN)/uv pip install --python $(BIN)/python -e '.[$(EXTRAS)]') || \
	 $(BIN)/python -m pip install -q --disable-pip-version-check -e '.[$(EXTRAS)]'
	@touch $(STAMP)

install: $(STAMP)

lab: install
	$(BIN)/jupyter lab $(ROOT_FLAG) --ip 127.0.0.1 --port $(PORT) \
	  --ServerApp.root_dir=notebooks --LabApp.default_url=/lab/tree/00.00-index.ipynb

unit: install
	$(BIN)/python -m pytest tests kubenotes

notebooks: install
	$(BIN)/nbstripout --verify notebooks/*.ipynb
	$(BIN)/python -m pytest --nbval-lax --nbval-current-env -p no:randomly notebooks

browser: install
	$(BIN)/python -m pytest tests/browser -m browser

# One pytest session: unit tests + doctests + notebooks (nbval) + browser tests, on $(WORKERS) workers.
# pytest exits 5 when no test ran, which fails this target: nothing passes silently.
test: install
	$(BIN)/nbstripout --verify notebooks/*.ipynb
	$(BIN)/python -m pytest -n $(WORKERS) --dist loadfile --nbval-lax --nbval-current-env tests kubenotes notebooks

bench: install
	$(BIN)/python benchmarks/scheduler_throughput.py
	$(BIN)/python benchmarks/replay_policies.py
	$(BIN)/python benchmarks/control_plane.py
	$(BIN)/python benchmarks/big_deployment.py
	$(BIN)/python benchmarks/serve_load.py
	$(BIN)/python benchmarks/kubelet_scale.py
	$(BIN)/python benchmarks/proxy_rules.py
	$(BIN)/python benchmarks/claims_at_scale.py

clean:
	rm -rf $(VENV) test-output .pytest_cache
