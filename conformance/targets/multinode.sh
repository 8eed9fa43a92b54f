# shellcheck shell=bash disable=SC2034
# Multi-node mode shared by both targets (sourced by their up.sh and down.sh after common.sh): each node is a
# network namespace with its own address on a private bridge, and its daemon runs there in a UTS namespace of its
# own, so `hostname` says the node name as on a real cluster. The controller stays in the root namespace and is
# reached on the bridge address.
#
# Everything is named after a hash of the run directory (MN_ID), so two targets or two users never collide, and
# down.sh finds what up.sh made even when the run directory is gone:
#   network namespaces  ${MN_ID}-n1 ... ${MN_ID}-nN   (node K's interface inside is eth0, address .(10+K))
#   bridge              ${MN_ID}b                      (address .1, the controller's)
#   veth (root side)    ${MN_ID}vK
#   /etc/hosts lines    "ADDR nK # spur-conformance ${MN_ID}"
# The subnet is 10.213.X.0/24 with X in a range of the target's own (slurm 100-149, spur 200-249), chosen from
# the hash and skipped past any /24 that an address or route of this host already uses.

MN_MAX_NODES=64
MN_HOSTS_TAG="# spur-conformance"
MN_STATE_FILE=multinode.env

# Sets MN_ID for the run directory $1.
mn_init() {
    MN_ID=spc$(printf '%s' "$1" | sha256sum | cut -c1-6)
}

