#!/usr/bin/env bash
# make run-cluster: HAProxy on $PORT (default 8080) in front of three replicas of Corridor,
# all on one local primary with a hot standby for reads that may lag, everything local and
# stopped again on Ctrl-C. Logs under $CORRIDOR_DATA_DIR/cluster/.
set -euo pipefail

BIN=${BIN:-bin/corridor}
DATA=${CORRIDOR_DATA_DIR:-.data}
LB_PORT=${PORT:-8080}
STATS_PORT=${CLUSTER_STATS_PORT:-8404}
FIRST_REPLICA_PORT=${CLUSTER_FIRST_PORT:-8081}
FIRST_METRICS_PORT=${CLUSTER_FIRST_METRICS_PORT:-9465}
DIR="$DATA/cluster"
mkdir -p "$DIR"

pids=()
cleanup() {
	trap - EXIT INT TERM
	# Replicas and the balancer first, the databases (started first) last.
	for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
		kill "${pids[i]}" 2>/dev/null || true
		wait "${pids[i]}" 2>/dev/null || true
	done
}
trap cleanup EXIT INT TERM

alive() { kill -0 "$1" 2>/dev/null; }

rm -f "$DIR/databases.env"
"$BIN" databases >"$DIR/databases.log" 2>&1 &
pids+=($!)
echo "starting the primary and its standby (log: $DIR/databases.log)"
until [ -s "$DIR/databases.env" ]; do
	alive "${pids[0]}" || { tail -20 "$DIR/databases.log"; exit 1; }
	sleep 0.5
done
# shellcheck disable=SC1091
. "$DIR/databases.env"

# The dev chain is a process of its own, not a child of a replica: any replica may be stopped or
# killed and the others keep their chain. Replicas find it running and reuse it.
rm -f "$DIR/chain.ready"
"$BIN" devchain >"$DIR/chain.log" 2>&1 &
chain_pid=$!
pids+=("$chain_pid")
echo "starting the dev chain (log: $DIR/chain.log)"
until [ -s "$DIR/chain.ready" ]; do
	alive "$chain_pid" || { tail -20 "$DIR/chain.log"; exit 1; }
	sleep 0.5
done

for i in 1 2 3; do
	port=$((FIRST_REPLICA_PORT + i - 1))
	metrics=$((FIRST_METRICS_PORT + i - 1))
	CORRIDOR_ADDR="127.0.0.1:$port" METRICS_ADDR="127.0.0.1:$metrics" \
		DATABASE_URL="$DATABASE_URL" DATABASE_READ_URL="$DATABASE_READ_URL" \
		RATE_LIMIT_STORE=postgres TRUSTED_PROXIES=127.0.0.1 \
		"$BIN" run >"$DIR/replica$i.log" 2>&1 &
	pid=$!
	pids+=("$pid")
	echo "starting replica $i on 127.0.0.1:$port (metrics :$metrics, log: $DIR/replica$i.log)"
	# One at a time: each runs its migrations check and reuses the running dev chain.
	until curl -fsS "http://127.0.0.1:$port/readyz" >/dev/null 2>&1; do
		alive "$pid" || { tail -20 "$DIR/replica$i.log"; exit 1; }
		sleep 0.5
	done
done

command -v haproxy >/dev/null || { echo "haproxy is not installed (make run-cluster installs it)"; exit 1; }
sed -e "s/@LISTEN@/127.0.0.1:$LB_PORT/" -e "s/@STATS@/127.0.0.1:$STATS_PORT/" \
	-e "s/@REPLICA1@/127.0.0.1:$FIRST_REPLICA_PORT/" \
	-e "s/@REPLICA2@/127.0.0.1:$((FIRST_REPLICA_PORT + 1))/" \
	-e "s/@REPLICA3@/127.0.0.1:$((FIRST_REPLICA_PORT + 2))/" \
	deploy/haproxy/haproxy.cfg >"$DIR/haproxy.cfg"
haproxy -c -q -f "$DIR/haproxy.cfg"
haproxy -db -f "$DIR/haproxy.cfg" >"$DIR/haproxy.log" 2>&1 &
pids+=($!)
until curl -fsS "http://127.0.0.1:$LB_PORT/readyz" >/dev/null 2>&1; do
	alive "${pids[-1]}" || { tail -20 "$DIR/haproxy.log"; exit 1; }
	sleep 0.5
done

cat <<MSG

Corridor cluster ready:
  API (HAProxy)     http://127.0.0.1:$LB_PORT      (stats: http://127.0.0.1:$STATS_PORT/)
  replicas          127.0.0.1:$FIRST_REPLICA_PORT-$((FIRST_REPLICA_PORT + 2)), metrics 127.0.0.1:$FIRST_METRICS_PORT-$((FIRST_METRICS_PORT + 2))
  primary           $DATABASE_URL
  standby (reads)   $DATABASE_READ_URL
Kill a replica (kill <pid>) and HAProxy routes around it within two health checks;
Ctrl-C stops everything.
Replica pids: ${pids[*]:2:3}
MSG
# A replica may die (that is the point); the databases, the chain or the balancer stopping ends
# the run. Ctrl-C (or the end of the run) stops everything the script started, whatever died.
wait -n "${pids[0]}" "$chain_pid" "${pids[-1]}" || true
echo "the databases, the chain or the balancer stopped; stopping the rest"
