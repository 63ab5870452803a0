# Cabo Arena in a container: the `arena` command with Python 3.11, Node (JavaScript bots)
# and gcc (bots with a `build` step, e.g. bots/c-random). See docker/README.md.
#
#   docker build -t cabo-arena .                                   # FROM python:3.11-slim (needs a registry)
#   docker/make-base-image.sh                                      # no registry: a local Debian base...
#   docker build --network=host --build-arg BASE=cabo-arena-base:bookworm -t cabo-arena .   # ...and FROM it
#   mkdir -p results && docker run --rm --user "$(id -u):$(id -g)" \
#       -v "$PWD/results:/app/results" cabo-arena run tournaments/league.yaml
#
# Works with the legacy builder and BuildKit alike: no `# syntax=` line (it would pull an
# image from a registry), no RUN --mount, no COPY --chmod.

# Any Debian-based image with python3 (3.11+) that can make a venv: the official image by
# default, or the local one from docker/make-base-image.sh.
ARG BASE=python:3.11-slim

# ---- build: a venv with the arena's dependencies, and the arena installed in editable
# mode from /app as `make venv` does (`arena bot check` finds bots/random next to the
# arena package, so the package stays in /app). All pure Python: no compiler needed.
FROM ${BASE} AS build
ENV PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_ROOT_USER_ACTION=ignore
# pip trusts the base's system CA store when it has one (make-base-image.sh adds the
# host's local CAs to it, e.g. for a TLS-intercepting proxy) rather than its own bundle.
RUN python3 -m venv /opt/arena \
    && if [ -f /etc/ssl/certs/ca-certificates.crt ]; then \
           printf '[global]\ncert = /etc/ssl/certs/ca-certificates.crt\n' > /opt/arena/pip.conf; \
       fi
WORKDIR /app
# Dependencies first, from pyproject.toml alone, so that editing the arena reuses this layer.
# EXTRAS: optional dependency groups of pyproject.toml to add, comma-separated, e.g.
# `--build-arg EXTRAS=dask` for a Dask worker image (docs/cluster.md).
ARG EXTRAS=""
COPY pyproject.toml ./
RUN python3 -c 'import os, sys, tomllib; p = tomllib.load(open("pyproject.toml", "rb"))["project"]; \
known = p.get("optional-dependencies", {}); asked = [e for e in os.environ["EXTRAS"].split(",") if e.strip()]; \
bad = [e for e in asked if e.strip() not in known]; \
bad and sys.exit(f"EXTRAS: unknown extra(s) {bad}; pyproject.toml has {sorted(known)}"); \
print("\n".join(p["dependencies"] + [d for e in asked for d in known[e.strip()]]))' > /tmp/requirements.txt \
    && /opt/arena/bin/pip install -r /tmp/requirements.txt
COPY README.md ./
COPY arena/ arena/
RUN /opt/arena/bin/pip install --no-deps --editable . \
    && rm -rf build ./*.egg-info \
    && /opt/arena/bin/python -m compileall -q arena \
    && /opt/arena/bin/arena --help >/dev/null

# ---- runtime: python3, node, gcc, the venv, the bundled bots and tournaments ----
FROM ${BASE} AS runtime
# node runs bots/js-greedy. gcc and libc6-dev (static libc for `-static`) stay in the
# runtime image because `arena run` runs every bot's manifest `build` command before its
# first match on each run (bots/c-random compiles itself), for the bundled bots and for
# any bot directory mounted in. bubblewrap is left out: without privileges a container
# cannot create the namespaces it needs, so `sandbox: auto` uses `none` here.
RUN apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends nodejs gcc libc6-dev \
    && apt-get clean \
    && rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin \
    && node --version && gcc --version | head -n 1

# Non-root user; uid/gid 1000 (the usual first desktop user), changeable at build time.
ARG ARENA_UID=1000
RUN groupadd --gid "${ARENA_UID}" arena \
    && useradd --uid "${ARENA_UID}" --gid arena --create-home --shell /bin/bash arena

COPY --from=build /opt/arena /opt/arena
COPY --from=build /app /app
ENV PATH=/opt/arena/bin:${PATH} \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    LANG=C.UTF-8

WORKDIR /app
COPY --chown=arena:arena bots/ bots/
COPY --chown=arena:arena tournaments/ tournaments/
# Results go to /app/results/<tournament> (relative to the working directory) and
# `arena play` replays to /app/replays. These and the bot directories (where builds write
# their binaries) are writable by any uid, so `docker run --user "$(id -u):$(id -g)"`
# works as well as the default user.
RUN mkdir -p results replays \
    && chown arena:arena results replays \
    && find bots results replays -type d -exec chmod 0777 {} + \
    && arena --help >/dev/null

USER ${ARENA_UID}:${ARENA_UID}
ENTRYPOINT ["arena"]
CMD ["--help"]