# Sets MN_NODES from a node count (--nodes N or SPUR_CONF_NODES), refusing one that is not 1..MN_MAX_NODES.
mn_set_count() {
    local n=$1
    if ! [[ $n =~ ^[0-9]{1,3}$ ]] || ((10#$n < 1 || 10#$n > MN_MAX_NODES)); then
        die "node count must be a number from 1 to $MN_MAX_NODES, not '$n'"
    fi
    MN_NODES=$((10#$n))
}

mn_node_names() {
    local k
    for ((k = 1; k <= MN_NODES; k++)); do echo "n$k"; done
}

mn_netns() { echo "${MN_ID}-n$1"; }
mn_node_addr() { echo "$MN_SUBNET.$((10 + $1))"; }

# True when some address or route of this host falls in 10.213.$1.0/24.
mn_subnet_in_use() {
    local net=10.213.$1
    ip -4 -o addr show 2>/dev/null | grep -qF " $net." && return 0
    ip -4 route show 2>/dev/null | grep -qE "^$net\.[0-9]+(/| )" && return 0
    return 1
}

# Sets MN_SUBNET (three octets) and MN_CTLD_ADDR for target $1 (slurm or spur).
mn_choose_subnet() {
    local base i x hash
    case $1 in
    slurm) base=100 ;;
    spur) base=200 ;;
    *) die "unknown target $1" ;;
    esac
    hash=$((16#${MN_ID:3:4}))
    for ((i = 0; i < 50; i++)); do
        x=$((base + (hash + i) % 50))
        if ! mn_subnet_in_use "$x"; then
            MN_SUBNET=10.213.$x
            MN_CTLD_ADDR=$MN_SUBNET.1
            return 0
        fi
    done
    die "no free /24 in 10.213.$base-$((base + 49)).0"
}

# Creates the bridge, the namespaces and the veth pairs; records the layout in the run directory.
mn_net_up() {
    local k ns veth peer
    [[ -z $(mn_our_netns) ]] || die "network namespaces ${MN_ID}-n* already exist (run down.sh first)"
    log "creating bridge ${MN_ID}b ($MN_CTLD_ADDR/24) and $MN_NODES network namespace(s)"
    {
        ip link add "${MN_ID}b" type bridge &&
            ip addr add "$MN_CTLD_ADDR/24" dev "${MN_ID}b" &&
            ip link set "${MN_ID}b" up
    } || mn_die "cannot set up bridge ${MN_ID}b"
    for ((k = 1; k <= MN_NODES; k++)); do
        ns=$(mn_netns "$k") veth=${MN_ID}v$k peer=${MN_ID}p$k
        {
            ip netns add "$ns" &&
                ip link add "$veth" type veth peer name "$peer" &&
                ip link set "$veth" master "${MN_ID}b" up &&
                ip link set "$peer" netns "$ns" &&
                ip -n "$ns" link set "$peer" name eth0 &&
                ip -n "$ns" addr add "$(mn_node_addr "$k")/24" dev eth0 &&
                ip -n "$ns" link set eth0 up &&
                ip -n "$ns" link set lo up
        } || mn_die "cannot set up network namespace $ns"
    done
    printf 'MN_NODES=%s\nMN_SUBNET=%s\nMN_CTLD_ADDR=%s\n' "$MN_NODES" "$MN_SUBNET" "$MN_CTLD_ADDR" \
        >"$RUNDIR/$MN_STATE_FILE"
}

# Undoes a half-made network before giving up.
mn_die() {
    mn_net_down
    die "$@"
}

# Appends "ADDR nK # spur-conformance MN_ID" for each node; other lines of /etc/hosts are never touched.
mn_hosts_add() {
    local k
    (
        flock 9
        for ((k = 1; k <= MN_NODES; k++)); do
            printf '%s n%s %s %s\n' "$(mn_node_addr "$k")" "$k" "$MN_HOSTS_TAG" "$MN_ID" >>/etc/hosts
        done
    ) 9</etc/hosts
}

# Removes exactly the lines mn_hosts_add wrote for MN_ID. Rewritten in place (not renamed), since /etc/hosts is
# often a bind mount. The lock is on /etc/hosts itself, held while it is read and rewritten.
# shellcheck disable=SC2094
mn_hosts_remove() {
    grep -qE " $MN_HOSTS_TAG $MN_ID\$" /etc/hosts 2>/dev/null || return 0
    (
        flock 9
        local tmp
        tmp=$(mktemp)
        grep -vE " $MN_HOSTS_TAG $MN_ID\$" /etc/hosts >"$tmp" || true
        cat "$tmp" >/etc/hosts
        rm -f -- "$tmp"
    ) 9</etc/hosts
    log "removed the /etc/hosts lines of $MN_ID"
}

# Our namespaces, whatever the node count was.
mn_our_netns() {
    ip netns list 2>/dev/null | awk '{print $1}' | grep -E "^${MN_ID}-n[0-9]+$" || true
}

# Stops whatever still runs in our namespaces (job steps left by a daemon that was killed), then removes the
# namespaces, the veths and the bridge. Every process in these namespaces was started by up.sh or by its daemons.
mn_net_down() {
    local ns pid k
    for ns in $(mn_our_netns); do
        for pid in $(ip netns pids "$ns" 2>/dev/null); do
            log "stopping leftover process $pid ($(cat "/proc/$pid/comm" 2>/dev/null)) in $ns"
            stop_pid "$pid" "$(cat "/proc/$pid/comm" 2>/dev/null)" 5
        done
        k=${ns##*-n}
        ip link del "${MN_ID}v$k" 2>/dev/null || true
        ip netns del "$ns" && log "removed network namespace $ns"
    done
    # veths whose namespace is already gone
    for veth in $(ip -o link show 2>/dev/null | awk -F': ' '{print $2}' | sed 's/@.*//' | grep -E "^${MN_ID}v[0-9]+$" || true); do
        ip link del "$veth" 2>/dev/null || true
    done
    if ip link show "${MN_ID}b" >/dev/null 2>&1; then
        ip link del "${MN_ID}b" && log "removed bridge ${MN_ID}b"
    fi
    mn_hosts_remove
}

# Sets MN_EXEC to the command prefix that runs a program as node $1: in its network namespace, in a new UTS
# namespace whose host name is the node's. `nsenter --net`, not `ip netns exec`: the latter remounts /sys and hides
# the cgroup tree slurmd needs. Each step execs the next, so the PID of the prefix is the PID of the program.
mn_exec_prefix() {
    # shellcheck disable=SC2016  # $0 and $@ belong to the inner sh
    MN_EXEC=(nsenter "--net=/run/netns/$(mn_netns "$1")" unshare --uts -- sh -c 'hostname "$0" && exec "$@"' "n$1")
}

# Renders a multi-node template: every line holding @NODE@ is repeated for each node (with @NODE@ and @NODE_ADDR@
# filled in), @HOST@ is the controller's host name and @CTLD_ADDR@ its bridge address. The result then goes
# through the target's own `render` for the placeholders the single-node templates share.
mn_render() {
    local src=$1 dst=$2 tmp
    tmp=$(mktemp "$RUNDIR/.render.XXXXXX")
    awk -v n="$MN_NODES" -v subnet="$MN_SUBNET" -v host="$(node_name)" -v ctld="$MN_CTLD_ADDR" '
        { gsub(/@HOST@/, host); gsub(/@CTLD_ADDR@/, ctld) }
        /^[^#]*@NODE@/ {
            for (k = 1; k <= n; k++) {
                line = $0
                gsub(/@NODE_ADDR@/, subnet "." (10 + k), line)
                gsub(/@NODE@/, "n" k, line)
                print line
            }
            next
        }
        { print }' "$src" >"$tmp"
    render "$tmp" "$dst"
    rm -f -- "$tmp"
}
