# Shared helpers for scripts/*.sh (sourced, not run).

# Install Debian packages when a command is missing, if we are root with apt; else explain.
ensure_command() {
    local command_name=$1
    shift
    if command -v "$command_name" >/dev/null 2>&1; then
        return 0
    fi
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo ">> installing $* (for $command_name)"
        if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$@" >/dev/null; then
            apt-get update -q >/dev/null
            DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$@" >/dev/null
        fi
        return 0
    fi
    echo "!! $command_name is missing: install the Debian package(s) $* and run again" >&2
    return 1
}

# Create .venv when missing and install the given requirements file into it.
ensure_venv() {
    local requirements=$1
    if [ ! -x .venv/bin/python ]; then
        echo ">> creating .venv"
        "${PYTHON:-python3}" -m venv .venv
    fi
    echo ">> installing $requirements"
    .venv/bin/python -m pip install -q --disable-pip-version-check -r "$requirements"
}

compile_messages() {
    ensure_command msgfmt gettext
    .venv/bin/python manage.py compilemessages --ignore='.venv/*' --ignore='bench/*' -v 0
}
