# shellcheck shell=bash
# slurmdbd and its MariaDB for a run directory whose slurm.conf asks for
# AccountingStorageType=accounting_storage/slurmdbd (`spur-conformance both
# --accounting`). Sourced by up.sh and down.sh after common.sh.
#
# Everything lives in RUNDIR/dbd: the database files, mariadbd's PID and
# socket, slurmdbd.conf, its PID and log. MariaDB listens on 127.0.0.1 only
# (SLURMDB_MYSQL_PORT, default 6820) with skip-name-resolve; slurmdbd on
# SLURMDBD_PORT (default 6819). Both run as root and are stopped by PID.

DBD_PACKAGES=(slurmdbd mariadb-server)

# Whether the rendered slurm.conf stores accounting through slurmdbd (its last
# AccountingStorageType line decides, as in Slurm).
conf_wants_dbd() {
    local conf=$1 value
    value=$(sed -n 's/^AccountingStorageType=//p' "$conf" 2>/dev/null | tail -n1)
    [[ $value == accounting_storage/slurmdbd ]]
}

dbd_ports() {
    DBD_PORT=${SLURMDBD_PORT:-6819}
    DB_PORT=${SLURMDB_MYSQL_PORT:-6820}
}

# Adds the slurmdbd address to slurm.conf unless the extra lines gave one.
dbd_conf_lines() {
    local conf=$1
    dbd_ports
    grep -q '^AccountingStorageHost=' "$conf" || printf 'AccountingStorageHost=localhost\n' >>"$conf"
    grep -q '^AccountingStoragePort=' "$conf" || printf 'AccountingStoragePort=%s\n' "$DBD_PORT" >>"$conf"
}

dbd_sql() { mariadb --no-defaults -uroot --socket="$RUNDIR/dbd/mysqld.sock" -e "$1"; }

dbd_start_mariadb() {
    local dir=$RUNDIR/dbd i
    mkdir -p "$dir/data"
    mariadb-install-db --no-defaults --user=root --datadir="$dir/data" --auth-root-authentication-method=normal \
        --skip-test-db >"$dir/install.log" 2>&1 || die "mariadb-install-db failed (see $dir/install.log)"
    /usr/sbin/mariadbd --no-defaults --user=root --datadir="$dir/data" --socket="$dir/mysqld.sock" \
        --pid-file="$dir/mariadbd.pid" --bind-address=127.0.0.1 --port="$DB_PORT" --skip-name-resolve \
        --innodb-buffer-pool-size=64M --innodb-log-file-size=16M --log-error="$dir/mariadbd.log" \
        >/dev/null 2>&1 &
    for ((i = 0; i < 100; i++)); do
        dbd_sql 'select 1' >/dev/null 2>&1 && break
        sleep 0.1
    done
    dbd_sql 'select 1' >/dev/null 2>&1 || die "mariadbd did not answer (see $dir/mariadbd.log)"
    dbd_sql "CREATE USER IF NOT EXISTS 'slurm'@'127.0.0.1' IDENTIFIED BY 'slurm';
             GRANT ALL ON slurm_acct_db.* TO 'slurm'@'127.0.0.1'; FLUSH PRIVILEGES;" ||
        die "cannot create the slurm database user"
}

dbd_start_slurmdbd() {
    local dir=$RUNDIR/dbd conf i
    conf=$(dirname "$CONF")/slurmdbd.conf
    cat >"$conf" <<EOF
AuthType=auth/munge
DbdHost=localhost
DbdPort=$DBD_PORT
SlurmUser=root
PidFile=$dir/slurmdbd.pid
LogFile=$dir/slurmdbd.log
DebugLevel=info
StorageType=accounting_storage/mysql
StorageHost=127.0.0.1
StoragePort=$DB_PORT
StorageUser=slurm
StoragePass=slurm
StorageLoc=slurm_acct_db
EOF
    chmod 0600 "$conf"
    SLURM_CONF=$CONF /usr/sbin/slurmdbd >"$dir/slurmdbd.out" 2>&1 || die "slurmdbd exited with status $?"
    for ((i = 0; i < 200; i++)); do
        SLURM_CONF=$CONF timeout 5 sacctmgr -n show cluster >/dev/null 2>&1 && break
        sleep 0.1
    done
    live_pid_from "$dir/slurmdbd.pid" slurmdbd >/dev/null || die "slurmdbd did not start (see $dir/slurmdbd.log)"
    # slurmctld registers only a cluster the database knows.
    local cluster
    cluster=$(sed -n 's/^ClusterName=//p' "$CONF" | tail -n1)
    SLURM_CONF=$CONF timeout 10 sacctmgr -i add cluster "$cluster" >/dev/null 2>&1 || true
}

# Starts MariaDB and slurmdbd when slurm.conf asks for them.
dbd_up() {
    conf_wants_dbd "$CONF" || return 0
    dbd_ports
    dbd_conf_lines "$CONF"
    dbd_start_mariadb
    dbd_start_slurmdbd
    log "slurmdbd on port $DBD_PORT, MariaDB on 127.0.0.1:$DB_PORT"
}

dbd_down() {
    local dir=$RUNDIR/dbd pid
    if pid=$(live_pid_from "$dir/slurmdbd.pid" slurmdbd); then
        log "stopping slurmdbd ($pid)"
        stop_pid "$pid" slurmdbd 10
    fi
    if pid=$(live_pid_from "$dir/mariadbd.pid" mariadbd); then
        log "stopping mariadbd ($pid)"
        stop_pid "$pid" mariadbd 20
    fi
}
