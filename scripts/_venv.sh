# shellcheck shell=bash
# Shared set-up for scripts/test and scripts/bench. Source it; do not run it.
# The functions return non-zero on failure instead of relying on `set -e`, so that they also work
# where errexit is off (e.g. inside `if`).
#
# Provides:
#   ROOT                         absolute path of the repository root (also the working directory)
#   log MESSAGE...               print a step heading on stderr
#   die MESSAGE...               print an error on stderr and exit 1
#   ensure_venv DIR PYTHON GROUP create DIR with PYTHON if needed, make sure pip is recent
#                                enough for dependency groups, install the pinned GROUP from
#                                pyproject.toml
#   build_release DIR            build the extension in release mode into the venv DIR
#   python_tag PYTHON            print PYTHON's version as 3.X, or 3.Xt for a free-threaded build
#                                (fails for anything but a CPython 3.10 or newer that runs)
#   pyenv_pythons                print "3.X PATH" for the newest CPython 3.10-3.13 patch release
#                                of each minor that pyenv has installed
#   ensure_redis_server          make sure redis-server is on PATH (the integration tests and the
#                                Celery benchmark start their own): installed from the
#                                distribution when missing and possible (root with apt-get),
#                                else an error message and a non-zero status
#   ensure_strace                the same for strace, which tests/test_snapshot_faults.py runs
#   ensure_wrk                   the same for wrk, the HTTP load generator of
#                                benchmarks/test_fastapi.py

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT" || exit 1

# pip learned `pip install --group` (PEP 735 dependency groups) in 25.1.
PIP_REQUIREMENT='pip>=25.1'

log() {
    printf '\n==> %s\n' "$*" >&2
}

die() {
    printf 'error: %s\n' "$*" >&2
    exit 1
}

python_tag() {
    "$1" -c 'import sys, sysconfig
assert sys.implementation.name == "cpython" and sys.version_info >= (3, 10)
ft = "t" if sysconfig.get_config_var("Py_GIL_DISABLED") else ""
print("%d.%d%s" % (sys.version_info[0], sys.version_info[1], ft))' 2>/dev/null
}

# Is DIR a working virtualenv (its python runs)? If WANT (e.g. "3.12", or "3.14t" for a
# free-threaded build) is given, it must also be that version and build.
_venv_ok() {
    local dir=$1 want=${2:-}
    [[ -x $dir/bin/python ]] || return 1
    local have
    have=$(python_tag "$dir/bin/python") || return 1
    [[ -z $want || $have == "$want" ]]
}

_make_venv() {
    local dir=$1 python=$2
    if ! "$python" -c 'import ensurepip, venv' >/dev/null 2>&1; then
        # Debian splits venv/ensurepip out of the python3 package.
        if [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null; then
            local minor
            minor=$("$python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
            log "Installing python${minor}-venv (needed to create virtualenvs)"
            apt-get update -qq || return 1
            DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "python${minor}-venv" \
                || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv \
                || return 1
        else
            printf 'error: %s cannot create virtualenvs; install its venv module (on Debian or Ubuntu: apt-get install python3-venv)\n' "$python" >&2
            return 1
        fi
    fi
    "$python" -m venv "$dir"
}

ensure_venv() {
    local dir=$1 python=$2 group=$3 want=${4:-}
    if ! _venv_ok "$dir" "$want"; then
        if [[ -e $dir ]]; then
            log "Recreating $dir (missing interpreter or wrong Python version)"
            rm -rf -- "$dir" || return 1
        else
            log "Creating virtualenv $dir with $python"
        fi
        _make_venv "$dir" "$python" || return 1
        if ! _venv_ok "$dir" "$want"; then
            printf 'error: %s did not give a working Python %s virtualenv\n' "$python" "$want" >&2
            return 1
        fi
    fi
    local py=$dir/bin/python
    log "Installing the pinned '$group' dependency group into $dir ($("$py" --version 2>&1))"
    # Only upgrades pip when the installed one is older than 25.1, so a re-run needs no network.
    "$py" -m pip install --quiet --disable-pip-version-check "$PIP_REQUIREMENT" || return 1
    "$py" -m pip install --quiet --disable-pip-version-check --group "$group" || return 1
    # Pinned packages whose declared dependencies conflict with other pins (pyproject.toml says
    # which and why), installed without their dependencies.
    "$py" -m pip install --quiet --disable-pip-version-check --no-deps --group test-nodeps
}

build_release() {
    local dir
    dir=$(cd "$1" && pwd) || return 1
    log "Building fastmsgpack (release) into $dir"
    # maturin installs into the virtualenv named by VIRTUAL_ENV; CONDA_PREFIX would confuse it.
    # pip, which maturin runs, says "Ignoring NAME: markers 'extra == ...' don't match your
    # environment" for each requirement of an extra: one line per extra at every build, which
    # tells the user nothing. Those lines are left out; everything else is shown.
    local noise="^Ignoring [^ ]+: markers 'extra == [^']*' don't match your environment$"
    env -u CONDA_PREFIX VIRTUAL_ENV="$dir" PATH="$dir/bin:$PATH" \
        "$dir/bin/maturin" develop --release 2>&1 | { grep -v -E "$noise" || true; }
    return "${PIPESTATUS[0]}"
}

pyenv_pythons() {
    local pyenv_cmd=
    if command -v pyenv >/dev/null; then
        pyenv_cmd=pyenv
    elif [[ -x ${PYENV_ROOT:-$HOME/.pyenv}/bin/pyenv ]]; then
        pyenv_cmd=${PYENV_ROOT:-$HOME/.pyenv}/bin/pyenv
    else
        return 0
    fi
    local root versions minor best
    root=$("$pyenv_cmd" root) || return 0
    versions=$("$pyenv_cmd" versions --bare 2>/dev/null) || return 0
    for minor in 10 11 12 13; do
        # Plain CPython releases only: no pre-releases, free-threaded builds or pyenv-virtualenvs.
        best=$(printf '%s\n' "$versions" | grep -E "^3\.${minor}\.[0-9]+$" | sort -V | tail -n 1 \
            || true)
        if [[ -n $best && -x $root/versions/$best/bin/python3 ]]; then
            printf '3.%s %s\n' "$minor" "$root/versions/$best/bin/python3"
        fi
    done
}

# ensure_tool COMMAND WHY: COMMAND on PATH, installed from the Debian/Ubuntu package of the same
# name when missing and possible (root with apt-get); else an error naming it, and status 1.
ensure_tool() {
    local tool=$1 why=$2
    command -v "$tool" >/dev/null && return 0
    if [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null; then
        log "Installing $tool ($why)"
        apt-get update -qq || return 1
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$tool" >/dev/null || return 1
        command -v "$tool" >/dev/null && return 0
    fi
    printf 'error: %s not found on PATH and cannot be installed here (not root, or no apt-get); install it (Debian or Ubuntu: apt-get install %s)\n' "$tool" "$tool" >&2
    return 1
}

ensure_redis_server() {
    ensure_tool redis-server "the integration tests and the Celery benchmark start one"
}

ensure_strace() {
    ensure_tool strace "the snapshot fault tests watch a save's system calls with it"
}

ensure_wrk() {
    ensure_tool wrk "benchmarks/test_fastapi.py loads a uvicorn server with it"
}
