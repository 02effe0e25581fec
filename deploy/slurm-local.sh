#!/usr/bin/env bash
# A one-node Slurm cluster on this machine, to try deploy/slurm.sbatch before a real cluster
# (docs/usage.md, 'A cluster'): `deploy/slurm-local.sh start|stop|status`, as root.
#   start   installs Slurm from Debian if missing (slurm-wlm: munge, slurmctld, slurmd), writes a
#           configuration for this machine's cores and memory (no cgroups), starts munged,
#           slurmctld and slurmd, and waits until the node is idle
#   stop    cancels the cluster's jobs and ends the daemons `start` started (their pid files)
#   status  sinfo and squeue; exit 0 only while the node answers
# Everything (configuration, state, logs, pid files, the munge key and socket) lives in
# AGENTSENSE_SLURM_DIR (default /tmp/agentsense-slurm). Slurm's commands find the configuration
# through /etc/slurm/slurm.conf, linked to ours while the cluster runs, unless that file is
# someone else's: then `export SLURM_CONF=$AGENTSENSE_SLURM_DIR/slurm.conf` (start says so).
set -euo pipefail

DIR="${AGENTSENSE_SLURM_DIR:-/tmp/agentsense-slurm}"
CONF="$DIR/slurm.conf"
SYSTEM_CONF=/etc/slurm/slurm.conf
NODE="$(hostname -s)"
DAEMONS=(slurmd slurmctld munged) # in the order `stop` ends them

say() { printf 'slurm-local: %s\n' "$*" >&2; }
die() {
    say "error: $*"
    exit 1
}

# The pid in DIR/NAME.pid if that process is alive and is NAME (not a reused pid).
alive() {
    local pid
    pid="$(cat "$DIR/$1.pid" 2>/dev/null)" || return 1
    [[ -n "$pid" && "$(cat "/proc/$pid/comm" 2>/dev/null)" == "$1"* ]] && echo "$pid"
}

install_slurm() {
    command -v slurmctld >/dev/null && command -v slurmd >/dev/null \
        && command -v munged >/dev/null && command -v sbatch >/dev/null && return
    say "installing Slurm from Debian (slurm-wlm)"
    apt-get update -q >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends slurm-wlm >/dev/null
}

write_config() {
    # `slurmd -C` is this node as slurmd sees it (cores, sockets, memory): a node configured with
    # more than it finds is drained.
    local node
    node="$(slurmd -C | head -n 1)"
    [[ "$node" == NodeName=* ]] || die "slurmd -C printed no node line: '$node'"
    cat >"$CONF" <<EOF
# Written by deploy/slurm-local.sh: a one-node cluster on $NODE, every daemon as root.
ClusterName=agentsense-local
SlurmctldHost=$NODE(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$DIR/munge/munge.socket.2
CredType=cred/munge
StateSaveLocation=$DIR/slurmctld
SlurmdSpoolDir=$DIR/slurmd
SlurmctldPidFile=$DIR/slurmctld.pid
SlurmdPidFile=$DIR/slurmd.pid
SlurmctldLogFile=$DIR/slurmctld.log
SlurmdLogFile=$DIR/slurmd.log
# No cgroups (containers and CI machines rarely grant them): track a job by its process tree.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
# No slurmdbd, so no sacct: each finished job's state is written here instead.
JobCompType=jobcomp/filetxt
JobCompLoc=$DIR/jobcomp.log
MpiDefault=none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
# Seconds between a cancel's SIGTERM and its SIGKILL: time for eval-parts to print the
# eval-retry line of a part it was running.
KillWait=30
$node NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=local Nodes=$NODE Default=YES MaxTime=INFINITE State=UP
EOF
}

link_config() {
    if [[ -L "$SYSTEM_CONF" && "$(readlink "$SYSTEM_CONF")" == "$CONF" ]]; then
        return
    elif [[ -e "$SYSTEM_CONF" || -L "$SYSTEM_CONF" ]]; then
        say "$SYSTEM_CONF is not ours: run \`export SLURM_CONF=$CONF\` before sbatch/squeue/sinfo"
    else
        mkdir -p "$(dirname "$SYSTEM_CONF")"
        ln -s "$CONF" "$SYSTEM_CONF"
    fi
}

start_munge() {
    mkdir -p -m 0700 "$DIR/munge"
    # A key of this cluster's own (root's, as munged runs as root here).
    [[ -s "$DIR/munge/munge.key" ]] \
        || dd if=/dev/urandom of="$DIR/munge/munge.key" bs=1024 count=1 status=none
    chmod 0400 "$DIR/munge/munge.key"
    munged --force --socket="$DIR/munge/munge.socket.2" --key-file="$DIR/munge/munge.key" \
        --pid-file="$DIR/munged.pid" --log-file="$DIR/munged.log" \
        --seed-file="$DIR/munge/munged.seed"
}

wait_idle() {
    local state="" deadline=$((SECONDS + 120))
    while ((SECONDS < deadline)); do
        state="$(SLURM_CONF="$CONF" sinfo -h -n "$NODE" -o %T 2>/dev/null || true)"
        [[ "$state" == idle ]] && return
        sleep 1
    done
    die "node $NODE is '${state:-not answering}' after 120 s; see $DIR/slurmctld.log and $DIR/slurmd.log"
}

start() {
    [[ "$(id -u)" == 0 ]] || die "start runs the daemons as root: run it as root (sudo)"
    if [[ -n "$(alive slurmctld || true)" ]]; then
        say "already running (pid $(alive slurmctld)); \`$0 stop\` first to restart"
        return
    fi
    install_slurm
    mkdir -p -m 0700 "$DIR"
    mkdir -p "$DIR/slurmctld" "$DIR/slurmd"
    write_config
    link_config
    [[ -n "$(alive munged || true)" ]] || start_munge
    slurmctld -f "$CONF"
    slurmd -f "$CONF"
    wait_idle
    say "up: node $NODE idle, configuration $CONF, state and logs in $DIR"
}

stop() {
    local name pid ended=()
    if [[ -n "$(alive slurmctld || true)" ]]; then
        # The jobs' processes are slurmstepd's, not the daemons': cancel them, or they outlive us.
        SLURM_CONF="$CONF" scancel --quiet --full --user=root 2>/dev/null || true
        local deadline=$((SECONDS + 60))
        while ((SECONDS < deadline)) && [[ -n "$(SLURM_CONF="$CONF" squeue -h 2>/dev/null)" ]]; do
            sleep 1
        done
    fi
    for name in "${DAEMONS[@]}"; do
        pid="$(alive "$name" || true)"
        [[ -n "$pid" ]] || continue
        kill -TERM "$pid"
        for _ in $(seq 100); do
            [[ -d "/proc/$pid" ]] || break
            sleep 0.1
        done
        [[ -d "/proc/$pid" ]] && kill -KILL "$pid"
        ended+=("$name ($pid)")
        rm -f "$DIR/$name.pid"
    done
    if [[ -L "$SYSTEM_CONF" && "$(readlink "$SYSTEM_CONF")" == "$CONF" ]]; then
        rm -f "$SYSTEM_CONF"
    fi
    say "stopped: ${ended[*]:-nothing was running}"
}

status() {
    [[ -n "$(alive slurmctld || true)" ]] || {
        say "not running: \`$0 start\`"
        return 1
    }
    SLURM_CONF="$CONF" sinfo -N -o "%N %P %T %c %m" || return 1
    SLURM_CONF="$CONF" squeue
}

case "${1:-}" in
    start | stop | status) "$1" ;;
    *) die "usage: $0 start|stop|status" ;;
esac
