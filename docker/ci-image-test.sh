#!/usr/bin/env bash
# End-to-end image test, no registry needed:
#   1. docker/make-base-image.sh makes the local Debian base (skipped if it exists),
#   2. docker build --network=host --build-arg BASE=<base> -t cabo-arena:ci .
#   3. runs tournaments/quick.yaml in the container with /app/results bind-mounted to a
#      temporary directory on the host, and checks leaderboard.json and results.sqlite
#      there (every bot of quick.yaml ranked, heuristic expected first),
#   4. checks the container runs as non-root, has no .venv, and that an arbitrary uid
#      (docker run --user) can still build the C bot and play.
# Exits non-zero with a message on the first failure; prints the time of every step.
#
# Needs a running engine (tests/docker/start-dockerd.sh is used if it exists and the
# engine does not answer) and root for the base image (debootstrap).
# Env: ARENA_BASE_IMAGE (default cabo-arena-base:bookworm), ARENA_CI_IMAGE (default
# cabo-arena:ci), ARENA_CI_KEEP=1 keeps the results directory.
set -euo pipefail
cd "$(dirname "$0")/.."

BASE_IMAGE=${ARENA_BASE_IMAGE:-cabo-arena-base:bookworm}
IMAGE=${ARENA_CI_IMAGE:-cabo-arena:ci}
TOURNAMENT=tournaments/quick.yaml
T0=$EPOCHREALTIME
STEP_T=$T0

say() { echo "ci-image-test: $*"; }
fail() { echo "ci-image-test: FAIL: $*" >&2; exit 1; }
secs() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }'; }
step() { STEP_T=$EPOCHREALTIME; say "== $*"; }
done_step() { say "   $1: $(secs "$STEP_T") s"; }

# ---- engine
step "engine"
command -v docker >/dev/null 2>&1 || fail "no docker client on PATH (Debian: apt-get install docker.io)"
if ! timeout 20 docker info >/dev/null 2>&1; then
    if [ -x tests/docker/start-dockerd.sh ]; then
        tests/docker/start-dockerd.sh || fail "tests/docker/start-dockerd.sh could not start an engine"
    else
        fail "the Docker engine does not answer (docker info); start dockerd first"
    fi
fi
done_step "engine ready"

# ---- 1. base image
step "base image $BASE_IMAGE (docker/make-base-image.sh)"
docker/make-base-image.sh "$BASE_IMAGE" || fail "docker/make-base-image.sh $BASE_IMAGE failed"
done_step "base image"

# ---- 2. the arena image
step "docker build -t $IMAGE from $BASE_IMAGE"
BUILD_LOG=$(mktemp /tmp/cabo-arena-build.XXXXXX.log)
if ! docker build --network=host --build-arg BASE="$BASE_IMAGE" -t "$IMAGE" . >"$BUILD_LOG" 2>&1; then
    tail -n 40 "$BUILD_LOG" >&2
    fail "docker build failed (full log: $BUILD_LOG)"
fi
rm -f "$BUILD_LOG"
done_step "build"
say "   sizes: $BASE_IMAGE $(docker image inspect -f '{{.Size}}' "$BASE_IMAGE" | awk '{ printf "%.0f MB", $1 / 1e6 }'), $IMAGE $(docker image inspect -f '{{.Size}}' "$IMAGE" | awk '{ printf "%.0f MB", $1 / 1e6 }')"

# ---- 3. the quick tournament, results on the host
step "arena run $TOURNAMENT in $IMAGE"
OUT=$(mktemp -d /tmp/cabo-arena-results.XXXXXX)
RUN_LOG=$(mktemp /tmp/cabo-arena-run.XXXXXX.log)
cleanup() {
    rm -f "$RUN_LOG"
    if [ "${ARENA_CI_KEEP:-0}" = 1 ]; then
        say "results kept in $OUT"
    elif ! rm -rf "$OUT" 2>/dev/null; then
        # files written by another uid: remove them from inside a container
        docker run --rm --user 0 --entrypoint sh -v "$OUT:/out" "$IMAGE" -c 'rm -rf /out/*' >/dev/null 2>&1 || true
        rm -rf "$OUT" 2>/dev/null || say "could not remove $OUT"
    fi
}
trap cleanup EXIT
if [ "$(id -u)" = 0 ]; then
    # As root here: run as the image's own non-root user, as on a host where that uid
    # owns the results directory (mktemp's 0700 directory would be root's only).
    chmod 0777 "$OUT"
    USER_OPT=()
    say "   as the image's default user, results -> $OUT"
else
    USER_OPT=(--user "$(id -u):$(id -g)")  # the documented way for any host user
    say "   as --user $(id -u):$(id -g), results -> $OUT"
fi
if ! docker run --rm "${USER_OPT[@]}" -v "$OUT:/app/results" "$IMAGE" run "$TOURNAMENT" >"$RUN_LOG" 2>&1; then
    tail -n 40 "$RUN_LOG" >&2
    fail "arena run $TOURNAMENT failed in the container"
fi
tr '\r' '\n' <"$RUN_LOG" | grep -v '^[[:space:]]*$' | tail -n 8 | sed 's/^/   | /' || true
done_step "tournament"

# ---- checks on the host
step "checks"
NAME=$(sed -n 's/^name:[[:space:]]*\([^[:space:]#]*\).*/\1/p' "$TOURNAMENT" | head -n 1)
[ -n "$NAME" ] || fail "cannot read the tournament name from $TOURNAMENT"
RESULTS="$OUT/$NAME"
for f in leaderboard.json results.sqlite; do
    [ -s "$RESULTS/$f" ] || fail "$RESULTS/$f did not appear on the host (results not written to the bind mount?)"
done
grep -q 'sandbox none' "$RUN_LOG" && say "   sandbox: none (bubblewrap cannot run in an unprivileged container; expected)"
# the bots quick.yaml lists, by the names in their manifests
EXPECTED=()
for dir in $(sed -n 's/^[[:space:]]*-[[:space:]]*\(\.\.\/bots\/[^[:space:]#]*\).*/\1/p' "$TOURNAMENT"); do
    manifest="$(dirname "$TOURNAMENT")/$dir/bot.yaml"
    [ -f "$manifest" ] || fail "$TOURNAMENT lists $dir, which has no bot.yaml"
    EXPECTED+=("$(sed -n 's/^name:[[:space:]]*\([^[:space:]#]*\).*/\1/p' "$manifest" | head -n 1)")
done
[ "${#EXPECTED[@]}" -gt 0 ] || fail "found no bots in $TOURNAMENT"
python3 - "$RESULTS" "${EXPECTED[@]}" <<'EOF' || fail "the results on the host are not what quick.yaml should give (see above)"
import json, sqlite3, sys
results, expected = sys.argv[1], sys.argv[2:]
board = json.load(open(f"{results}/leaderboard.json"))
standings = board.get("standings", [])
ranked = [row["bot"] for row in sorted(standings, key=lambda row: row["rank"])]
print(f"ci-image-test:    leaderboard: {board.get('matches')} matches; "
      + ", ".join(f"{row['rank']}. {row['bot']} ({row['matches']} matches, faults {row.get('faults') or 'none'})"
                  for row in sorted(standings, key=lambda row: row["rank"])))
problems = []
missing = sorted(set(expected) - set(ranked))
if missing:
    problems.append(f"bots missing from leaderboard.json: {', '.join(missing)} (expected {', '.join(expected)})")
if any(row["matches"] < 1 for row in standings):
    problems.append("a bot played no match")
with sqlite3.connect(f"file:{results}/results.sqlite?mode=ro", uri=True) as db:
    stored = db.execute("SELECT COUNT(*) FROM matches").fetchone()[0]
if stored < 1 or stored != board.get("matches"):
    problems.append(f"results.sqlite holds {stored} matches, leaderboard.json says {board.get('matches')}")
for p in problems:
    print(f"ci-image-test: FAIL: {p}", file=sys.stderr)
if not problems:
    if ranked and ranked[0] == "heuristic":
        print("ci-image-test:    heuristic ranked first")
    elif "heuristic" in expected:
        print(f"ci-image-test:    NOTE: heuristic is not first ({ranked}); every bot is listed, so this passes")
sys.exit(1 if problems else 0)
EOF
done_step "results on the host"

# ---- image properties: non-root by default, no .venv, any uid can build bots and play
step "image properties"
uid=$(docker run --rm --entrypoint id "$IMAGE" -u) || fail "cannot run 'id' in $IMAGE"
[ "$uid" != 0 ] || fail "$IMAGE runs as root by default"
docker run --rm --entrypoint sh "$IMAGE" -c 'test ! -e /app/.venv && test ! -e /app/results/quick' \
    || fail "$IMAGE contains /app/.venv or old results (check .dockerignore)"
docker run --rm --user 4242:4242 "$IMAGE" play bots/c-random bots/random --seed 1 >/dev/null 2>&1 \
    || fail "'arena play bots/c-random bots/random' fails as an arbitrary uid (--user 4242:4242)"
say "   default uid $uid; no .venv; --user 4242:4242 builds bots/c-random and plays"
done_step "image checks"

say "PASS in $(secs "$T0") s"
